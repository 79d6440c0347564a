#include "cli/completion_script.h"

#include <sstream>

#include <fmt/format.h>

#include "cli/help_listing.h"
#include "common/error.h"

namespace lane::cli {

namespace {

// One subcommand level: its path of canonical names ("lanectl config"), the words that can
// follow it (subcommand names and aliases, then flags) and its children.
struct Level {
  std::string path;
  const CLI::App* app;
};

std::vector<const CLI::App*> children(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* sub) { return listed(sub); });
}

std::vector<std::string> flags(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* opt : app.get_options()) {
    if (!listed(opt)) continue;
    for (const auto& l : opt->get_lnames()) out.push_back("--" + l);
    for (const auto& s : opt->get_snames()) out.push_back("-" + s);
  }
  return out;
}

void collect(const CLI::App& app, const std::string& path, std::vector<Level>& out) {
  out.push_back({path, &app});
  for (const CLI::App* sub : children(app)) collect(*sub, path + " " + sub->get_name(), out);
}

std::string join(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}

// What a command's positional words are: names of `kind` from the backend (`lanectl __complete
// KIND`), and/or fixed `words`; `after`: only right after that word (describe job NAME).
struct Positional {
  const char* path;  // below the root, canonical names
  const char* after;
  const char* kind;
  const char* words;
};

constexpr Positional kPositionals[] = {
    {"logs", "", "jobs", ""},           {"attach", "", "jobs", ""},
    {"exec", "", "jobs", ""},           {"bash", "", "jobs", ""},
    {"suspend", "", "jobs", ""},        {"resume", "", "jobs", ""},
    {"delete", "", "jobs", "job"},      {"describe", "", "", "job node"},
    {"describe", "job", "jobs", ""},    {"describe", "node", "nodes", ""},
    {"lineage", "", "jobs snapshots", ""}, {"restore", "", "snapshots", ""},
    {"snapshot describe", "", "snapshots", ""}, {"snapshot delete", "", "snapshots", ""},
    {"snapshot verify", "", "snapshots", ""},   {"volume describe", "", "volumes", ""},
    {"volume delete", "", "volumes", ""},       {"project delete", "", "projects", ""},
    {"project set-quota", "", "projects", ""},  {"project set-network", "", "projects", ""},
    {"config project", "", "projects", ""},     {"config backend", "", "", "local kubernetes"},
    {"list", "", "", "jobs projects nodes volumes"}, {"top", "", "", "node job"},
    {"completion", "", "", "bash zsh fish"},
};

// Values of options: -p/--project everywhere, --pvc where it names an existing volume.
constexpr Positional kOptionValues[] = {
    {"", "-p", "projects", ""},          {"", "--project", "projects", ""},
    {"snapshot create", "--pvc", "volumes", ""}, {"snapshot list", "--pvc", "volumes", ""},
    {"restore", "--pvc", "volumes", ""},
};

const CLI::App* find_path(const CLI::App& root, const std::string& path) {
  const CLI::App* at = &root;
  std::istringstream words(path);
  for (std::string w; words >> w;) at = at->get_subcommand(w);  // throws when the tree lacks it
  return at;
}

// The bash `case` arms on "$path|$prev" that set `kind` and extra `words`: option values first,
// then positionals after a given word, then the others (bash takes the first arm that matches).
std::string dynamic_arms(const CLI::App& root) {
  const std::string name = root.get_name();
  std::string arms;
  for (const auto& p : kOptionValues) {
    find_path(root, p.path);
    std::string path = *p.path ? "\"" + name + " " + p.path + "\"" : "*";
    arms += fmt::format("      {}\"|{}\") kind=\"{}\" words=\"\" ;;\n", path, p.after, p.kind);
  }
  for (bool after : {true, false})
    for (const auto& p : kPositionals) {
      if (after != (*p.after != 0)) continue;
      find_path(root, p.path);
      arms += fmt::format("      \"{} {}|{}\"{}) kind=\"{}\" words=\"{}\" ;;\n", name, p.path, p.after,
                          after ? "" : "*", p.kind, p.words);
    }
  return arms;
}

std::string bash_transitions(const std::vector<Level>& levels, std::string& words) {
  std::string transitions;
  for (const auto& level : levels) {
    std::vector<std::string> next;
    for (const CLI::App* sub : children(*level.app)) {
      std::vector<std::string> spellings{sub->get_name()};
      for (const auto& a : sub->get_aliases()) spellings.push_back(a);
      for (const auto& s : spellings) {
        next.push_back(s);
        transitions += fmt::format("      \"{} {}\") path=\"{} {}\" ;;\n", level.path, s, level.path, sub->get_name());
      }
    }
    for (const auto& f : flags(*level.app)) next.push_back(f);
    words += fmt::format("    \"{}\") words=\"{}\" ;;\n", level.path, join(next));
  }
  return transitions;
}

