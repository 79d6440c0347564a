#include "cli/snapshot_create.h"

#include <fmt/format.h>

#include "cli/snapshot_ops.h"
#include "common/error.h"
#include "common/names.h"
#include "storage/core/snapshots.h"
#include "submit/core/workload.h"

namespace lane::cli {

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
  const std::string name = o.name.empty() ? storage::default_snapshot_name(base, storage::now_unix_ms()) : o.name;
  storage::require_snapshot_name(name, "--name");
  StoreProgress progress(store, "snapshot create", o.quiet, ctx);
  auto info = store.create(o.pvc, name, o.job, {{"namespace", ns}, {"reason", "user"}});
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
