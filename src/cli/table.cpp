#include "cli/table.h"

#include <algorithm>
#include <ostream>

#include <fmt/format.h>

namespace lane::cli {

std::vector<size_t> Table::widths() const {
  std::vector<size_t> width;
  for (const auto& row : rows_) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  return width;
}

std::string Table::line(const std::vector<std::string>& row, const std::vector<size_t>& widths) {
  std::string line;
  for (size_t i = 0; i < row.size(); ++i) {
    line += row[i];
    const size_t width = i < widths.size() ? std::max(widths[i], row[i].size()) : row[i].size();
    if (i + 1 < row.size()) line.append(width - row[i].size() + 2, ' ');
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

void Table::print(std::ostream& out) const {
  const std::vector<size_t> width = widths();
  std::string buffer;
  for (const auto& row : rows_) buffer += line(row, width) + '\n';
  out << buffer;
}

nlohmann::json list_document(nlohmann::json items) {
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(items)}};
}

std::string format_gpus(double value) { return fmt::format("{:g}", value); }

std::string shell_quoted(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    bool plain = !w.empty() && w.find_first_of(" \t\n'\"\\$`;&|<>(){}*?!#~") == std::string::npos;
    std::string q = w;
    if (!plain) {
      q = "'";
      for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
      q += "'";
    }
    out += (out.empty() ? "" : " ") + q;
  }
  return out;
}

}  // namespace lane::cli
