#include "storage/anf/anf_provider.h"

#include "storage/anf/anf_options.h"
#include "storage/anf/anf_target.h"
#include "storage/anf/volume_service_level.h"

namespace lane::storage::anf {
namespace {

class AnfVolume : public ProviderVolume {
 public:
  explicit AnfVolume(OpenedTarget target)
      : target_(std::move(target)),
        ref_{target_.volume.ref.volume, target_.volume.ref.pool, target_.volume.pvc, target_.volume.pv,
             target_.volume.method} {}

  const ProviderVolumeRef& ref() const override { return ref_; }
  SnapshotStore& snapshots() override { return *target_.store; }
  nlohmann::json describe() override { return describe_volume(target_.arm(), target_.volume.ref).to_json(); }
  ServiceLevelChange set_service_level(const std::string& level, const std::string& pool) override {
    auto r = change_service_level(target_.arm(), target_.volume.ref, level, pool);
    return {r.from_pool, r.to_pool, r.from_level, r.to_level};
  }

 private:
  OpenedTarget target_;
  ProviderVolumeRef ref_;
};

class AnfProvider : public VolumeProvider {
 public:
  const StorageTraits& traits() const override { return anf_traits(); }
  std::string parse_service_level(const std::string& text) const override {
    return anf::parse_service_level(text);
  }
  std::unique_ptr<ProviderVolume> open(const ProviderVolumeTarget& target, std::ostream* progress) override {
    return std::make_unique<AnfVolume>(open_anf_target(target, progress));
  }
};

}  // namespace

const StorageTraits& anf_traits() {
  static const StorageTraits traits = [] {
    StorageTraits t;
    t.name = "anf";
    t.label = "ANF";
    t.title = "Azure NetApp Files";
    t.one_volume = true;
    t.new_volume_flag = "--to-volume";
    t.new_volume_place = "same capacity pool as";
    t.state_key = "anf.provisioningState";  // anf_snapshot_store.cpp
    t.revert_deletes_newer = true;
    t.config_option = {kConfigFlag, "credentials file (0600; Trident backend.json keys)", kConfigEnv};
    t.volume_id_help = "volume ARM resource id (instead of --pvc)";
    t.service_levels = "Standard | Premium | Ultra";
    return t;
  }();
  return traits;
}

std::unique_ptr<VolumeProvider> make_anf_provider() { return std::make_unique<AnfProvider>(); }

}  // namespace lane::storage::anf
