#include <set>

#include "cli/verbs.h"
#include "common/error.h"

namespace lane::cli {

namespace {

bool is_kube_flag(const std::string& a) {
  for (const char* flag : {"--context", "--kubeconfig"}) {
    const std::string f = flag;
    if (a == f || a.rfind(f + "=", 0) == 0) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> split_command_line(const std::vector<std::string>& argv, CliContext& ctx) {
  static const std::set<std::string> kSubmitVerbs = {"submit", "submit-mpi", "mpi", "mj", "submit-dist"};
  bool submit_verb = argv.size() > 1 && kSubmitVerbs.count(argv[1]);
  std::vector<std::string> kept;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--") {
      ctx.has_dash = true;
      ctx.after_dash.assign(argv.begin() + static_cast<long>(i) + 1, argv.end());
      break;
    }
    if (is_kube_flag(a)) {
      const size_t eq = a.find('=');
      const std::string flag = a.substr(0, eq);
      std::string value;
      if (eq != std::string::npos) {
        value = a.substr(eq + 1);
      } else if (i + 1 < argv.size() && argv[i + 1] != "--") {
        value = argv[++i];
      }
      if (value.empty())
        throw UsageError(flag + " needs a value: " +
                         (flag == "--context" ? "the name of a kubeconfig context (kubectl config get-contexts)"
                                              : "the path of a kubeconfig file"));
      (flag == "--context" ? ctx.kube_context : ctx.kubeconfig) = value;
      continue;
    }
    if (submit_verb && a.rfind("--command=", 0) == 0) {
      ctx.old_command = a.substr(10);
      continue;
    }
    if (submit_verb && a == "--command") {
      // Newer form: a bare flag (followed by `--`, another flag, or nothing). Older form: a value.
      bool has_value = i + 1 < argv.size() && argv[i + 1] != "--" && argv[i + 1].rfind("-", 0) != 0;
      if (has_value) {
        ctx.old_command = argv[++i];
      } else {
        ctx.command_flag = true;
      }
      continue;
    }
    kept.push_back(a);
  }
  return kept;
}

}  // namespace lane::cli
