#pragma once
// CLI11's parse errors in lanectl's own words: `lanectl: error: ` like every other error, the
// flag or command named, the arguments in the order given, and "did you mean" for a command or
// flag that is close to one that exists. main.cpp prints the result; the exit code is 2.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace lane::cli {

// Levenshtein distance (insertions, deletions, substitutions; a swap of neighbours counts 1).
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` when it is a likely typo of it (distance at most 2, and less
// than half of the word's length); nullopt otherwise.
std::optional<std::string> closest_name(const std::string& word, const std::vector<std::string>& candidates);

// A validator for an option whose value may not be empty ("--name ''" is a mistake, not "no
// name"): `what` says what to give instead.
CLI::Validator non_empty(const std::string& what);

// The message for `e` (without the `lanectl: error: ` prefix). `args`: what CLI11 was given, in
// command-line order, without argv[0]. `app` is the root command, after the failed parse.
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& e, const std::vector<std::string>& args);

}  // namespace lane::cli
