// The factory is where the CLI gets everything that is not an interface: the backend's roles
// and the volume provider a storage verb's --backend names.
#include <catch2/catch.hpp>

#include "common/error.h"
#include "submit/factory/factory.h"

using lane::submit::open_volume_provider;
using lane::submit::StorageSelection;
using lane::submit::storage_traits;

TEST_CASE("factory: --backend of the storage verbs picks the volume provider, and its traits", "[cli][fast]") {
  for (const char* own : {"", "local", "kubernetes"}) {
    INFO(own);
    StorageSelection s;
    s.backend = own;
    // The configured backend's own stores: every claim's snapshots, restored into a new claim.
    const auto& t = storage_traits(s);
    CHECK_FALSE(t.one_volume);
    CHECK(t.label.empty());
    CHECK(t.new_volume_flag == "--to-pvc");
    CHECK(t.state_key.empty());  // files and sizes
    CHECK_FALSE(t.revert_deletes_newer);
  }
  StorageSelection anf;
  anf.backend = "anf";
  const auto& t = storage_traits(anf);
  CHECK(&t == &lane::submit::volume_provider_traits());
  CHECK(t.name == "anf");
  CHECK(t.label == "ANF");
  CHECK(t.title == "Azure NetApp Files");
  CHECK(t.one_volume);
  CHECK(t.new_volume_flag == "--to-volume");
  CHECK(t.new_volume_place == "same capacity pool as");
  CHECK(t.state_key == "anf.provisioningState");
  CHECK(t.revert_deletes_newer);
  auto provider = open_volume_provider();
  CHECK(&provider->traits() == &t);
  CHECK(provider->parse_service_level("ultra") == "Ultra");
  CHECK_THROWS_AS(provider->parse_service_level("Gold"), lane::UsageError);
  StorageSelection unknown;
  unknown.backend = "netapp";
  CHECK_THROWS_WITH(storage_traits(unknown), Catch::Contains("unknown --backend 'netapp'"));
  CHECK_THROWS_AS(storage_traits(unknown), lane::UsageError);
}

TEST_CASE("factory: the provider's options without --backend naming it are refused", "[cli][fast]") {
  for (int i = 0; i < 4; ++i) {
    StorageSelection s;
    s.backend = i % 2 ? "local" : "";
    (i == 0 ? s.ns : i == 1 ? s.volume_id : s.config) = "x";
    if (i == 3) s.timeout_s = 5;
    INFO(i);
    CHECK_THROWS_WITH(storage_traits(s), Catch::Contains("add --backend anf"));
  }
  StorageSelection with;
  with.backend = "anf";
  with.volume_id = "x";
  with.timeout_s = 5;
  CHECK(storage_traits(with).one_volume);
}

TEST_CASE("factory: the ANF provider refuses a target without exactly one of --pvc / --volume-id", "[cli][fast]") {
  auto anf = open_volume_provider();
  lane::storage::ProviderVolumeTarget none;
  CHECK_THROWS_AS(anf->open(none, nullptr), lane::UsageError);
  lane::storage::ProviderVolumeTarget both;
  both.pvc = "data";
  both.volume_id = "/subscriptions/s/resourceGroups/g/providers/Microsoft.NetApp/netAppAccounts/a/capacityPools/p/volumes/v";
  CHECK_THROWS_WITH(anf->open(both, nullptr), Catch::Contains("exactly one of --pvc"));
}

TEST_CASE("factory: hidden verbs are dispatched, anything else is left to the CLI", "[cli][fast]") {
  char prog[] = "lanectl", verb[] = "list";
  char* argv[] = {prog, verb, nullptr};
  CHECK(lane::submit::run_internal_verb(2, argv) == -1);
  char* bare[] = {prog, nullptr};
  CHECK(lane::submit::run_internal_verb(1, bare) == -1);
}
