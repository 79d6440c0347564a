// `lanectl list -w` on Kubernetes: one list of each workload resource and of pods, then one watch
// of each from the list's resourceVersion, kept as summaries (an informer's cache) and joined
// into jobs whenever an event arrives.
#include <algorithm>
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include "submit/kube/job_state.h"
#include "submit/kube/kube_jobs.h"
#include "submit/kube/list_page_parse.h"

namespace lane::submit::kube {
namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;
namespace res = lane::kube::resources;

// One watched resource: its objects by "<namespace>/<name>" and the version its watch resumes from.
struct Watched {
  Watched(const lane::kube::Resource* r, std::string sel) : resource(r), selector(std::move(sel)) {}
  const lane::kube::Resource* resource;
  std::string selector;
  std::map<std::string, WorkloadSummary> workloads;  // Jobs, MPIJobs, PyTorchJobs
  std::map<std::string, PodSummary> pods;            // only pods of a workload
  std::string resource_version;
  bool is_pods() const { return resource == &res::kPod; }
};

struct WatchState {
  std::mutex mu;
  std::condition_variable cv;
  bool changed = false, stop = false;
  std::exception_ptr error;
};

template <typename Summary>
void keep(std::map<std::string, Summary>& into, Summary s) {
  std::string key = s.ns + "/" + s.name;
  into[std::move(key)] = std::move(s);
}

// Only pods of a workload are kept (those jobs_from_summaries can place).
void keep_pod(std::map<std::string, PodSummary>& into, PodSummary p) {
  if (!p.job_name.empty() || !p.mpi_job_name.empty()) keep(into, std::move(p));
}

// An ADDED, MODIFIED or DELETED event applied to the cache (caller holds the lock).
void apply(Watched& w, const std::string& type, const Json& obj) {
  if (w.is_pods()) {
    PodSummary p = summarize_pod(obj);
    if (type == "DELETED") w.pods.erase(p.ns + "/" + p.name);
    else keep_pod(w.pods, std::move(p));
    return;
  }
  WorkloadSummary s = summarize_workload(obj);
  if (s.kind.empty()) s.kind = w.resource->kind;
  if (type == "DELETED") w.workloads.erase(s.ns + "/" + s.name);
  else keep(w.workloads, std::move(s));
}

// Lists `w` afresh (at the start, and after 410 Gone); the new contents replace the old under `mu`.
void relist(lane::kube::KubeClient& client, const std::string& ns, Watched& w, std::mutex& mu) {
  lane::kube::ListOptions o;
  o.label_selector = w.selector;
  std::vector<WorkloadSummary> workloads;
  std::vector<PodSummary> pods;
  const std::string rv = client.list_pages(
      *w.resource, ns, o,
      [&](const std::string& body) {
        return w.is_pods() ? parse_pod_page(body, pods) : parse_workload_page(body, w.resource->kind, workloads);
      },
      [&] { workloads.clear(), pods.clear(); });
  std::lock_guard lock(mu);
  w.workloads.clear();
  w.pods.clear();
  for (auto& s : workloads) keep(w.workloads, std::move(s));
  for (auto& p : pods) keep_pod(w.pods, std::move(p));
  w.resource_version = rv;
}

// One thread's loop: watch, resume after a timeout or a dropped stream, relist after 410 Gone.
// Each watch asks the server to end it by `until` (or after a minute, to notice `stop`).
void watch_loop(lane::kube::KubeClient& client, const std::string& ns, Watched& w, WatchState& st,
                std::optional<Clock::time_point> until) {
  try {
    lane::kube::ListOptions o;
    o.label_selector = w.selector;
    while (!until || Clock::now() < *until) {
      {
        std::lock_guard lock(st.mu);
        if (st.stop) return;
      }
      const auto left = until ? std::chrono::ceil<std::chrono::seconds>(*until - Clock::now()).count() : 60;
      const auto end = client.watch(*w.resource, ns, o, w.resource_version, static_cast<int>(std::max<int64_t>(left, 1)),
                                    [&](const std::string& type, const Json& obj) {
                                      std::lock_guard lock(st.mu);
                                      apply(w, type, obj);
                                      st.changed = true;
                                      st.cv.notify_all();
                                      return !st.stop;
                                    });
      if (end == lane::kube::WatchEnd::kGone) {
        relist(client, ns, w, st.mu);
        std::lock_guard lock(st.mu);
        st.changed = true;
        st.cv.notify_all();
      }
    }
  } catch (...) {
    std::lock_guard lock(st.mu);
    st.error = std::current_exception();
    st.stop = true;
    st.cv.notify_all();
  }
}

}  // namespace

void KubeJobs::watch_jobs(const std::optional<std::string>& project, const LabelSelector& selector,
                          std::optional<Clock::time_point> until, const JobsObserver& on_jobs) {
  const std::string ns = project ? ctx_.ns_of(*project) : "";
  const auto project_ns = project ? std::set<std::string>{} : project_namespaces();
  std::vector<Watched> watched;
  for (const auto* r : {&res::kMpiJob, &res::kPyTorchJob, &res::kJob}) watched.emplace_back(r, selector.text());
  watched.emplace_back(&res::kPod, "");
  WatchState st;
  for (auto it = watched.begin(); it != watched.end();) {
    try {
      relist(*ctx_.client, ns, *it, st.mu);
      ++it;
    } catch (const lane::kube::ApiError& e) {
      if (it->resource != &res::kPyTorchJob || !e.not_found()) throw;
      it = watched.erase(it);  // no training operator CRD: no PyTorchJobs to watch
    }
  }
  std::map<std::string, std::vector<std::string>> urls;  // found once, by the first listing
  auto current = [&](bool first) {
    std::vector<const WorkloadSummary*> workloads;
    std::vector<const PodSummary*> pods;
    for (const auto& w : watched) {
      for (const auto& [key, s] : w.workloads) workloads.push_back(&s);
      for (const auto& [key, p] : w.pods) pods.push_back(&p);
    }
    auto jobs = jobs_from_summaries(ctx_.settings, workloads, pods);
    finish_list(project, project_ns, jobs, first);
    for (auto& j : jobs) {
      auto& known = urls[j.spec.project + "/" + j.spec.name];
      if (first) known = j.service_urls;
      else j.service_urls = known;
    }
    return jobs;
  };
  if (!on_jobs(current(true))) return;
  std::vector<std::thread> threads;
  for (auto& w : watched) threads.emplace_back([&, wp = &w] { watch_loop(*ctx_.client, ns, *wp, st, until); });
  std::unique_lock lock(st.mu);
  while (!st.stop) {
    auto ready = [&] { return st.changed || st.stop; };
    if (until ? !st.cv.wait_until(lock, *until, ready) : (st.cv.wait(lock, ready), false)) break;
    if (st.stop) break;
    st.changed = false;
    auto jobs = current(false);
    lock.unlock();
    const bool more = on_jobs(std::move(jobs));
    lock.lock();
    if (!more) break;
  }
  st.stop = true;
  lock.unlock();
  for (auto& t : threads) t.join();
  if (st.error) std::rethrow_exception(st.error);
}

}  // namespace lane::submit::kube
