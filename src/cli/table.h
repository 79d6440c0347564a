#pragma once
// Go tabwriter-style tables (padding 2, left aligned), as `runai list` prints them.
#include <iosfwd>
#include <string>
#include <vector>

namespace lane::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  size_t size() const { return rows_.size() - 1; }
  void print(std::ostream& out) const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

// "%g" as Go prints it: 0.5, 1, 3, 0.25.
std::string format_gpus(double value);

}  // namespace lane::cli
