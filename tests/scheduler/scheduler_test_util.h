#pragma once
// Builders for cluster states and helpers that apply / check a Decision, shared by the
// scheduler's scenario tests and its randomized property tests.
#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "submit/scheduler/scheduler.h"

namespace lane::submit::sched::test {

inline Node node(std::string name, int gpus) { return Node{std::move(name), gpus}; }

inline Project project(std::string name, double quota, bool over_quota = true) {
  return Project{std::move(name), quota, over_quota};
}

inline Workload job(const std::string& project, const std::string& name, double gpu,
                    int64_t order, JobType type = JobType::kTrain, int pods = 1) {
  Workload w;
  w.id = project + "/" + name;
  w.project = project;
  w.type = type;
  w.gpu_per_pod = gpu;
  w.pods = pods;
  w.queue_order = order;
  return w;
}

inline Workload running(Workload w, std::vector<PodPlacement> placement) {
  w.running = true;
  w.placement = std::move(placement);
  return w;
}

inline PodPlacement on(const std::string& node, std::vector<int> gpus, double share = 1.0) {
  return PodPlacement{node, std::move(gpus), share};
}

inline const Workload* find(const ClusterState& s, const std::string& id) {
  for (const Workload& w : s.workloads)
    if (w.id == id) return &w;
  return nullptr;
}

inline bool started(const Decision& d, const std::string& id) {
  return std::any_of(d.start.begin(), d.start.end(), [&](auto& s) { return s.id == id; });
}
inline const StartedJob* start_of(const Decision& d, const std::string& id) {
  for (const StartedJob& s : d.start)
    if (s.id == id) return &s;
  return nullptr;
}
inline bool preempted(const Decision& d, const std::string& id) {
  return std::any_of(d.preempt.begin(), d.preempt.end(), [&](auto& p) { return p.id == id; });
}
inline const ProjectReport& report(const Decision& d, const std::string& name) {
  for (const ProjectReport& r : d.projects)
    if (r.name == name) return r;
  throw std::runtime_error("no report for project " + name);
}

// The state after the backend carries out `d`: started jobs run, preempted jobs wait again.
inline ClusterState apply(ClusterState s, const Decision& d) {
  for (Workload& w : s.workloads) {
    if (const StartedJob* st = start_of(d, w.id)) {
      w.running = true;
      w.placement = st->placement;
    }
    if (preempted(d, w.id)) {
      w.running = false;
      w.placement.clear();
    }
  }
  return s;
}

// A canonical text form of a Decision, to compare two decisions exactly.
inline std::string dump(const Decision& d) {
  std::ostringstream out;
  for (const StartedJob& s : d.start) {
    out << "start " << s.id;
    for (const PodPlacement& p : s.placement) {
      out << " [" << p.node << ":";
      for (int g : p.gpu_indices) out << g << ",";
      out << "x" << p.share_per_gpu << "]";
    }
    out << "\n";
  }
  for (const PreemptedJob& p : d.preempt) out << "preempt " << p.id << ": " << p.reason << "\n";
  for (const auto& [id, why] : d.pending_reason) out << "pending " << id << ": " << why << "\n";
  for (const ProjectReport& r : d.projects) {
    out << "project " << r.name << " q=" << r.quota << " fs=" << r.fair_share << " a=" << r.allocated
        << " r=" << r.requested << " run=" << r.running << " pend=" << r.pending << "\n";
    for (const std::string& line : r.explanation) out << "  " << line << "\n";
  }
  return out.str();
}

}  // namespace lane::submit::sched::test
