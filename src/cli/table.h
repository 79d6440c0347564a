#pragma once
// Go tabwriter-style tables (padding 2, left aligned), as `runai list` prints them.
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lane::cli {

// The width every default table (no -o) keeps within for the names lanectl's own examples use;
// what does not fit goes to `-o wide`.
inline constexpr size_t kDefaultTableWidth = 120;

class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  size_t size() const { return rows_.size() - 1; }
  void print(std::ostream& out) const;
  // Each column's width (its widest cell), and one row laid out on them (`list --watch` prints
  // the rows that change after the table, on the table's columns).
  std::vector<size_t> widths() const;
  static std::string line(const std::vector<std::string>& row, const std::vector<size_t>& widths);

 private:
  std::vector<std::vector<std::string>> rows_;
};

// The Kubernetes List shape `-o json|yaml` of a listing prints: {"apiVersion":"v1","kind":"List","items":[...]}.
nlohmann::json list_document(nlohmann::json items);

// "%g" as Go prints it: 0.5, 1, 3, 0.25.
std::string format_gpus(double value);

// A command line for display, as a shell reads it back: words with spaces or shell characters
// in single quotes ("sh -c 'echo a; exit 3'").
std::string shell_quoted(const std::vector<std::string>& words);

}  // namespace lane::cli
