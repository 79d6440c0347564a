#include "cli/snapshot_create.h"

#include <map>
#include <optional>

#include <fmt/format.h>

#include "cli/snapshot_ops.h"
#include "common/error.h"
#include "common/names.h"
#include "storage/core/snapshots.h"
#include "submit/core/jobs.h"
#include "submit/core/workload.h"
#include "submit/training/training_snapshot.h"

namespace lane::cli {

namespace {
constexpr int kMaxGeneratedNameAttempts = 20;
}  // namespace

void create_snapshot(const SnapshotCreateOptions& o, CliContext& ctx) {
  SelectedStorage selected(o.storage);
  if (o.pvc.empty() && o.storage.volume_id.empty())  // --volume-id: only with a provider (checked above)
    throw UsageError("snapshot create needs --pvc NAME (the volume to snapshot)");
  if (!o.pvc.empty()) require_dns1123_label(o.pvc, "--pvc");
  if (!o.job.empty()) require_dns1123_label(o.job, "--job");
  const OutputFormat format = parse_output_format(o.output);
  if (!o.name.empty()) storage::require_snapshot_name(o.name, "--name");
  const std::string ns = submit::project_namespace(ctx.project(o.project));
  auto& store = selected.open(o.pvc, o.project, ctx);
  const std::string base = o.pvc.empty() ? selected.volume().volume : o.pvc;
  const std::string first_name =
      o.name.empty() ? storage::default_snapshot_name(base, storage::now_unix_ms()) : o.name;
  storage::require_snapshot_name(first_name, "--name");
  // --job on a backend: the lineage records the job (image, command, environment with secrets
  // masked), as the end-of-training snapshot does; a job that is gone (or never was) is only named.
  std::optional<storage::LineageRecord> record;
  if (!o.job.empty() && !selected.traits().one_volume) {
    const std::string project = ctx.project(o.project);
    std::optional<submit::JobInfo> job;
    std::string why;
    try {
      job = ctx.jobs().describe_job(o.job, project);
      if (!job) why = fmt::format("no such job in project '{}' (see `lanectl list -p {}`)", project, project);
    } catch (const Error& e) {  // e.g. a pod's service account that may not read jobs
      why = fmt::format("cannot read the job ({})", e.what());
    }
    if (job) {
      record.emplace();
      record->job = submit::job_record_from_spec(job->spec, "");
    } else {
      ctx.err << fmt::format("warning: --job {}: {}; the snapshot names it, but its lineage cannot record the "
                             "job's image, command and environment\n",
                             o.job, why);
    }
  }
  StoreProgress progress(store, "snapshot create", o.quiet, ctx);
  const std::map<std::string, std::string> metadata = {{"namespace", ns}, {"reason", "user"}};
  // A generated name taken by a snapshot of the same second (another `snapshot create` of the
  // volume) gets a suffix: -2, -3, ...; a name the user gave is theirs to change.
  auto taken = [&store](const std::string& n) {
    try {
      store.describe(n);
      return true;
    } catch (const UsageError&) {
      return true;  // another project's
    } catch (const Error&) {
      return false;
    }
  };
  storage::SnapshotInfo info;
  for (int attempt = 1;; ++attempt) {
    const std::string name = attempt == 1 ? first_name : fmt::format("{}-{}", first_name, attempt);
    try {
      info = record ? store.create_with_lineage(o.pvc, name, o.job, metadata, *record)
                    : store.create(o.pvc, name, o.job, metadata);
      break;
    } catch (const UsageError&) {
      if (!o.name.empty() || attempt >= kMaxGeneratedNameAttempts || !taken(name)) throw;
    }
  }
  progress.finish();
  if (format == OutputFormat::kJson || format == OutputFormat::kYaml) {
    print_document(ctx.out, storage::to_json(info), format);
    return;
  }
  const auto& traits = selected.traits();
  if (traits.one_volume) {  // a provider volume's snapshot: no file counts or sizes
    ctx.out << fmt::format("{} snapshot {} created on volume {}\n", traits.label, info.name, selected.volume().volume);
    return;
  }
  if (!info.files_known) {  // a CSI snapshot: its source and size only
    ctx.out << fmt::format("Snapshot {} of PVC {} created in namespace {} (size {})\n", info.name, info.volume, info.ns,
                           storage::format_bytes(info.total_bytes));
    return;
  }
  ctx.out << fmt::format("Snapshot {} created in namespace {}\n", info.name, info.ns);
  ctx.out << fmt::format("{} files, {}, {} added to the store\n", info.file_count,
                         storage::format_bytes(info.total_bytes), storage::format_bytes(info.new_bytes));
}

}  // namespace lane::cli
