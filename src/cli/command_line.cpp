#include <set>

#include "cli/verbs.h"

namespace lane::cli {

std::vector<std::string> split_command_line(const std::vector<std::string>& argv, CliContext& ctx) {
  static const std::set<std::string> kSubmitVerbs = {"submit", "submit-mpi", "mpi", "mj"};
  bool submit_verb = argv.size() > 1 && kSubmitVerbs.count(argv[1]);
  std::vector<std::string> kept;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--") {
      ctx.has_dash = true;
      ctx.after_dash.assign(argv.begin() + static_cast<long>(i) + 1, argv.end());
      break;
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
