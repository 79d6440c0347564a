// The factory is where the CLI gets everything that is not an interface: the backend's roles
// and the volume provider a storage verb's --backend names.
#include <catch2/catch.hpp>

#include "common/error.h"
#include "submit/factory/factory.h"

using lane::submit::open_volume_provider;

TEST_CASE("factory: --backend of the storage verbs picks the volume provider") {
  for (const char* own : {"", "local", "kubernetes"}) {
    INFO(own);
    CHECK(open_volume_provider(own) == nullptr);  // the configured backend's own stores
  }
  auto anf = open_volume_provider("anf");
  REQUIRE(anf != nullptr);
  CHECK(anf->parse_service_level("ultra") == "Ultra");
  CHECK_THROWS_AS(anf->parse_service_level("Gold"), lane::UsageError);
  CHECK_THROWS_WITH(open_volume_provider("netapp"), Catch::Contains("unknown --backend 'netapp'"));
  CHECK_THROWS_AS(open_volume_provider("netapp"), lane::UsageError);
}

TEST_CASE("factory: the ANF provider refuses a target without exactly one of --pvc / --volume-id") {
  auto anf = open_volume_provider("anf");
  lane::storage::ProviderVolumeTarget none;
  CHECK_THROWS_AS(anf->open(none, nullptr), lane::UsageError);
  lane::storage::ProviderVolumeTarget both;
  both.pvc = "data";
  both.volume_id = "/subscriptions/s/resourceGroups/g/providers/Microsoft.NetApp/netAppAccounts/a/capacityPools/p/volumes/v";
  CHECK_THROWS_WITH(anf->open(both, nullptr), Catch::Contains("exactly one of --pvc"));
}

TEST_CASE("factory: hidden verbs are dispatched, anything else is left to the CLI") {
  char prog[] = "lanectl", verb[] = "list";
  char* argv[] = {prog, verb, nullptr};
  CHECK(lane::submit::run_internal_verb(2, argv) == -1);
  char* bare[] = {prog, nullptr};
  CHECK(lane::submit::run_internal_verb(1, bare) == -1);
}
