// lanectl dashboard [--listen HOST:PORT] [--token T] [--read-only | --allow-actions]: serves the
// web UI and its JSON API (lane_dashboard) over the configured backend's roles until SIGINT/SIGTERM;
// read-only unless --allow-actions (which needs a token), whose resubmit reads its changed fields
// with submit's own parsers and rules (edit_spec below).
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <thread>

#include "cli/context.h"
#include "cli/spec_parsing.h"
#include "cli/verbs.h"
#include "common/error.h"
#include "dashboard/gpu_sampler.h"
#include "dashboard/listen_address.h"
#include "dashboard/server.h"
#include "dashboard/token.h"
#include "submit/core/validate.h"

namespace lane::cli {

namespace {

struct DashboardOptions {
  std::string listen = "127.0.0.1:8080";
  std::string token;
  int gpu_interval = 5;  // seconds between nvidia-smi samples
  bool read_only = false;      // the default, said explicitly
  bool allow_actions = false;  // suspend, resume, delete, resubmit from the UI (needs a token)
};

int g_stop_pipe[2] = {-1, -1};

extern "C" void on_stop_signal(int) {
  char c = 1;
  ssize_t n = write(g_stop_pipe[1], &c, 1);
  (void)n;
}

// SIGINT/SIGTERM (and the end of run) wake a thread that stops the server; SIGPIPE is ignored
// while serving (a browser closing an event stream).
class StopOnSignal {
 public:
  explicit StopOnSignal(dashboard::Server& server) {
    if (pipe2(g_stop_pipe, O_CLOEXEC) != 0) throw Error("dashboard: pipe2 failed");
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
    struct sigaction ign {};
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &old_pipe_);
    watcher_ = std::thread([&server] {
      char c;
      while (read(g_stop_pipe[0], &c, 1) < 0 && errno == EINTR) {
      }
      server.stop();
    });
  }
  ~StopOnSignal() {
    on_stop_signal(0);
    watcher_.join();
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
    sigaction(SIGPIPE, &old_pipe_, nullptr);
    close(g_stop_pipe[0]);
    close(g_stop_pipe[1]);
    g_stop_pipe[0] = g_stop_pipe[1] = -1;
  }

