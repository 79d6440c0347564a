#pragma once
// Catch for tests that use libtorch. libtorch's glog headers define CHECK too, and the last
// definition wins (silently: they are system headers), so with Catch included first a failed
// CHECK aborted the whole binary through glog instead of being reported. Torch first, then
// Catch owns CHECK; later torch includes are no-ops behind their include guards.
#include <torch/torch.h>
#undef CHECK
#include <catch2/catch.hpp>
