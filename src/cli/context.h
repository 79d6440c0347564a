#pragma once
// What every verb shares: the streams, the roles of the configured backend (opened lazily
// through the injected BackendOpener, so `--help` and usage errors never touch state), the
// default project, and the -o output helpers. A verb takes the one role it works with (jobs,
// projects, cluster or storage) and nothing else, and ends the command with a code other than
// its verdict by throwing CommandExit.
//
// Verb registration convention: each verb lives in verb_<name>.cpp and provides
//   void add_<name>_command(CLI::App& app, CliContext& ctx);
// which adds a subcommand whose callback does the work. main.cpp calls them all.
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "submit/core/backend.h"
#include "submit/core/backend_config.h"

namespace lane::cli {

enum class OutputFormat { kTable, kWide, kJson, kYaml };

// "" → kTable; "wide" | "json" | "yaml"; anything else → UsageError naming the value.
OutputFormat parse_output_format(const std::string& value);

// Prints `doc` as JSON (2-space indent) or YAML; kTable/kWide are the caller's business.
void print_document(std::ostream& out, const nlohmann::json& doc, OutputFormat format);

// Where the configuration and the backend come from: main.cpp wires the factory
// (submit/factory/factory.h), in-process tests a fake. `open` reports progress to its stream.
struct BackendOpener {
  std::function<submit::BackendConfig()> load_config;
  std::function<std::unique_ptr<submit::Backend>(const submit::BackendConfig&, std::ostream* progress)> open;
};

// Thrown by a verb whose command ends with a code of its own (attach, exec: the job's); run_cli
// returns the code. Not a std::exception, so no error handler mistakes it for a failure.
class CommandExit {
 public:
  explicit CommandExit(int code) : code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

class CliContext {
 public:
  CliContext(std::istream& in, std::ostream& out, std::ostream& err, BackendOpener opener);
  ~CliContext();

  // The roles of the backend from `lanectl config backend` / LANECTL_BACKEND, opened on first
  // use. It reports progress to `err` and writes nothing else.
  submit::Jobs& jobs() { return backend().jobs(); }
  submit::Projects& projects() { return backend().projects(); }
  submit::Cluster& cluster() { return backend().cluster(); }
  submit::Storage& storage() { return backend().storage(); }
  submit::JobFiles& job_files() { return backend().job_files(); }  // the dashboard's job page
  const submit::BackendConfig& config();

  // The -p value, else `lanectl config project`, else the backend's own (Kubernetes: a context
  // namespace runai-P), else "default". Validated as DNS-1123.
  std::string project(const std::string& flag_value);

  // The command's streams (run_cli's). A job's own stdin and terminal (attach -i, exec, bash)
  // are the process's, which the backend hands to the job directly.
  std::istream& in;
  std::ostream& out;
  std::ostream& err;
  std::vector<std::string> argv;  // the full command line (describe: COMMAND LINE)

  // Split off before CLI11 parses (see split_command_line in verbs.h, called by run_cli): the words after the
  // first `--`, and the two spellings of --command (flag form vs. the older `--command CMD`).
  std::vector<std::string> after_dash;
  bool has_dash = false;
  bool command_flag = false;            // `--command -- CMD ARGS...`
  std::optional<std::string> old_command;  // `--command CMD` / `--command=CMD`
  std::string kube_context, kubeconfig;    // global --context / --kubeconfig (Kubernetes backend)

 private:
  submit::Backend& backend();

  BackendOpener opener_;
  std::optional<submit::BackendConfig> config_;
  std::unique_ptr<submit::Backend> backend_;
};

// The project every job falls back to; it exists implicitly (quota 0, over quota allowed).
inline constexpr const char* kDefaultProject = "default";

}  // namespace lane::cli
