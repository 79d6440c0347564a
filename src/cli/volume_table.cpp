#include "cli/volume_table.h"

#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/table.h"
#include "common/error.h"
#include "common/names.h"
#include "storage/core/snapshots.h"
#include "submit/core/errors.h"
#include "submit/core/workload_json.h"

namespace lane::cli {
namespace {

VolumeRow row_of(storage::VolumeInfo info, const std::vector<submit::VolumeMount>& mounts) {
  VolumeRow row;
  for (const auto& m : mounts)
    if (m.volume == info.name && (info.project.empty() || m.project == info.project)) row.users.push_back(m);
  if (!info.local_path.empty()) row.used = storage::measure_directory(info.local_path);
  row.info = std::move(info);
  return row;
}

std::string origin_text(const storage::VolumeOrigin& o) {
  switch (o.kind()) {
    case storage::VolumeOrigin::Kind::kJob:
      return o.project().empty() ? "job " + o.job() : fmt::format("job {}/{}", o.project(), o.job());
    case storage::VolumeOrigin::Kind::kRestore:
      return "restore of " + o.snapshot();
    case storage::VolumeOrigin::Kind::kUser:
      break;
  }
  return "user";
}

std::string users_text(const VolumeRow& r) {
  std::vector<std::string> jobs;
  for (const auto& m : r.users) jobs.push_back(fmt::format("{} ({})", m.job, submit::to_string(m.status)));
  return jobs.empty() ? "-" : fmt::format("{}", fmt::join(jobs, ", "));
}

std::string used_text(const VolumeRow& r) { return r.used ? storage::format_usage(*r.used) : "-"; }
std::string thin_text(const VolumeRow& r) { return r.info.thin ? (*r.info.thin ? "yes" : "no") : "-"; }
std::string project_text(const VolumeRow& r) { return r.info.project.empty() ? "-" : r.info.project; }

nlohmann::json to_json(const VolumeRow& r) {
  nlohmann::json users = nlohmann::json::array();
  for (const auto& m : r.users)
    users.push_back({{"job", m.job}, {"project", m.project}, {"status", submit::to_string(m.status)}});
  nlohmann::json j{{"name", r.info.name},         {"project", r.info.project},
                   {"size", r.info.size},         {"storageClass", r.info.storage_class},
                   {"origin", r.info.origin.str()}, {"created", submit::format_rfc3339(r.info.created_unix_ms)},
                   {"usedBy", users}};
  j["thin"] = r.info.thin ? nlohmann::json(*r.info.thin) : nlohmann::json();
  j["usedBytes"] = r.used ? nlohmann::json(r.used->bytes) : nlohmann::json();
  if (r.used) j["usedComplete"] = r.used->complete;
  if (!r.info.local_path.empty()) j["path"] = r.info.local_path.string();
  return j;
}

// The volumes of `projects`, each once: a volume of no known project (a local claim of an
// earlier version) is shown with every project, as any of them may mount it.
std::vector<storage::VolumeInfo> volumes_of(CliContext& ctx, const std::vector<std::string>& projects, bool all) {
  std::vector<storage::VolumeInfo> out;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& p : projects)
    for (auto& v : ctx.storage().volumes_of(p).list()) {
      if (!v.project.empty() && v.project != p) continue;
      if (seen.insert({all ? v.project : p, v.name}).second) out.push_back(std::move(v));
    }
  return out;
}

}  // namespace

std::vector<VolumeRow> collect_volumes(CliContext& ctx, const std::optional<std::string>& project) {
  std::vector<std::string> projects;
  if (project) {
    projects.push_back(*project);
  } else {
    for (const auto& p : ctx.projects().list_projects()) projects.push_back(p.spec.name);
  }
  const auto mounts = ctx.storage().volume_mounts(project.value_or(""));
  std::vector<VolumeRow> rows;
  for (auto& v : volumes_of(ctx, projects, !project)) rows.push_back(row_of(std::move(v), mounts));
  return rows;
}

void list_volumes(CliContext& ctx, const std::string& project_flag, bool all, const std::string& output) {
  const OutputFormat format = parse_output_format(output);
  std::optional<std::string> project;
  if (!all) {
    project = ctx.project(project_flag);
    if (!ctx.projects().project_exists(*project)) throw submit::unknown_project(*project);
  }
  auto rows = collect_volumes(ctx, project);
  if (format == OutputFormat::kJson || format == OutputFormat::kYaml) {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& r : rows) items.push_back(to_json(r));
    return print_document(ctx.out, {{"items", items}}, format);
  }
  if (rows.empty()) {
    ctx.out << (project ? fmt::format("No volumes found in project {}.\n", *project) : "No volumes found.\n");
    return;
  }
  Table table({"NAME", "PROJECT", "SIZE", "USED", "THIN", "ORIGIN", "USED BY"});
  for (const auto& r : rows)
    table.add({r.info.name, project_text(r), r.info.size, used_text(r), thin_text(r), origin_text(r.info.origin),
               users_text(r)});
  table.print(ctx.out);
}

void describe_volume(CliContext& ctx, const std::string& name, const std::string& project_flag,
                     const std::string& output) {
  const OutputFormat format = parse_output_format(output);
  require_dns1123_label(name, "volume name");
  const std::string project = ctx.project(project_flag);
  auto info = ctx.storage().volumes_of(project).find(name);
  if (!info) throw Error(fmt::format("volume '{}' not found in project {}; see `lanectl volume list -A`", name, project));
  const VolumeRow r = row_of(std::move(*info), ctx.storage().volume_mounts(project));
  if (format == OutputFormat::kJson || format == OutputFormat::kYaml) return print_document(ctx.out, to_json(r), format);
  auto& out = ctx.out;
  out << fmt::format("Name:           {}\n", r.info.name);
  out << fmt::format("Project:        {}\n", project_text(r));
  out << fmt::format("Size requested: {}\n", r.info.size);
  out << fmt::format("Size used:      {}\n", used_text(r));
  out << fmt::format("Thin:           {}\n", thin_text(r));
  out << fmt::format("Storage class:  {}\n", r.info.storage_class.empty() ? "<default>" : r.info.storage_class);
  out << fmt::format("Origin:         {}\n", origin_text(r.info.origin));
  out << fmt::format("Created:        {}\n", storage::format_utc(r.info.created_unix_ms));
  if (!r.info.local_path.empty()) out << fmt::format("Path:           {}\n", r.info.local_path.string());
  out << fmt::format("Used by:        {}\n", users_text(r));
}

}  // namespace lane::cli
