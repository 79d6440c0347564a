#pragma once
// Catch for tests that use libtorch. libtorch's glog headers define CHECK too, and the last
// definition wins (silently: they are system headers), so with Catch included first a failed
// CHECK aborted the whole binary through glog instead of being reported. Torch first, then
// Catch owns CHECK; later torch includes are no-ops behind their include guards.
// Every file of a test executable that links libtorch includes this one, not <catch2/catch.hpp>:
// in a unity build the files of a target share one translation unit, and Catch included by an
// earlier file would leave this one's #undef with no CHECK at all.
#ifdef TWOBLUECUBES_SINGLE_INCLUDE_CATCH_HPP_INCLUDED
#error "catch_torch.h after <catch2/catch.hpp>: include catch_torch.h in every file of a test that links libtorch"
#endif
#include <torch/torch.h>
#undef CHECK
#include <catch2/catch.hpp>
