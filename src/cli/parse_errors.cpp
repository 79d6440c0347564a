#include "cli/parse_errors.h"

#include <algorithm>
#include <regex>

#include <fmt/format.h>

#include "cli/help_listing.h"

namespace lane::cli {

size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: Levenshtein plus the swap of two neighbours ("sumbit" → "submit").
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

namespace {

std::string_view undashed(std::string_view s) {
  while (!s.empty() && s.front() == '-') s.remove_prefix(1);
  return s;
}

}  // namespace

std::optional<std::string> closest_name(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string_view w = undashed(word);
  std::optional<std::string> best;
  size_t best_distance = 3;  // at most 2
  for (const auto& c : candidates) {
    const size_t d = edit_distance(w, undashed(c));
    if (d < best_distance && 2 * d < w.size()) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

namespace {

std::string command_path(const CLI::App* app) {
  std::vector<std::string> names;
  for (const CLI::App* a = app; a != nullptr; a = a->get_parent()) names.push_back(a->get_name());
  std::reverse(names.begin(), names.end());
  return fmt::format("{}", fmt::join(names, " "));
}

std::string see_help(const CLI::App* app) { return fmt::format("see `{} --help`", command_path(app)); }

// The deepest subcommand the parse reached (the root when it reached none).
const CLI::App* reached(const CLI::App& app) {
  const CLI::App* at = &app;
  for (auto subs = at->get_subcommands(); !subs.empty(); subs = at->get_subcommands()) at = subs.back();
  return at;
}

const CLI::Option* find_option(const CLI::App* app, const std::string& name) {
  for (const CLI::App* a = app; a != nullptr; a = a->get_parent())
    if (const CLI::Option* o = a->get_option_no_throw(name)) return o;
  return nullptr;
}

std::vector<const CLI::App*> subcommands_of(const CLI::App* app) {
  return app->get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); });
}

// The names of `app`'s own flags ("--context", "-h", ...).
std::vector<std::string> flag_names(const CLI::App* app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app->get_options()) {
    for (const auto& l : o->get_lnames()) names.push_back("--" + l);
    for (const auto& s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

// A flag where `at` expects one of its commands: a typo of one of its own flags, or a command's
// flag given before the command (`lanectl -p team list`).
std::string unknown_flag_before_command(const CLI::App* at, const std::string& flag) {
  if (auto guess = closest_name(flag, flag_names(at)))
    return fmt::format("unknown flag '{}' for `{}`; did you mean '{}'?", flag, command_path(at), *guess);
  return fmt::format("unknown flag '{}' for `{}`; a command's flags go after the command (`{} COMMAND {} ...`); {}",
                     flag, command_path(at), command_path(at), flag, see_help(at));
}

// A word where `app` expects one of its commands, and it is none of them; or no command at all.
std::optional<std::string> command_problem(const CLI::App& root, const std::vector<std::string>& args) {
  const CLI::App* at = &root;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& w = args[i];
    if (w.size() > 1 && w[0] == '-') {
      const std::string flag = w.substr(0, w.find('='));
      const CLI::Option* o = find_option(at, flag);
      if (o == nullptr && at->get_require_subcommand_min() > 0 && flag != "--help" && flag != "-h")
        return unknown_flag_before_command(at, flag);
      if (o != nullptr && o->get_type_size() > 0 && w.find('=') == std::string::npos) ++i;  // skip its value
      continue;
    }
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : subcommands_of(at))
      if (sub->check_name(w)) next = sub;
    if (next != nullptr) {
      at = next;
      continue;
    }
    if (at->get_require_subcommand_min() == 0) return std::nullopt;  // a positional of the verb
    std::vector<std::string> names;
    for (const CLI::App* sub : subcommands_of(at)) {
      names.push_back(sub->get_name());
      for (const auto& alias : sub->get_aliases()) names.push_back(alias);
    }
    const std::string where = at == &root ? "" : fmt::format(" for `{}`", command_path(at));
    if (at == &root && w == "stop")  // runai's and docker's word; the nearest spelling, `top`, only shows
      return "unknown command 'stop'; `lanectl suspend JOB` stops a job until `lanectl resume JOB`, "
             "`lanectl delete job JOB` stops and removes it";
    if (auto guess = closest_name(w, names))
      return fmt::format("unknown command '{}'{}; did you mean '{}'?", w, where, *guess);
    return fmt::format("unknown command '{}'{}; {} for the commands", w, where, see_help(at));
  }
  if (at->get_require_subcommand_min() == 0) return std::nullopt;
  std::vector<std::string> names;
  for (const CLI::App* sub : subcommands_of(at))
    if (listed(sub)) names.push_back(sub->get_name());  // not the hidden (deprecated) ones
  return fmt::format("`{}` needs a command: {}; {}", command_path(at), fmt::join(names, ", "), see_help(at));
}

std::string extras_message(const CLI::App& app, const CLI::App* at) {
  const std::vector<std::string> extras = app.remaining(true);  // in command-line order
  for (const auto& e : extras) {
    if (e.size() < 2 || e[0] != '-') continue;
    const std::string flag = e.substr(0, e.find('='));
    std::vector<std::string> names;
    for (const CLI::App* a = at; a != nullptr; a = a->get_parent()) {
      auto own = flag_names(a);
      names.insert(names.end(), own.begin(), own.end());
    }
    if (auto guess = closest_name(flag, names))
      return fmt::format("unknown flag '{}' for `{}`; did you mean '{}'?", flag, command_path(at), *guess);
    return fmt::format("unknown flag '{}' for `{}`; {}", flag, command_path(at), see_help(at));
  }
  return fmt::format("`{}` does not take the argument{} '{}' (in the order given); {}", command_path(at),
                     extras.size() == 1 ? "" : "s", fmt::join(extras, "' '"), see_help(at));
}

// "-p/--project": every name of an option, short ones first.
std::string option_names(const CLI::Option* o) {
  std::vector<std::string> names;
  for (const auto& s : o->get_snames()) names.push_back("-" + s);
  for (const auto& l : o->get_lnames()) names.push_back("--" + l);
  return fmt::format("{}", fmt::join(names, "/"));
}

std::string what_a_value_is(const CLI::Option* o) {
  if (o == nullptr) return "a valid value";
  const std::string type = o->get_type_name();
  if (type == "INT" || type == "UINT") return "a whole number";
  if (type == "FLOAT") return "a number";
  return "a valid value";
}

}  // namespace

