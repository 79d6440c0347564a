#include "storage/core/snapshot_lookup.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"
#include "common/sha256.h"

namespace lane::storage {

namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

bool is_hex(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::string candidates(const std::vector<const SnapshotInfo*>& found) {
  std::string out;
  for (const auto* s : found) out += fmt::format("\n  {}  {}", short_snapshot_id(*s), s->name);
  return out;
}

}  // namespace

void require_snapshot_reference(const std::string& ref, const std::string& field) {
  const bool ok = !ref.empty() && ref.size() <= kMaxSnapshotName &&
                  std::all_of(ref.begin(), ref.end(),
                              [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
  if (!ok)
    throw UsageError(fmt::format("invalid {} '{}': give a snapshot's name, a unique prefix of it or of its ID "
                                 "(lower-case letters, digits and '-'; see 'lanectl snapshot list')",
                                 field, ref));
}

std::string snapshot_id(const SnapshotInfo& snapshot) {
  return sha256_hex(fmt::format("{}\n{}", snapshot.name, snapshot.created_unix_ms));
}

std::string short_snapshot_id(const SnapshotInfo& snapshot) { return snapshot_id(snapshot).substr(0, kShortIdLength); }

const SnapshotInfo& find_snapshot(const std::vector<SnapshotInfo>& snapshots, const std::string& ref,
                                  const std::string& field) {
  require_snapshot_reference(ref, field);
  for (const auto& s : snapshots)
    if (s.name == ref) return s;
  const bool id_like = is_hex(ref) && ref.size() >= kMinIdPrefix;
  std::vector<const SnapshotInfo*> found;
  for (const auto& s : snapshots)
    if (starts_with(s.name, ref) || (id_like && starts_with(snapshot_id(s), ref))) found.push_back(&s);
  if (found.size() == 1) return *found.front();
  if (found.empty())
    throw Error(fmt::format("snapshot '{}' not found: no snapshot's name{} starts with it; see 'lanectl snapshot list'",
                            ref, id_like ? " or ID" : ""));
  throw UsageError(fmt::format("{} '{}' is ambiguous: it matches {} snapshots (ID, name):{}\n"
                               "give more of the name or of the ID",
                               field, ref, found.size(), candidates(found)));
}

std::string resolve_snapshot(SnapshotStore& store, const std::string& ref, const std::string& field) {
  return find_snapshot(store.list(std::nullopt), ref, field).name;
}

const SnapshotInfo& snapshot_of_job(const std::vector<SnapshotInfo>& snapshots, const std::string& job) {
  std::vector<const SnapshotInfo*> found;
  for (const auto& s : snapshots)
    if (s.job == job) found.push_back(&s);
  if (found.size() == 1) return *found.front();
  if (found.empty())
    throw Error(fmt::format("job '{}' took no snapshot (none names it as its job); see 'lanectl snapshot list'", job));
  throw Error(fmt::format("job '{}' took {} snapshots (ID, name):{}\nname the one to restore instead of --job", job,
                          found.size(), candidates(found)));
}

namespace {

// The length of the longest prefix `a` shares with `b` that ends just after a '-'.
size_t shared_prefix(const std::string& a, const std::string& b) {
  size_t n = 0, cut = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) {
    if (a[n] == '-') cut = n + 1;
    ++n;
  }
  return cut;
}

std::string distinguishing_part(const std::string& name, const std::vector<std::string>& names, size_t width) {
  size_t cut = 0;
  for (const auto& other : names)
    if (&other != &name) cut = std::max(cut, shared_prefix(name, other));
  std::string part = name.substr(cut);
  const std::string lead = cut > 0 ? "…" : "";
  if (part.size() + (cut > 0) > width) part = part.substr(0, width - 1 - (cut > 0)) + "…";
  return lead + part;
}

}  // namespace

std::vector<std::string> snapshot_labels(const std::vector<std::string>& names, const std::vector<std::string>& ids,
                                         size_t width) {
  std::vector<std::string> out;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string id = i < ids.size() ? ids[i] : "";
    const size_t room = id.empty() || id.size() + 4 > width ? width : width - id.size() - 1;
    const std::string part = distinguishing_part(names[i], names, room);
    out.push_back(id.empty() ? part : id + " " + part);
  }
  return out;
}

}  // namespace lane::storage
