// lanectl completion bash|zsh|fish: prints a completion script generated from the command tree
// (completion_script.h). Usage: `source <(lanectl completion bash)`. Two hidden helpers: the
// scripts' `lanectl __complete KIND [PREFIX]` (names from the backend) and `lanectl __man`
// (the man page, man_page.h; the build installs it as lanectl.1).
#include <functional>

#include "cli/completion_script.h"
#include "cli/context.h"
#include "cli/man_page.h"
#include "cli/verbs.h"
#include "storage/core/snapshots.h"
#include "storage/core/volumes.h"

namespace lane::cli {

namespace {

struct CompleteOptions {
  std::string kind, prefix, project;
};

// Every name of `kind` the backend knows, in its order.
void for_each_name(const CompleteOptions& o, CliContext& ctx, const std::function<void(const std::string&)>& emit) {
  if (o.kind == "jobs") {
    for (const auto& j : ctx.jobs().list_jobs(ctx.project(o.project))) emit(j.spec.name);
  } else if (o.kind == "projects") {
    for (const auto& p : ctx.projects().list_projects()) emit(p.spec.name);
  } else if (o.kind == "snapshots") {
    for (const auto& s : ctx.storage().snapshots_of(ctx.project(o.project)).list(std::nullopt)) emit(s.name);
  } else if (o.kind == "volumes") {
    for (const auto& v : ctx.storage().volumes_of(ctx.project(o.project)).list()) emit(v.name);
  } else if (o.kind == "nodes") {
    for (const auto& n : ctx.cluster().list_nodes()) emit(n.spec.name);
  }
}

// Prints the names that start with the prefix, one a line. A completion must never print an
// error into the user's command line: an unknown kind or a backend that cannot answer (no
// state yet, no cluster) prints nothing and exits 0.
void run_complete(const CompleteOptions& o, CliContext& ctx) {
  try {
    for_each_name(o, ctx, [&](const std::string& name) {
      if (name.compare(0, o.prefix.size(), o.prefix) == 0) ctx.out << name << "\n";
    });
  } catch (const std::exception&) {
  }
}

}  // namespace

void add_completion_command(CLI::App& app, CliContext& ctx) {
  auto shell = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("completion", "Print a shell completion script: bash, zsh or fish");
  cmd->add_option("SHELL", *shell, "bash | zsh | fish")->required();
  cmd->footer(
      "Examples:\n"
      "  source <(lanectl completion bash)                      # this bash session; add it to ~/.bashrc\n"
      "  lanectl completion zsh > \"${fpath[1]}/_lanectl\"        # zsh\n"
      "  lanectl completion fish > ~/.config/fish/completions/lanectl.fish");
  const CLI::App* root = &app;
  cmd->callback([shell, root, &ctx] { ctx.out << completion_script(*root, *shell); });

  auto o = std::make_shared<CompleteOptions>();
  auto* complete = app.add_subcommand("__complete", "Names for shell completion")->group("");
  complete->add_option("KIND", o->kind, "jobs | projects | snapshots | volumes | nodes")->required();
  complete->add_option("PREFIX", o->prefix, "Only names that start with it");
  complete->add_option("-p,--project", o->project, "Project (jobs, snapshots, volumes)");
  complete->callback([o, &ctx] { run_complete(*o, ctx); });

  auto* man = app.add_subcommand("__man", "Print the man page (roff)")->group("");
  man->callback([root, &ctx] { ctx.out << man_page(*root); });
}

}  // namespace lane::cli
