#pragma once
// Volumes whose data are directories on this machine (VolumeInfo::local_path): what the local
// snapshot store snapshots and restores into. The local backend's claims are these.
#include <filesystem>
#include <string>

#include "storage/core/volumes.h"

namespace lane::storage::local {

class DirectoryVolumes : public Volumes {
 public:
  // A hidden directory on the same file system as the claims' directories, where a restore
  // builds a claim's data before publishing it.
  virtual std::filesystem::path staging_dir() = 0;
  // Registers the new claim `name` whose data is the directory `prepared` (under staging_dir()),
  // moving it into place with one rename inside the registration: the claim appears complete or
  // not at all.
  virtual VolumeInfo create_from(const std::string& name, const std::string& size, const std::string& storage_class,
                                 const VolumeOrigin& origin, const std::filesystem::path& prepared) = 0;
  // Removes what interrupted operations left: staging entries of processes that are gone and
  // claim directories that were never registered.
  virtual void remove_debris() = 0;
};

}  // namespace lane::storage::local
