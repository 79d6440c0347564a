#include "submit/core/label_selector.h"

#include <algorithm>

#include "common/error.h"

namespace lane::submit {

namespace {

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(' ');
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

[[noreturn]] void bad(const std::string& requirement) {
  throw UsageError("--selector: cannot read '" + requirement +
                   "'; use comma-separated requirements such as `team=vision`, `stage!=test`, `tuned`, `!tuned`, "
                   "`team in (vision,nlp)` or `team notin (test)`");
}

// Splits at the commas outside parentheses.
std::vector<std::string> split_top_level(const std::string& text) {
  std::vector<std::string> parts(1);
  int depth = 0;
  for (char c : text) {
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (c == ',' && depth == 0) {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  return parts;
}

}  // namespace

LabelSelector::LabelSelector(const std::string& text) {
  if (trim(text).empty()) return;
  for (const auto& part : split_top_level(text)) requirements_.push_back(parse_requirement(trim(part)));
}

LabelSelector::Requirement LabelSelector::parse_requirement(const std::string& text) {
  Requirement r;
  auto key_ok = [](const std::string& k) {
    return !k.empty() && k.find_first_of(" =!(),") == std::string::npos;
  };
  for (auto [word, op] : {std::pair{" notin ", Op::kNotIn}, std::pair{" in ", Op::kIn}}) {
    const size_t at = text.find(word);
    if (at == std::string::npos) continue;
    const std::string set = trim(text.substr(at + std::string(word).size()));
    if (set.size() < 2 || set.front() != '(' || set.back() != ')') bad(text);
    r.key = trim(text.substr(0, at));
    r.op = op;
    for (const auto& v : split_top_level(set.substr(1, set.size() - 2))) r.values.push_back(trim(v));
    if (!key_ok(r.key)) bad(text);
    return r;
  }
  size_t at = text.find("!=");
  if (at != std::string::npos) {
    r = {trim(text.substr(0, at)), Op::kNotEquals, {trim(text.substr(at + 2))}};
  } else if ((at = text.find('=')) != std::string::npos) {
    const size_t skip = text.compare(at, 2, "==") == 0 ? 2 : 1;
    r = {trim(text.substr(0, at)), Op::kEquals, {trim(text.substr(at + skip))}};
  } else if (!text.empty() && text[0] == '!') {
    r = {trim(text.substr(1)), Op::kNotExists, {}};
  } else {
    r = {text, Op::kExists, {}};
  }
  if (!key_ok(r.key) || (!r.values.empty() && r.values[0].find_first_of("=!() ") != std::string::npos)) bad(text);
  return r;
}

bool LabelSelector::matches(const std::map<std::string, std::string>& labels) const {
  return std::all_of(requirements_.begin(), requirements_.end(), [&](const Requirement& r) {
    const auto it = labels.find(r.key);
    const bool has = it != labels.end();
    const bool in = has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
    switch (r.op) {
      case Op::kExists: return has;
      case Op::kNotExists: return !has;
      case Op::kEquals:
      case Op::kIn: return in;
      case Op::kNotEquals:
      case Op::kNotIn: return !in;
    }
    return false;
  });
}

std::string LabelSelector::text() const {
  std::string out;
  for (const auto& r : requirements_) {
    if (!out.empty()) out += ',';
    switch (r.op) {
      case Op::kExists: out += r.key; break;
      case Op::kNotExists: out += "!" + r.key; break;
      case Op::kEquals: out += r.key + "=" + r.values[0]; break;
      case Op::kNotEquals: out += r.key + "!=" + r.values[0]; break;
      case Op::kIn:
      case Op::kNotIn: {
        out += r.key + (r.op == Op::kIn ? " in (" : " notin (");
        for (size_t i = 0; i < r.values.size(); ++i) out += (i ? "," : "") + r.values[i];
        out += ')';
      }
    }
  }
  return out;
}

}  // namespace lane::submit
