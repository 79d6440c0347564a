#include "cli/table.h"

#include <algorithm>
#include <ostream>

#include <fmt/format.h>

namespace lane::cli {

void Table::print(std::ostream& out) const {
  std::vector<size_t> width;
  for (const auto& row : rows_) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  std::string buffer;
  for (const auto& row : rows_) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line.append(width[i] - row[i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    buffer += line;
    buffer += '\n';
  }
  out << buffer;
}

std::string format_gpus(double value) { return fmt::format("{:g}", value); }

}  // namespace lane::cli
