// POST /api/jobs/P/NAME/resubmit: a new job from a job's stored spec with some fields changed
// (Api::post in api.cpp routes the actions; the server guards them, server.cpp).
#include "common/error.h"
#include "dashboard/api.h"
#include "submit/core/errors.h"

namespace lane::dashboard {

namespace {

constexpr int kNameAttempts = 20;

// The body's changes; UsageError naming the field for a wrong type or an unknown field.
SpecChanges parse_changes(const std::string& body) {
  auto doc = nlohmann::json::parse(body.empty() ? "{}" : body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    throw UsageError("resubmit: the body must be a JSON object {\"name\", \"image\", \"env\", \"args\", \"gpu\"}");
  for (const auto& [key, value] : doc.items())
    if (key != "name" && key != "image" && key != "env" && key != "args" && key != "gpu")
      throw UsageError("resubmit: unknown field '" + key + "'; the fields are name, image, env, args and gpu");
  auto text = [&doc](const char* key) -> std::optional<std::string> {
    if (!doc.contains(key) || doc[key].is_null()) return std::nullopt;
    if (!doc[key].is_string()) throw UsageError(std::string("resubmit: '") + key + "' must be a string");
    return doc[key].get<std::string>();
  };
  auto words = [&doc](const char* key) -> std::optional<std::vector<std::string>> {
    if (!doc.contains(key) || doc[key].is_null()) return std::nullopt;
    const std::string wrong = std::string("resubmit: '") + key + "' must be an array of strings";
    if (!doc[key].is_array()) throw UsageError(wrong);
    std::vector<std::string> out;
    for (const auto& w : doc[key]) {
      if (!w.is_string()) throw UsageError(wrong);
      out.push_back(w.get<std::string>());
    }
    return out;
  };
  SpecChanges c;
  c.name = text("name").value_or("");
  c.image = text("image");
  c.gpu = text("gpu");
  c.env = words("env");
  c.args = words("args");
  return c;
}

}  // namespace

Reply Api::resubmit(const std::string& project, const std::string& name, const std::string& body) {
  if (!roles_.edit_spec) return error_reply(501, "resubmit is not available in this server");
  SpecChanges changes = parse_changes(body);
  std::lock_guard<std::mutex> lock(backend_mutex_);
  auto job = roles_.jobs.describe_job(name, project);
  if (!job) return no_job_reply(project, name);
  submit::JobSpec spec = roles_.edit_spec(job->spec, changes);
  if (!spec.name.empty()) {
    roles_.jobs.submit(spec);
  } else {
    // As submit's automatic names: the next free NAME-N, again when a concurrent submit took it.
    for (int attempt = 0;; ++attempt) {
      spec.name = roles_.jobs.next_job_name(project, name);
      try {
        roles_.jobs.submit(spec);
        break;
      } catch (const submit::AlreadyExists&) {
        if (attempt + 1 >= kNameAttempts) throw;
      }
    }
  }
  Reply reply = json_reply({{"message", "The job '" + spec.name + "' has been submitted successfully"},
                            {"project", project},
                            {"name", spec.name}});
  reply.status = 201;
  return reply;
}

}  // namespace lane::dashboard
