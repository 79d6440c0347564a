#pragma once
// Starts tests/anf/fake_arm.py (ARM + token endpoint + PVC/PV reads) on 127.0.0.1 for one test.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "storage/anf/anf_options.h"

namespace lane::test {

inline constexpr const char* kAnfSecret = "s3cr3t-Value~With.Chars_42";
inline constexpr const char* kAnfClientId = "11111111-2222-3333-4444-555555555555";
inline constexpr const char* kVolume1 =
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/myRG/providers/Microsoft.NetApp/"
    "netAppAccounts/account1/capacityPools/pool1/volumes/volume1";

class FakeArm {
 public:
  // `setup` goes to /_test/reset (extra pools/volumes, polls per operation).
  explicit FakeArm(nlohmann::json setup = nlohmann::json::object());
  ~FakeArm();
  FakeArm(const FakeArm&) = delete;
  FakeArm& operator=(const FakeArm&) = delete;

  std::string url() const;
  nlohmann::json control(const std::string& path, const nlohmann::json& body = nlohmann::json::object());
  nlohmann::json state() { return control("/_test/state"); }
  // Options pointing at this server with the right credentials and fast polling.
  storage::anf::AnfOptions options() const;
  // Registers PVC `pvc` (namespace ns) bound to PV `pv` with the given CSI volumeAttributes.
  void add_pvc(const std::string& ns, const std::string& pvc, const std::string& pv,
               const nlohmann::json& attributes, const std::string& driver = "csi.trident.netapp.io");

 private:
  int pid_ = -1;
  int port_ = 0;
};

struct TempDir {
  TempDir();
  ~TempDir();
  std::filesystem::path path;
};

}  // namespace lane::test
