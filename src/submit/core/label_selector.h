#pragma once
// `list -l/--selector`: a Kubernetes label selector over the jobs' --label values. Equality-based
// (`k=v`, `k==v`, `k!=v`), existence (`k`, `!k`) and set-based (`k in (a,b)`, `k notin (a,b)`)
// requirements, comma-separated; a job matches when it meets all of them.
#include <map>
#include <string>
#include <vector>

namespace lane::submit {

class LabelSelector {
 public:
  // Throws UsageError naming the bad requirement and the accepted forms.
  explicit LabelSelector(const std::string& text);
  bool matches(const std::map<std::string, std::string>& labels) const;
  bool empty() const { return requirements_.empty(); }
  // The selector as the API server's labelSelector parameter takes it ("" when empty).
  std::string text() const;

 private:
  enum class Op { kEquals, kNotEquals, kExists, kNotExists, kIn, kNotIn };
  struct Requirement {
    std::string key;
    Op op = Op::kExists;
    std::vector<std::string> values;
  };
  static Requirement parse_requirement(const std::string& text);
  std::vector<Requirement> requirements_;
};

}  // namespace lane::submit
