#pragma once
// The one table of JobSpec's fields (docs/architecture.md, "Adding a submit flag"). Each row
// names the submit flag that sets the field, its key in the stored JSON, where `describe job`
// shows it, where the Kubernetes mapping writes it (or why it writes nothing), and, for a field
// the local backend records without honouring, the note submit prints. spec_to_json and
// spec_from_json (workload_json.h), describe's flag lines and the local backend's notes are
// loops over it; tests/submit/test_spec_fields.cpp and its kube and cli siblings check every row.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "submit/core/workload.h"

namespace lane::submit {

enum class DescribePlace {
  kHeader,    // a fixed line of the Run:AI layout (NAME:, IMAGE:, ...), written by describe itself
  kFlags,     // among the flags that were given, in table order, when the field is set
  kJsonOnly,  // only in `describe -o json|yaml` (the spec)
};

struct DescribeLine {
  DescribePlace place = DescribePlace::kJsonOnly;
  std::string_view label;  // "HOST IPC:"; fields that share a line share its label
  std::function<std::string(const JobSpec&)> value;  // kFlags: what the line shows
};

struct KubeMapping {
  bool mapped = true;
  std::string_view where;  // mapped: where kube/mapping.cpp writes the field; else why it does not
};

// "<subject> has no effect on the local backend (<why>); recorded for Kubernetes".
struct LocalNote {
  std::string_view subject;  // "--host-ipc"; fields that share a note share its subject
  std::string_view why;      // "" when the note gives no reason
  std::function<bool(const JobSpec&)> applies;  // empty: whenever the field is set
  bool with_value = false;   // the subject names the value too ("--image-pull-policy Always")
};

struct SpecField {
  std::string_view flag;      // "--host-ipc"; "" for what submit records itself (user, cliArgv)
  std::string_view json_key;  // "hostIPC" (the first of the keys of a field stored under two)
  std::function<bool(const JobSpec&)> is_set;  // differs from a default JobSpec
  std::function<void(const JobSpec&, nlohmann::json&)> to_json;
  std::function<void(const nlohmann::json&, JobSpec&)> from_json;  // a missing or null key keeps the default
  DescribeLine describe;
  KubeMapping kube;
  std::optional<LocalNote> local;  // set when the local backend records the field without honouring it
};

const std::vector<SpecField>& spec_fields();

// describe's lines for the flags that were given (DescribePlace::kFlags): label and value, in
// table order, one line per label.
std::vector<std::pair<std::string, std::string>> describe_flag_lines(const JobSpec& spec);

// The flags of `spec` the local backend does not honour: subject and reason, one per subject.
std::vector<std::pair<std::string, std::string>> unhonoured_locally(const JobSpec& spec);

}  // namespace lane::submit
