#include "storage/core/volumes.h"

#include "common/error.h"

namespace lane::storage {

VolumeInfo Volumes::create_from(const std::string& name, const std::string&, const std::string&,
                                const std::string&, const std::filesystem::path&) {
  throw Error("this backend cannot publish prepared data as volume '" + name + "'");
}

}  // namespace lane::storage