 private:
  struct sigaction old_int_ {}, old_term_ {}, old_pipe_ {};
  std::thread watcher_;
};

// The environment a resubmit asks for: `-e NAME=VALUE` each, parsed as submit parses -e. A value
// shown masked (the page only ever sees secrets as ****) keeps the stored job's value.
std::vector<submit::EnvVar> edited_env(const submit::JobSpec& stored, const std::vector<std::string>& entries) {
  const auto shown = submit::masked_for_display(stored).env;
  std::vector<submit::EnvVar> env;
  for (const auto& entry : entries) {
    submit::EnvVar e = parse_env(entry);
    for (size_t i = 0; i < shown.size() && i < stored.env.size(); ++i)
      if (shown[i].name == e.name && shown[i].value == e.value && stored.env[i].value != e.value) e.value = stored.env[i].value;
    env.push_back(e);
  }
  return env;
}

// The dashboard's resubmit: the stored spec with the changed fields read as `lanectl submit` reads
// -i, -g, -e and the words after --, checked by the same rules (submit::validate_*).
submit::JobSpec edit_spec(const submit::JobSpec& stored, const dashboard::SpecChanges& c) {
  submit::JobSpec spec = stored;
  spec.name = c.name;
  if (c.image) spec.image = *c.image;
  if (c.gpu) spec.gpu = parse_gpu(*c.gpu);
  submit::validate_basics(spec);
  if (c.env) spec.env = edited_env(stored, *c.env);
  if (c.args) {
    if (!stored.command.empty() && c.args->empty())
      throw UsageError("--command needs the command after --, e.g. --command -- python train.py");
    (stored.command.empty() ? spec.args : spec.command) = *c.args;
  }
  spec.cli_argv = {};
  spec.user = job_user_name();
  submit::validate_unnamed(spec);
  return spec;
}

// Actions only with a token: never on a listener that lets its own user in without one.
void check_actions_allowed(const DashboardOptions& o, const std::string& token) {
  if (o.allow_actions && token.empty())
    throw UsageError("--allow-actions needs a token: give --token T or LANECTL_DASHBOARD_TOKEN (beyond loopback one "
                     "is generated); actions are never served without one");
}

void run_dashboard(const DashboardOptions& o, CliContext& ctx) {
  auto listen = dashboard::parse_listen_address(o.listen);
  if (!listen)
    throw UsageError("--listen '" + o.listen + "': use HOST:PORT, e.g. 127.0.0.1:8080 ([::1]:8080 for IPv6; port 0 picks a free one)");
  // LANECTL_DASHBOARD_TOKEN keeps the token out of the process list (`ps` shows --token).
  std::string token = o.token, source = "--token";
  if (token.empty())
    if (const char* env = std::getenv("LANECTL_DASHBOARD_TOKEN")) token = env, source = "LANECTL_DASHBOARD_TOKEN";
  for (char c : token)
    if (static_cast<unsigned char>(c) <= ' ' || c == ';' || c == ',' || c == 127)
      throw UsageError(source + ": use printable characters without spaces, ';' or ','");
  bool generated = false;
  if (token.empty() && !dashboard::is_loopback_host(listen->host)) {
    token = dashboard::generate_token();
    generated = true;
  }
  if (o.gpu_interval < 1 || o.gpu_interval > 3600)
    throw UsageError("--gpu-interval " + std::to_string(o.gpu_interval) + ": use 1 to 3600 seconds");
  check_actions_allowed(o, token);
  auto sampler = dashboard::make_gpu_sampler(ctx.config().kind, std::chrono::seconds(o.gpu_interval));
  dashboard::Roles roles{ctx.jobs(), ctx.projects(), ctx.cluster(), ctx.job_files(), ctx.storage(), sampler.get(), edit_spec};
  dashboard::ServerOptions options;
  options.listen = *listen;
  options.token = token;
  options.allow_actions = o.allow_actions;
  auto log_mutex = std::make_shared<std::mutex>();
  options.log = [&ctx, log_mutex](const std::string& line) {
    std::lock_guard<std::mutex> lock(*log_mutex);
    ctx.err << line << std::endl;
  };
  dashboard::Server server(roles, options);
  int port = server.bind();
  StopOnSignal stop(server);  // before the URL is printed: whoever reads it may signal at once
  std::string url = dashboard::dashboard_url(listen->host, port);
  if (generated)
    ctx.err << "Dashboard token (shown once; send it as 'Authorization: Bearer TOKEN', or open " << url
            << "?token=TOKEN once to set a cookie): " << token << std::endl;
  ctx.out << "Dashboard: " << url << std::endl;
  if (o.allow_actions) ctx.err << "Actions are on: suspend, resume, delete and resubmit from the UI are logged here" << std::endl;
  server.run();
}

}  // namespace

void add_dashboard_command(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<DashboardOptions>();
  auto* cmd = app.add_subcommand("dashboard", "Serve the web dashboard (jobs, live) until interrupted");
  cmd->footer("Read-only by default: the UI suspends, resumes, deletes and resubmits jobs only with --allow-actions,\n"
              "which needs a token (never on a listener without one); each action is logged on stderr.\n\n"
              "Examples:\n"
              "  lanectl dashboard                       # http://127.0.0.1:8080/\n"
              "  LANECTL_DASHBOARD_TOKEN=$(openssl rand -hex 16) lanectl dashboard --listen 0.0.0.0:9000\n"
              "  LANECTL_DASHBOARD_TOKEN=$(openssl rand -hex 16) lanectl dashboard --allow-actions");
  cmd->add_option("--listen", o->listen,
                  "HOST:PORT to listen on (default 127.0.0.1:8080; port 0: a free one; beyond loopback a token is required)");
  cmd->add_option("--token", o->token, "Token required of every request (else $LANECTL_DASHBOARD_TOKEN; beyond loopback: generated and printed once)");
  cmd->add_option("--gpu-interval", o->gpu_interval,
                  "Seconds between GPU utilization samples (nvidia-smi; local backend only; default 5)");
  auto* read_only = cmd->add_flag("--read-only", o->read_only, "Serve views only, no actions (the default)");
  cmd->add_flag("--allow-actions", o->allow_actions,
                "Let the UI suspend, resume, delete and resubmit jobs (needs --token or LANECTL_DASHBOARD_TOKEN; "
                "CSRF-protected, each action logged)")
      ->excludes(read_only);
  cmd->callback([o, &ctx] { run_dashboard(*o, ctx); });
}

}  // namespace lane::cli
