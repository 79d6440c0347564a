#include "cli/snapshot_table.h"

#include "cli/table.h"
#include "storage/core/snapshot_lookup.h"

namespace lane::cli {

void print_snapshots(std::ostream& out, const std::vector<storage::SnapshotInfo>& snaps,
                     const storage::StorageTraits& traits, OutputFormat format,
                     const std::vector<std::string>& projects) {
  const bool by_project = !projects.empty();
  auto project_of = [&](size_t i) { return i < projects.size() && !projects[i].empty() ? projects[i] : "-"; };
  // PROJECT after NAME (the second column) when listing every project's snapshots.
  auto with_project = [&](std::vector<std::string> row, const std::string& project) {
    if (by_project) row.insert(row.begin() + 2, project);
    return row;
  };
  if (format == OutputFormat::kJson || format == OutputFormat::kYaml) {
    nlohmann::json items = nlohmann::json::array();
    for (size_t i = 0; i < snaps.size(); ++i) {
      items.push_back(storage::to_json(snaps[i]));
      if (by_project) items.back()["project"] = project_of(i);
    }
    print_document(out, {{"items", items}}, format);
    return;
  }
  if (!traits.state_key.empty()) {
    Table table(with_project({"ID", "NAME", "VOLUME", "CREATED", "STATE"}, "PROJECT"));
    for (size_t i = 0; i < snaps.size(); ++i) {
      const auto& s = snaps[i];
      auto state = s.metadata.find(traits.state_key);
      table.add(with_project({storage::short_snapshot_id(s), s.name, s.volume, storage::format_utc(s.created_unix_ms),
                              state == s.metadata.end() ? "-" : state->second},
                             project_of(i)));
    }
    table.print(out);
    return;
  }
  const bool wide = format == OutputFormat::kWide;
  std::vector<std::string> header = {"ID", "NAME", "VOLUME", "JOB", "CREATED", "FILES", "SIZE"};
  if (wide) header.insert(header.end(), {"ADDED", "DIGEST"});
  Table table(with_project(header, "PROJECT"));
  for (size_t i = 0; i < snaps.size(); ++i) {
    const auto& s = snaps[i];
    std::vector<std::string> row = {storage::short_snapshot_id(s), s.name, s.volume, s.job.empty() ? "-" : s.job,
                                    storage::format_utc(s.created_unix_ms),
                                    s.files_known ? std::to_string(s.file_count) : "-",
                                    storage::format_bytes(s.total_bytes)};
    if (wide)
      row.insert(row.end(), {s.files_known ? storage::format_bytes(s.new_bytes) : "-",
                             s.files_known ? s.content_digest.substr(0, 12) : "-"});
    table.add(with_project(row, project_of(i)));
  }
  table.print(out);
}

}  // namespace lane::cli
