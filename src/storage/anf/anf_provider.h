#pragma once
// Azure NetApp Files as a volume provider (storage/core/volume_provider.h): what the factory
// hands the CLI for `--backend anf` and `lanectl volume ...`.
#include <memory>

#include "storage/core/volume_provider.h"

namespace lane::storage::anf {

std::unique_ptr<VolumeProvider> make_anf_provider();

// The provider's traits (make_anf_provider()->traits()), without making one.
const StorageTraits& anf_traits();

}  // namespace lane::storage::anf
