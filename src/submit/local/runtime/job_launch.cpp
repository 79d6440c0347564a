#include "submit/local/runtime/job_launch.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sys/sysinfo.h>

#include <fmt/format.h>

#include "common/error.h"
#include "submit/local/runtime/images.h"

namespace lane::submit::local {

std::vector<std::string> job_command(const JobSpec& spec) {
  std::vector<std::string> argv;
  if (!spec.command.empty()) {
    argv = spec.command;
  } else {
    auto image = resolve_local_image(spec.image);
    if (!image) {
      std::string known;
      for (const auto& n : known_image_names()) known += (known.empty() ? "" : ", ") + n;
      throw UsageError("image '" + spec.image +
                       "' is not one of this project's images (" + known +
                       "), so the local backend does not know its entrypoint; give the command "
                       "explicitly: --command -- CMD ARGS...");
    }
    argv = image->entrypoint;
  }
  argv.insert(argv.end(), spec.args.begin(), spec.args.end());
  return argv;
}

uint64_t shm_size_bytes(const JobSpec& spec) {
  if (spec.shm_size.given()) {
    auto bytes = spec.shm_size.bytes();
    if (!bytes || *bytes == 0)
      throw UsageError("invalid shm size '" + spec.shm_size.text() + "'; use a quantity such as 8Gi");
    return *bytes;
  }
  if (spec.large_shm) {
    struct sysinfo si {};
    if (sysinfo(&si) == 0) return static_cast<uint64_t>(si.totalram) * si.mem_unit / 2;
    return 8ull << 30;
  }
  return 64ull << 20;  // the container runtime's default /dev/shm
}

CgroupLimits cgroup_limits(const JobSpec& spec) {
  CgroupLimits limits;
  limits.memory_bytes = spec.memory.bytes().value_or(0);  // locally the request is the limit
  limits.cpus = spec.cpu.value().value_or(0);
  limits.pids_max = job_pids_limit();
  return limits;
}

namespace {

std::string gpu_list(const nlohmann::json& pod) {
  std::string out;
  for (const auto& g : pod["gpus"]) out += (out.empty() ? "" : ",") + std::to_string(g.get<int>());
  return out;
}

// Each pod's GPUs, "0,1;2,3;...": the argument of `lanectl __rank` and `lanectl __torchrun`.
std::string rank_gpu_lists(const nlohmann::json& placement) {
  std::string out;
  for (size_t i = 0; i < placement.size(); ++i) out += (i ? ";" : "") + gpu_list(placement[i]);
  return out;
}

}  // namespace

std::optional<std::filesystem::path> relative_within(const std::filesystem::path& path,
                                                     const std::filesystem::path& root) {
  std::filesystem::path rel = path.lexically_normal().lexically_relative(root.lexically_normal());
  std::string s = rel.generic_string();
  if (s.empty() || s == ".." || s.rfind("../", 0) == 0) return std::nullopt;
  return rel;
}

namespace {

// An absolute path under `from` moved under `to` (the host's binary directory as the job sees it).
std::string relocate(const std::string& path, const std::string& from, const std::string& to) {
  if (from.empty() || path.rfind(from + "/", 0) != 0) return path;
  return to + path.substr(from.size());
}

}  // namespace

LaunchPlan make_launch_plan(const JobSpec& spec, const nlohmann::json& placement,
                            const std::vector<std::string>& volume_paths,
                            const std::string& lanectl_home, const std::string& lanectl_exe) {
  namespace fs = std::filesystem;
  LaunchPlan plan;
  plan.bin_dir = fs::path(lanectl_exe).parent_path().string();
  plan.init_exe = relocate(lanectl_exe, plan.bin_dir, kJobBinDir);
  std::vector<std::string> command = job_command(spec);
  for (auto& word : command) word = relocate(word, plan.bin_dir, kJobBinDir);
  // Only what the job spec says, plus what a process needs: never the submitter's environment.
  plan.env.emplace_back("PATH", std::string(kJobBinDir) + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  plan.env.emplace_back("HOME", "/tmp");
  plan.env.emplace_back("TMPDIR", "/tmp");
  plan.env.emplace_back("LANG", "C.UTF-8");
  plan.env.emplace_back("LANECTL_BACKEND", "local");
  plan.env.emplace_back("LANECTL_JOB_NAME", spec.name);
  plan.env.emplace_back("LANECTL_PROJECT", spec.project);
  plan.env.emplace_back("LANECTL_JOB_API", std::string(kJobApiDir) + "/api.sock");
  if (auto image = resolve_local_image(spec.image)) plan.env.insert(plan.env.end(), image->env.begin(), image->env.end());
  for (const auto& e : spec.env) plan.env.emplace_back(e.name, e.value);  // -e wins over image ENV

  if (spec.type == JobType::kMpi) {
    // One rank per worker; each rank gets its own GPU set through `lanectl __rank`, which picks
    // the entry for OMPI_COMM_WORLD_RANK and sets CUDA_VISIBLE_DEVICES before exec'ing the command.
    const std::string rank_gpus = rank_gpu_lists(placement);
    plan.argv = {"mpirun", "-np", std::to_string(spec.processes), "--tag-output", "--oversubscribe",
                 "--bind-to", "none"};
    for (const auto& [name, value] : plan.env) {
      plan.argv.push_back("-x");
      plan.argv.push_back(name);
    }
    plan.argv.insert(plan.argv.end(), {relocate(lanectl_exe, plan.bin_dir, kJobBinDir), "__rank", rank_gpus, "--"});
    plan.argv.insert(plan.argv.end(), command.begin(), command.end());
    plan.stop_command_last = true;
  } else if (spec.type == JobType::kPyTorch) {
    // Master and workers as torchrun starts them on one node: `lanectl __torchrun` forks one
    // process per placement entry inside the job's sandbox (so in its network namespace).
    plan.argv = {relocate(lanectl_exe, plan.bin_dir, kJobBinDir), "__torchrun", rank_gpu_lists(placement), "--"};
    plan.argv.insert(plan.argv.end(), command.begin(), command.end());
  } else {
    plan.argv = command;
    std::string gpus = placement.empty() ? "" : gpu_list(placement[0]);
    plan.env.emplace_back("CUDA_VISIBLE_DEVICES", gpus);
  }

  for (size_t i = 0; i < spec.pvcs.size() && i < volume_paths.size(); ++i)
    plan.mounts.push_back({volume_paths[i], spec.pvcs[i].mount_path, spec.pvcs[i].read_only});
  std::error_code ec;
  const fs::path home = fs::weakly_canonical(fs::absolute(lanectl_home), ec);
  for (const auto& v : spec.volumes) {
    plan.mounts.push_back({v.host_path, v.container_path, v.read_only});
    // A host directory above LANECTL_HOME (e.g. -v $PWD/out:/out with the state in out/home):
    // the state directory inside it is covered with an empty tmpfs.
    fs::path host = fs::weakly_canonical(fs::absolute(v.host_path), ec);
    if (auto rel = relative_within(home, host); rel && *rel != ".")
      plan.masks.push_back((fs::path(v.container_path) / *rel).lexically_normal().string());
  }
  plan.shm_bytes = shm_size_bytes(spec);
  plan.host_network = spec.host_network;
  if (!spec.working_dir.empty()) plan.working_dir = spec.working_dir;
  return plan;
}

}  // namespace lane::submit::local
