// lanectl cp JOB:/path LOCAL: copy a file (or a directory's regular files) out of a job's volumes,
// as kubectl cp does, through the backend's JobFiles role: locally read from the claim or -v
// directory mounted there with links refused on the whole path (common/beneath.h), on Kubernetes
// read in the job's chief pod. lanectl cp LOCAL JOB:/path copies one file in (JobFiles::write_file:
// written beside the name, then renamed over it). A path on none of the job's mounts is refused
// with the reason.
#include <filesystem>

#include <fmt/format.h>

#include "cli/context.h"
#include "cli/verbs.h"
#include "common/atomic_file.h"
#include "common/error.h"
#include "submit/core/job_files.h"

namespace lane::cli {

namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMaxCopyBytes = 1ull << 30;  // one file, held in memory on its way
constexpr size_t kMaxDirFiles = 10000;

struct CpOptions {
  std::string source, dest, project;
};

// "JOB:/path" → job and path; nullopt for a local path.
std::optional<std::pair<std::string, std::string>> job_path(const std::string& arg) {
  const size_t colon = arg.find(':');
  if (colon == std::string::npos || colon == 0 || arg.find('/') < colon) return std::nullopt;
  return std::pair{arg.substr(0, colon), arg.substr(colon + 1)};
}

// Whether `path` lies under one of the job's --pvc or -v mount paths (or is one).
bool on_a_mount(const submit::JobSpec& spec, const std::string& path) {
  auto under = [&](const std::string& mount) { return path == mount || !submit::relative_path_under(path, mount).empty(); };
  for (const auto& p : spec.pvcs)
    if (under(p.mount_path)) return true;
  for (const auto& v : spec.volumes)
    if (under(v.container_path)) return true;
  return false;
}

// Copies one file of the job to `target`; its size.
uint64_t copy_file(submit::JobFiles& files, const std::string& job, const std::string& project,
                   const std::string& path, const fs::path& target) {
  auto r = files.read_file(job, project, path, kMaxCopyBytes, false);
  if (!r.ok) throw Error(fmt::format("cannot copy {}:{}: {}", job, path, r.reason));
  if (r.truncated())
    throw Error(fmt::format("cannot copy {}:{}: it has {} bytes, more than cp copies ({}); use a snapshot of its "
                            "volume (lanectl snapshot create) instead", job, path, r.size, kMaxCopyBytes));
  write_file_atomic(target, r.data);
  return r.size;
}

// The project of `job`, after checking that the job exists and `path` is clean and on one of its mounts.
std::string check_job_path(const std::string& job, const std::string& path, const CpOptions& o, CliContext& ctx) {
  if (!submit::is_clean_absolute_path(path))
    throw UsageError("cp " + job + ":" + path + ": give the absolute path in the job's container, e.g. " + job +
                     ":/mnt/output/metrics.jsonl (no '.', '..' or empty parts)");
  const std::string project = ctx.project(o.project);
  const auto info = ctx.jobs().describe_job(job, project);
  if (!info)
    throw Error("job '" + job + "' does not exist in project '" + project +
                "'. If the job exists in a different project, use -p <project-name>.");
  if (!on_a_mount(info->spec, path))
    throw Error(fmt::format("cannot copy {}:{}: it is on none of the job's volumes (--pvc, -v); cp copies from "
                            "and to them only", job, path));
  return project;
}

void copy_out(const std::string& job, const std::string& path, const CpOptions& o, CliContext& ctx) {
  const std::string project = check_job_path(job, path, o, ctx);
  auto& files = ctx.job_files();
  const std::string base = path.substr(path.rfind('/') + 1);
  auto dir = files.list_dir(job, project, path, kMaxDirFiles);
  if (!dir.ok) {
    const fs::path target = fs::is_directory(o.dest) ? fs::path(o.dest) / base : fs::path(o.dest);
    copy_file(files, job, project, path, target);
    return;
  }
  if (dir.truncated) throw Error(fmt::format("cannot copy {}:{}: it holds more than {} files", job, path, kMaxDirFiles));
  const fs::path target = fs::exists(o.dest) ? fs::path(o.dest) / base : fs::path(o.dest);
  fs::create_directories(target);
  for (const auto& e : dir.entries) copy_file(files, job, project, path + "/" + e.name, target / e.name);
  ctx.err << fmt::format("copied {} files of {}:{} (its regular files; subdirectories and links are left out)\n",
                         dir.entries.size(), job, path);
}

// One local file into the job: to `path`, or into it when it is a directory of the job.
void copy_in(const std::string& job, std::string path, const CpOptions& o, CliContext& ctx) {
  const std::string project = check_job_path(job, path, o, ctx);
  if (!fs::is_regular_file(o.source))
    throw UsageError("cp '" + o.source + "': copies into a job take one regular file; copy a directory's files "
                     "one by one, or mount it with -v HOST:CONTAINER at submit");
  if (const auto size = fs::file_size(o.source); size > kMaxCopyBytes)
    throw Error(fmt::format("cannot copy {}: it has {} bytes, more than cp copies ({}); put it on a volume with "
                            "lanectl volume or --pvc instead", o.source, size, kMaxCopyBytes));
  auto& files = ctx.job_files();
  if (files.list_dir(job, project, path, 1).ok) path += "/" + fs::path(o.source).filename().string();
  const auto w = files.write_file(job, project, path, read_file(o.source));
  if (!w.ok) throw Error(fmt::format("cannot copy to {}:{}: {}", job, path, w.reason));
}

void run_cp(const CpOptions& o, CliContext& ctx) {
  const auto from = job_path(o.source), to = job_path(o.dest);
  if (from && to) throw UsageError("cp copies between a job and this machine: one of SOURCE and DEST is local");
  if (to) return copy_in(to->first, to->second, o, ctx);
  if (!from) throw UsageError("cp '" + o.source + "': name the job's file as JOB:/path/in/container (or DEST, to copy in)");
  copy_out(from->first, from->second, o, ctx);
}

}  // namespace

void add_cp_command(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<CpOptions>();
  auto* cmd = app.add_subcommand(
      "cp", "Copy a file or a directory's files out of a job's volumes (cp JOB:/path LOCAL), or a file in (cp LOCAL JOB:/path)");
  cmd->footer("Examples:\n"
              "  lanectl cp train-1:/mnt/output/metrics.jsonl .      # out of the job's volume\n"
              "  lanectl cp config.yaml train-1:/mnt/data            # into a directory of the job's volume\n"
              "  lanectl cp train-1:/mnt/output runs/train-1         # a directory's regular files");
  cmd->add_option("SOURCE", o->source, "JOB:/path in the job's container (on one of its --pvc or -v mounts), or a local file")
      ->required();
  cmd->add_option("DEST", o->dest, "Local file or directory, or JOB:/path (a file, or a directory to copy into)")->required();
  cmd->add_option("-p,--project", o->project, "Project");
  cmd->callback([o, &ctx] { run_cp(*o, ctx); });
}

}  // namespace lane::cli
