#include "dashboard/gpu_sampler.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace lane::dashboard {

namespace {

constexpr const char* kQuery = "--query-gpu=index,uuid,utilization.gpu,memory.used,memory.total";
constexpr std::chrono::milliseconds kToolTimeout{5000};
constexpr size_t kMaxOutput = 1 << 20;

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// A number, nullopt for "[N/A]"-style fields; false when the field is neither.
bool parse_value(const std::string& field, std::optional<double>& out) {
  if (!field.empty() && field.front() == '[' && field.back() == ']') {
    out.reset();
    return true;
  }
  if (field.empty()) return false;
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(field.c_str(), &end);
  if (errno != 0 || end != field.c_str() + field.size() || !std::isfinite(v) || v < 0) return false;
  out = v;
  return true;
}

bool parse_index(const std::string& field, int& out) {
  if (field.empty() || field.size() > 4 || field.find_first_not_of("0123456789") != std::string::npos) return false;
  out = std::stoi(field);
  return true;
}

nlohmann::json optional_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

// Runs `argv` (argv[0] a path) with stdout captured, stderr discarded; kills it after `timeout`.
// Returns its output, or an error text in `error`.
std::string run_tool(const std::vector<std::string>& argv, std::chrono::milliseconds timeout, std::string& error) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    error = "pipe failed";
    return "";
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    error = "fork failed";
    return "";
  }
  if (pid == 0) {  // only async-signal-safe calls from here
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(fds[1], 1);
    dup2(null, 2);
    execv(args[0], args.data());
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  bool timed_out = false;
  char buf[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      timed_out = r == 0;
      break;
    }
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (out.size() < kMaxOutput) out.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out)
    error = "nvidia-smi did not answer within " + std::to_string(timeout.count() / 1000) + " s";
  else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    error = "nvidia-smi failed (exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)) + ")";
  return out;
}

}  // namespace

GpuReadings parse_nvidia_smi_csv(const std::string& text) {
  GpuReadings out;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (trim(line).empty()) continue;
    std::vector<std::string> fields;
    std::string field;
    std::istringstream cells(line);
    while (std::getline(cells, field, ',')) fields.push_back(trim(field));
    if (!line.empty() && line.back() == ',') fields.push_back("");
    auto bad = [&](const std::string& why) { out.errors.push_back("line " + std::to_string(number) + ": " + why); };
    if (fields.size() != 5) {
      bad("expected 5 comma-separated fields (index, uuid, utilization.gpu, memory.used, memory.total), got " +
          std::to_string(fields.size()));
      continue;
    }
    GpuReading r;
    if (!parse_index(fields[0], r.index)) {
      bad("index '" + fields[0] + "' is not a GPU index");
      continue;
    }
    r.uuid = fields[1];
    if (r.uuid.empty()) {
      bad("empty uuid");
      continue;
    }
    if (!parse_value(fields[2], r.utilization_percent) || (r.utilization_percent && *r.utilization_percent > 100)) {
      bad("utilization.gpu '" + fields[2] + "' is not a percentage");
      continue;
    }
    if (!parse_value(fields[3], r.memory_used_mib) || !parse_value(fields[4], r.memory_total_mib)) {
      bad("memory '" + fields[3] + "' / '" + fields[4] + "' is not a number of MiB");
      continue;
    }
    out.gpus.push_back(std::move(r));
  }
  return out;
}

void GpuHistory::add(int64_t unix_ms, const std::vector<GpuReading>& readings) {
  for (const auto& r : readings) {
    auto& s = series_[r.index];
    s.uuid = r.uuid;
    s.samples.push_back({unix_ms, r.utilization_percent, r.memory_used_mib, r.memory_total_mib});
    while (s.samples.size() > capacity_) s.samples.pop_front();
  }
}

nlohmann::json GpuHistory::to_json() const {
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& [index, s] : series_) {
    nlohmann::json samples = nlohmann::json::array();
    for (const auto& x : s.samples)
      samples.push_back({x.unix_ms, optional_json(x.util), optional_json(x.used), optional_json(x.total)});
    gpus.push_back({{"index", index}, {"uuid", s.uuid}, {"samples", samples}});
  }
  return {{"gpus", gpus}};
}

std::optional<std::filesystem::path> find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path || name.empty() || name.find('/') != std::string::npos) return std::nullopt;
  std::istringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;  // an empty entry (the working directory) is not searched
    std::filesystem::path candidate = std::filesystem::path(dir) / name;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec) && access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

GpuSampler::GpuSampler(std::string reason) : unavailable_reason_(std::move(reason)), history_(0) {}

std::unique_ptr<GpuSampler> GpuSampler::unavailable(std::string reason) {
  return std::unique_ptr<GpuSampler>(new GpuSampler(std::move(reason)));
}

GpuSampler::GpuSampler(std::filesystem::path nvidia_smi, std::chrono::milliseconds interval, size_t capacity)
    : tool_(std::move(nvidia_smi)), interval_(interval), history_(capacity) {
  thread_ = std::thread([this] { loop(); });
}

GpuSampler::~GpuSampler() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void GpuSampler::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    sample_once();
    lock.lock();
    wake_.wait_for(lock, interval_, [this] { return stopping_; });
  }
}

void GpuSampler::sample_once() {
  std::string error;
  std::string out = run_tool({tool_.string(), kQuery, "--format=csv,noheader,nounits"}, kToolTimeout, error);
  auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch()).count();
  GpuReadings readings;
  if (error.empty()) {
    readings = parse_nvidia_smi_csv(out);
    if (!readings.errors.empty()) error = "nvidia-smi output: " + readings.errors.front();
    else if (readings.gpus.empty()) error = "nvidia-smi reported no GPUs";
  }
  std::lock_guard<std::mutex> lock(mutex_);
  history_.add(now, readings.gpus);
  last_error_ = error;
}

nlohmann::json GpuSampler::document() const {
  if (!unavailable_reason_.empty())
    return {{"available", false}, {"reason", unavailable_reason_}, {"gpus", nlohmann::json::array()}};
  std::lock_guard<std::mutex> lock(mutex_);
  nlohmann::json doc = history_.to_json();
  doc["available"] = true;
  doc["source"] = "nvidia-smi";
  doc["intervalSeconds"] = static_cast<double>(interval_.count()) / 1000.0;
  doc["lastError"] = last_error_;
  return doc;
}

std::unique_ptr<GpuSampler> make_gpu_sampler(const std::string& backend_kind, std::chrono::milliseconds interval) {
  if (backend_kind != "local")
    return GpuSampler::unavailable("utilization is sampled only on the local backend, whose GPUs are this machine's; "
                                   "on the " + backend_kind + " backend the GPUs are the cluster nodes', which this machine cannot query");
  auto tool = find_on_path("nvidia-smi");
  if (!tool) return GpuSampler::unavailable("nvidia-smi is not on PATH: no NVIDIA driver on this machine, so no utilization to show");
  constexpr size_t kSamplesPerGpu = 720;  // an hour at 5 s
  return std::make_unique<GpuSampler>(*tool, interval, kSamplesPerGpu);
}

}  // namespace lane::dashboard
