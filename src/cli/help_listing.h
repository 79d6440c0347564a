#pragma once
// What --help lists: a subcommand or an option in a group. Hidden ones (deprecated verbs,
// submit-mpi's refused --interactive) have an empty group; the man page, the completion
// scripts and the "did you mean" suggestions leave them out as --help does.
#include <CLI/CLI.hpp>

namespace lane::cli {

inline bool listed(const CLI::App* sub) { return !sub->get_group().empty(); }
inline bool listed(const CLI::Option* opt) { return !opt->get_group().empty(); }

}  // namespace lane::cli
