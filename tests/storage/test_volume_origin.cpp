// VolumeOrigin: the one reader and writer of a volume's stored origin ("user",
// "job/<project>/<job>", "<job>", "restore:<snapshot>"), and the lineage links derived from it.
#include <catch2/catch.hpp>

#include "common/error.h"
#include "storage/core/lineage_view.h"
#include "storage/core/volume_origin.h"

using lane::storage::LineageLinks;
using lane::storage::LineageRecord;
using lane::storage::VolumeInfo;
using lane::storage::VolumeOrigin;
using Kind = lane::storage::VolumeOrigin::Kind;

TEST_CASE("volume origin: every stored form parses to its kind and prints back byte for byte", "[storage][fast]") {
  struct Case {
    const char* text;
    Kind kind;
    const char* project;
    const char* name;
  };
  for (const Case& c : {Case{"user", Kind::kUser, "", ""}, Case{"job/team/train", Kind::kJob, "team", "train"},
                        Case{"download-tusimple-data", Kind::kJob, "", "download-tusimple-data"},
                        Case{"My_Job.v2", Kind::kJob, "", "My_Job.v2"},  // a hand-set Kubernetes label
                        Case{"restore:snap-1", Kind::kRestore, "", "snap-1"}}) {
    INFO(c.text);
    auto o = VolumeOrigin::parse(c.text);
    REQUIRE(o);
    CHECK(o->kind() == c.kind);
    CHECK(o->project() == c.project);
    CHECK((c.kind == Kind::kRestore ? o->snapshot() : o->job()) == (c.kind == Kind::kUser ? "" : c.name));
    CHECK(o->str() == c.text);
  }
  CHECK(VolumeOrigin::job("team", "train").str() == "job/team/train");
  CHECK(VolumeOrigin::job("", "train").str() == "train");
  CHECK(VolumeOrigin::restore("v1").str() == "restore:v1");
  CHECK(VolumeOrigin::user().str() == "user");
  CHECK(VolumeOrigin::restore("v1").restored_from("v1"));
  CHECK_FALSE(VolumeOrigin::restore("v1").restored_from("v2"));
  CHECK_FALSE(VolumeOrigin::job("", "v1").restored_from("v1"));
  CHECK(VolumeOrigin::job("a", "b") != VolumeOrigin::job("", "b"));
}

TEST_CASE("volume origin: malformed stored forms are refused, and so are names they cannot hold", "[storage][fast]") {
  for (const char* bad : {"", "restore:", "restore:Snap", "restore:a/b", "restore:a.b", "job/", "job/team",
                          "job//train", "job/team/", "job/Team/train", "job/team/train/x", "job/team/tr ain",
                          "a b", "x:y", "-lead", "trail-", "user/x"}) {
    INFO("'" << bad << "'");
    CHECK_FALSE(VolumeOrigin::parse(bad));
  }
  CHECK_THROWS_AS(VolumeOrigin::restore("Bad_Name"), lane::Error);
  CHECK_THROWS_AS(VolumeOrigin::job("team", "Bad_Name"), lane::Error);
  CHECK_THROWS_AS(VolumeOrigin::job("", ""), lane::Error);
}

TEST_CASE("lineage links: restores from the volumes' origins, derivations from the records", "[storage][fast]") {
  auto volume = [](const char* name, VolumeOrigin origin) {
    VolumeInfo v;
    v.name = name;
    v.origin = std::move(origin);
    return v;
  };
  auto record = [](const char* snapshot, const char* volume, const char* parent) {
    LineageRecord r;
    r.snapshot = snapshot;
    r.volume = volume;
    r.parent_snapshot = parent;
    return r;
  };
  const LineageLinks links({record("base", "data", ""), record("child", "restored", "base"),
                            record("orphan", "gone", "base"), record("other", "data", "base")},
                           {volume("data", VolumeOrigin::job("team", "train")),
                            volume("restored", VolumeOrigin::restore("base")),
                            volume("copy", VolumeOrigin::restore("child"))});
  REQUIRE(links.restores().size() == 2);
  CHECK(links.restores()[0].snapshot == "base");
  CHECK(links.restores()[0].volume == "restored");
  CHECK(links.restored_volumes("base") == std::vector<std::string>{"restored"});
  CHECK(links.restored_volumes("child") == std::vector<std::string>{"copy"});
  CHECK(links.derived_snapshots("base") == std::vector<std::string>{"child", "orphan", "other"});
  REQUIRE(links.derivations().size() == 3);
  CHECK(links.derivations()[0].through_volume);        // "restored" still says it came from base
  CHECK_FALSE(links.derivations()[1].through_volume);  // its volume is gone
  CHECK_FALSE(links.derivations()[2].through_volume);  // "data" was not restored from base
}