std::string bash_script(const CLI::App& root) {
  const std::string name = root.get_name();
  std::vector<Level> levels;
  collect(root, name, levels);
  std::string words;
  const std::string transitions = bash_transitions(levels, words);
  std::string fn = "_" + name;
  for (auto& c : fn)
    if (c == '-') c = '_';
  return fmt::format(
      "# bash completion for {0} (generated by `{0} completion bash` from its command tree)\n"
      "{1}() {{\n"
      "  local cur=\"${{COMP_WORDS[COMP_CWORD]}}\" prev=\"\" path=\"{0}\" words=\"\" kind=\"\" project=\"\" k i\n"
      "  ((COMP_CWORD > 0)) && prev=\"${{COMP_WORDS[COMP_CWORD-1]}}\"\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    case \"${{COMP_WORDS[i]}}\" in\n"
      "      -p|--project) project=\"${{COMP_WORDS[i+1]}}\" ;;\n"
      "      --project=*) project=\"${{COMP_WORDS[i]#--project=}}\" ;;\n"
      "    esac\n"
      "    case \"$path ${{COMP_WORDS[i]}}\" in\n"
      "{2}"
      "    esac\n"
      "  done\n"
      "  case \"$path\" in\n"
      "{3}"
      "  esac\n"
      "  if [[ $cur != -* ]]; then\n"
      "    case \"$path|$prev\" in\n"
      "{4}"
      "    esac\n"
      "  fi\n"
      "  for k in $kind; do\n"
      "    words=\"$words $(\"${{COMP_WORDS[0]}}\" __complete \"$k\" ${{project:+--project \"$project\"}} ${{cur:+\"$cur\"}} 2>/dev/null)\"\n"
      "  done\n"
      "  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
      "}}\n"
      "complete -F {1} {0}\n",
      name, fn, transitions, words, dynamic_arms(root));
}

std::string fish_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// The fish condition for a command path below the root ("snapshot verify").
std::string fish_condition(const std::string& path) {
  if (path.empty()) return "__fish_use_subcommand";
  std::string cond;
  std::istringstream words(path);
  for (std::string w; words >> w;) cond += (cond.empty() ? "" : "; and ") + ("__fish_seen_subcommand_from " + w);
  return cond;
}

std::string fish_dynamic(const CLI::App& root) {
  const std::string name = root.get_name();
  std::string out;
  for (const auto& p : kPositionals) {
    if (*p.after) continue;  // describe job NAME: fish offers the names after `describe` already
    find_path(root, p.path);
    std::string values = p.words;
    std::istringstream kinds(p.kind);
    for (std::string k; kinds >> k;) values += fmt::format(" ({} __complete {} 2>/dev/null)", name, k);
    out += fmt::format("complete -c {} -n {} -a {}\n", name, fish_quote(fish_condition(p.path)), fish_quote(values));
  }
  out += fmt::format("complete -c {0} -s p -l project -x -a '({0} __complete projects 2>/dev/null)'\n", name);
  return out;
}

std::string fish_script(const CLI::App& root) {
  const std::string name = root.get_name();
  std::string out = fmt::format("# fish completion for {0} (generated by `{0} completion fish` from its command tree)\n"
                                "complete -c {0} -f\n",
                                name);
  std::vector<Level> levels;
  collect(root, name, levels);
  for (const auto& level : levels) {
    // The condition: at the root, no subcommand yet; below, the level's last word was seen.
    std::string last = level.app == &root ? "" : level.app->get_name();
    std::string cond = last.empty() ? "__fish_use_subcommand" : "__fish_seen_subcommand_from " + last;
    for (const CLI::App* sub : children(*level.app))
      out += fmt::format("complete -c {} -n {} -a {} -d {}\n", name, fish_quote(cond), sub->get_name(),
                         fish_quote(sub->get_description()));
    for (const CLI::Option* opt : level.app->get_options()) {
      if (!opt->nonpositional() || !listed(opt)) continue;
      std::string line = fmt::format("complete -c {} -n {}", name, fish_quote(cond));
      for (const auto& l : opt->get_lnames()) line += " -l " + l;
      for (const auto& s : opt->get_snames()) line += " -s " + s;
      out += line + " -d " + fish_quote(opt->get_description()) + "\n";
    }
  }
  return out + fish_dynamic(root);
}

}  // namespace

std::string completion_script(const CLI::App& root, const std::string& shell) {
  if (shell == "bash") return bash_script(root);
  if (shell == "zsh")
    return "#compdef " + root.get_name() + "\n# zsh runs the bash completion through bashcompinit\n"
           "autoload -U +X bashcompinit && bashcompinit\n" + bash_script(root);
  if (shell == "fish") return fish_script(root);
  throw UsageError("completion takes one shell: bash, zsh or fish (not '" + shell + "')");
}

}  // namespace lane::cli
