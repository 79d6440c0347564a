// The JobFiles role on Kubernetes: a job's files read by exec in its chief pod while it runs
// (kube_jobs.h). Each read is a few short commands of coreutils/findutils in the container:
// realpath (the path must come back unchanged: no symbolic link on it), stat, head/tail -c,
// find -printf for a directory.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <sstream>

#include <fmt/format.h>

#include "common/beneath.h"
#include "common/error.h"
#include "submit/kube/job_state.h"
#include "submit/kube/kube_jobs.h"

namespace lane::submit::kube {
namespace {

namespace res = lane::kube::resources;

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

}  // namespace

int KubeJobs::exec_capture(const std::string& ns, const std::string& pod, const std::vector<std::string>& argv,
                           size_t max_bytes, std::string& out) {
  lane::kube::PodExecRequest request;
  request.ns = ns;
  request.pod = pod;
  request.command = argv;
  lane::kube::PodExecIo io;
  io.in_fd = -1;
  io.out = [&out, max_bytes](std::string_view chunk) {
    if (out.size() < max_bytes) out.append(chunk.substr(0, max_bytes - out.size()));
  };
  io.err = [](std::string_view) {};
  return ctx_.client->exec(request, io);
}

std::optional<std::string> KubeJobs::pod_for_path(const std::string& name, const std::string& project,
                                                  const std::string& path, std::string& why) {
  if (!path.empty() && !is_clean_absolute_path(path)) {
    why = "'" + path + "' is not a clean absolute path (no '.', '..' or empty parts)";
    return std::nullopt;
  }
  const std::string ns = ctx_.ns_of(project);
  auto w = find_workload(ns, name);
  if (!w) {
    why = "the job does not exist";
    return std::nullopt;
  }
  std::string pod;
  try {
    pod = chief_pod(ns, *w);
  } catch (const lane::Error&) {
    why = "the job has no pod: its files are read in its pod while it runs";
    return std::nullopt;
  }
  auto p = ctx_.client->try_get(res::kPod, ns, pod);
  const std::string phase = p ? text(object_field(*p, "status"), "phase") : "gone";
  if (phase != "Running") {
    why = fmt::format("pod {} is {}: a job's files are read in its pod while it runs (files on a claim can be "
                      "seen from another job that mounts it)",
                      pod, phase.empty() ? "not running" : phase);
    return std::nullopt;
  }
  return pod;
}

std::optional<std::string> KubeJobs::output_dir(const std::string& name, const std::string& project,
                                                std::string& why) {
  auto job = describe_job(name, project);
  if (!job) {
    why = "the job does not exist";
    return std::nullopt;
  }
  if (auto v = env_value(job->spec, "OUTPUT_DIR"); v && !v->empty()) return v;
  // The image's default is in the container's environment only.
  auto pod = pod_for_path(name, project, "", why);
  if (!pod) return std::nullopt;
  std::string out;
  try {
    if (exec_capture(ctx_.ns_of(project), *pod, {"printenv", "OUTPUT_DIR"}, 4096, out) == 0) out = trimmed(out);
    else out.clear();
  } catch (const lane::Error& e) {
    why = fmt::format("asking pod {} for OUTPUT_DIR failed: {}", *pod, e.what());
    return std::nullopt;
  }
  if (out.empty()) {
    why = "the job sets no OUTPUT_DIR (-e OUTPUT_DIR=...) and its container's environment has none";
    return std::nullopt;
  }
  return out;
}

namespace {

// realpath -e must give `path` back: it exists and no component is a symbolic link.
std::string check_no_link(const std::function<int(const std::vector<std::string>&, std::string&)>& run,
                          const std::string& path) {
  std::string real;
  if (run({"realpath", "-e", "--", path}, real) != 0) return path + " does not exist (yet)";
  if (trimmed(real) != path) return path + " is, or goes through, a symbolic link; links are not followed";
  return "";
}

}  // namespace

JobFileRead KubeJobs::read_file(const std::string& name, const std::string& project, const std::string& path,
                                uint64_t max_bytes, bool tail) {
  JobFileRead r;
  auto pod = pod_for_path(name, project, path, r.reason);
  if (!pod) return r;
  const std::string ns = ctx_.ns_of(project);
  auto run = [&](const std::vector<std::string>& argv, std::string& out) {
    return exec_capture(ns, *pod, argv, 4096, out);
  };
  try {
    if (r.reason = check_no_link(run, path); !r.reason.empty()) return r;
    std::string st;
    if (run({"stat", "-c", "%F|%s|%Y", "--", path}, st) != 0) {
      r.reason = path + " cannot be read in pod " + *pod;
      return r;
    }
    std::istringstream in(trimmed(st));
    std::string kind, size, mtime;
    std::getline(in, kind, '|');
    std::getline(in, size, '|');
    std::getline(in, mtime, '|');
    if (kind != "regular file" && kind != "regular empty file") {
      r.reason = path + " is not a regular file";
      return r;
    }
    r.size = std::stoull(size);
    r.modified_unix_ms = std::stoll(mtime) * 1000;
    const uint64_t want = std::min(r.size, max_bytes);
    if (exec_capture(ns, *pod, {tail ? "tail" : "head", "-c", std::to_string(want), "--", path}, want, r.data) != 0) {
      r.reason = path + " cannot be read in pod " + *pod;
      r.data.clear();
      return r;
    }
  } catch (const std::exception& e) {  // exec refused (no such program in the image), connection lost
    r.reason = fmt::format("reading {} in pod {} failed: {}", path, *pod, e.what());
    r.data.clear();
    return r;
  }
  r.ok = true;
  return r;
}

JobDirRead KubeJobs::list_dir(const std::string& name, const std::string& project, const std::string& path,
                              size_t max_entries) {
  JobDirRead r;
  auto pod = pod_for_path(name, project, path, r.reason);
  if (!pod) return r;
  const std::string ns = ctx_.ns_of(project);
  auto run = [&](const std::vector<std::string>& argv, std::string& out) {
    return exec_capture(ns, *pod, argv, 4096, out);
  };
  constexpr size_t kMaxListing = 4 << 20;
  std::string listing;
  try {
    if (r.reason = check_no_link(run, path); !r.reason.empty()) return r;
    if (exec_capture(ns, *pod, {"find", path, "-mindepth", "1", "-maxdepth", "1", "-type", "f", "-printf", "%T@ %s %f\\n"},
                     kMaxListing, listing) != 0) {
      r.reason = path + " is not a directory that can be read in pod " + *pod;
      return r;
    }
  } catch (const std::exception& e) {
    r.reason = fmt::format("listing {} in pod {} failed: {}", path, *pod, e.what());
    return r;
  }
  std::istringstream in(listing);
  std::string line;
  while (std::getline(in, line)) {
    const size_t a = line.find(' '), b = a == std::string::npos ? a : line.find(' ', a + 1);
    if (b == std::string::npos || b + 1 >= line.size()) continue;
    try {
      JobFileEntry e;
      e.modified_unix_ms = static_cast<int64_t>(std::stod(line.substr(0, a)) * 1000);
      e.size = std::stoull(line.substr(a + 1, b - a - 1));
      e.name = line.substr(b + 1);
      r.entries.push_back(std::move(e));
    } catch (const std::exception&) {  // a torn last line of a capped listing
    }
  }
  std::sort(r.entries.begin(), r.entries.end(), [](const JobFileEntry& a, const JobFileEntry& b) {
    return a.modified_unix_ms != b.modified_unix_ms ? a.modified_unix_ms > b.modified_unix_ms : a.name < b.name;
  });
  if (r.entries.size() > max_entries || listing.size() >= kMaxListing) {
    r.truncated = true;
    if (r.entries.size() > max_entries) r.entries.resize(max_entries);
  }
  r.ok = true;
  return r;
}

namespace {

// A tar stream (ustar) of one regular file `name` (mode 0644) holding `data`, as `tar xf -` reads it.
std::string tar_of_one_file(const std::string& name, const std::string& data) {
  std::string header(512, '\0');
  auto field = [&](size_t at, const std::string& value) { header.replace(at, value.size(), value); };
  auto octal = [](uint64_t v, size_t width) { return fmt::format("{:0{}o}", v, width - 1); };
  field(0, name);
  field(100, octal(0644, 8));
  field(108, octal(0, 8));
  field(116, octal(0, 8));
  field(124, octal(data.size(), 12));
  field(136, octal(static_cast<uint64_t>(::time(nullptr)), 12));
  field(148, std::string(8, ' '));
  header[156] = '0';
  field(257, std::string("ustar\0", 6));
  field(263, "00");
  unsigned sum = 0;
  for (unsigned char c : header) sum += c;
  field(148, fmt::format("{:06o}", sum) + std::string("\0 ", 2));
  std::string out = header + data;
  out.append((512 - data.size() % 512) % 512, '\0');
  out.append(1024, '\0');
  return out;
}

// `bytes` in an anonymous in-memory file, at offset 0: the stdin of an exec.
UniqueFd memory_file(const std::string& bytes) {
  UniqueFd fd(::memfd_create("lanectl-cp", MFD_CLOEXEC));
  if (!fd.ok()) throw lane::Error(std::string("memfd_create: ") + std::strerror(errno));
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw lane::Error(std::string("writing the copy's tar stream: ") + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  ::lseek(fd.get(), 0, SEEK_SET);
  return fd;
}

}  // namespace

JobFileWrite KubeJobs::write_file(const std::string& name, const std::string& project, const std::string& path,
                                  const std::string& data) {
  JobFileWrite w;
  auto pod = pod_for_path(name, project, path, w.reason);
  if (!pod) return w;
  const std::string ns = ctx_.ns_of(project);
  auto job = describe_job(name, project);
  if (job)  // claims the job made are named at submit (pvc-<job>-<i>); the spec leaves them unnamed
    for (size_t i = 0; i < job->spec.pvcs.size(); ++i) job->spec.pvcs[i].claim = claim_name(job->spec, i);
  const auto mount = job ? locate_in_mounts(job->spec, path) : std::nullopt;
  w.reason = !mount ? path + " is on none of the job's volumes (--pvc, -v)" : write_refusal(path, *mount);
  if (!w.reason.empty()) return w;
  const std::string dir = path.substr(0, path.rfind('/')), leaf = path.substr(path.rfind('/') + 1);
  const std::string tmp = "." + leaf.substr(0, 80) + ".lanectl-cp";
  auto run = [&](const std::vector<std::string>& argv, std::string& out) { return exec_capture(ns, *pod, argv, 4096, out); };
  try {
    if (w.reason = check_no_link(run, dir); !w.reason.empty()) return w;
    // As kubectl cp: a tar stream on stdin to tar in the container, then a rename over the name
    // (mv -T: a directory there is refused, a link there is replaced, not followed).
    UniqueFd in = memory_file(tar_of_one_file(tmp, data));
    lane::kube::PodExecRequest request{ns, *pod, "", {"tar", "xmf", "-", "-C", dir}, true};
    lane::kube::PodExecIo io{in.get(), [](std::string_view) {}, [](std::string_view) {}};
    std::string out;
    if (ctx_.client->exec(request, io) != 0 || run({"mv", "-f", "-T", "--", dir + "/" + tmp, path}, out) != 0) {
      w.reason = path + " cannot be written in pod " + *pod;
      return w;
    }
  } catch (const std::exception& e) {
    w.reason = fmt::format("writing {} in pod {} failed: {}", path, *pod, e.what());
    return w;
  }
  w.ok = true;
  return w;
}

}  // namespace lane::submit::kube
