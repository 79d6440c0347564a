#include "cli/snapshot_table.h"

#include "cli/table.h"
#include "storage/core/snapshot_lookup.h"

namespace lane::cli {

void print_snapshots(std::ostream& out, const std::vector<storage::SnapshotInfo>& snaps,
                     const storage::StorageTraits& traits, OutputFormat format) {
  if (format == OutputFormat::kJson || format == OutputFormat::kYaml) {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& s : snaps) items.push_back(storage::to_json(s));
    print_document(out, {{"items", items}}, format);
    return;
  }
  if (!traits.state_key.empty()) {
    Table table({"ID", "NAME", "VOLUME", "CREATED", "STATE"});
    for (const auto& s : snaps) {
      auto state = s.metadata.find(traits.state_key);
      table.add({storage::short_snapshot_id(s), s.name, s.volume, storage::format_utc(s.created_unix_ms),
                 state == s.metadata.end() ? "-" : state->second});
    }
    table.print(out);
    return;
  }
  const bool wide = format == OutputFormat::kWide;
  std::vector<std::string> header = {"ID", "NAME", "VOLUME", "JOB", "CREATED", "FILES", "SIZE"};
  if (wide) header.insert(header.end(), {"ADDED", "DIGEST"});
  Table table(header);
  for (const auto& s : snaps) {
    std::vector<std::string> row = {storage::short_snapshot_id(s), s.name, s.volume, s.job.empty() ? "-" : s.job,
                                    storage::format_utc(s.created_unix_ms),
                                    s.files_known ? std::to_string(s.file_count) : "-",
                                    storage::format_bytes(s.total_bytes)};
    if (wide)
      row.insert(row.end(), {s.files_known ? storage::format_bytes(s.new_bytes) : "-",
                             s.files_known ? s.content_digest.substr(0, 12) : "-"});
    table.add(row);
  }
  table.print(out);
}

}  // namespace lane::cli