CLI::Validator non_empty(const std::string& what) {
  return CLI::Validator(
      [what](std::string& value) { return value.empty() ? "the value is empty; " + what : std::string(); }, "",
      "non-empty");
}

std::string parse_error_message(const CLI::App& app, const CLI::ParseError& e, const std::vector<std::string>& args) {
  if (auto problem = command_problem(app, args)) return *problem;
  const CLI::App* at = reached(app);
  const std::string what = e.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) return extras_message(app, at);
  std::smatch m;
  static const std::regex conversion(R"(^Could not convert: (\S+) = (.*)$)");
  if (std::regex_match(what, m, conversion)) {
    const CLI::Option* o = find_option(at, m[1]);
    return fmt::format("{} '{}' is not {}; {}", m[1].str(), m[2].str(), what_a_value_is(o), see_help(at));
  }
  static const std::regex given_twice(R"(^(\S+): At Most 1 required but received (\d+)$)");
  if (std::regex_match(what, m, given_twice)) {  // a single-valued option given more than once
    const CLI::Option* o = find_option(at, m[1]);
    return fmt::format("{} was given {} times; it takes one value: give it once; {}",
                       o != nullptr ? option_names(o) : m[1].str(), m[2].str(), see_help(at));
  }
  static const std::regex required(R"(^(\S+) is required$)");
  if (std::regex_match(what, m, required))
    return fmt::format("`{}` needs {}; {}", command_path(at), m[1].str(), see_help(at));
  static const std::regex missing_value(R"(^(\S+): \d+ required \S+ missing$)");
  if (std::regex_match(what, m, missing_value))
    return fmt::format("{} needs a value; {}", m[1].str(), see_help(at));
  return fmt::format("{} (`{}`); {}", what, command_path(at), see_help(at));
}

}  // namespace lane::cli
