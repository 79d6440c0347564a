#include "kube/pruned_parse.h"

#include <algorithm>
#include <utility>

namespace lane::kube {
namespace {

using Json = nlohmann::json;

// Builds the DOM like nlohmann's own SAX DOM parser; a key on a drop path makes the handler
// skip that key's value (counting nested containers) instead of building it.
class PruningDomBuilder {
 public:
  PruningDomBuilder(Json& root, const std::vector<JsonPath>& drop) : root_(root), drop_(drop) {
    for (const auto& p : drop_) max_depth_ = std::max(max_depth_, p.size());
  }

  bool null() { return scalar(nullptr); }
  bool boolean(bool v) { return scalar(v); }
  bool number_integer(Json::number_integer_t v) { return scalar(v); }
  bool number_unsigned(Json::number_unsigned_t v) { return scalar(v); }
  bool number_float(Json::number_float_t v, const Json::string_t&) { return scalar(v); }
  bool string(Json::string_t& v) { return scalar(v); }  // copied, see key()
  bool binary(Json::binary_t& v) { return scalar(v); }

  bool start_object(std::size_t) { return open(Json::value_t::object); }
  bool start_array(std::size_t) { return open(Json::value_t::array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(Json::string_t& k) {
    if (skip_depth_ > 0) return true;
    if (dropped(k)) {
      skip_value_ = true;
      return true;
    }
    key_ = k;  // a copy: moving would take the lexer's buffer and make it reallocate
    return true;
  }

  template <class Exception>
  bool parse_error(std::size_t, const std::string&, const Exception& ex) {
    throw ex;
  }

 private:
  // Where the next value goes: the root, the pending key of the open object, or the array's end.
  Json* place(Json&& v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Json& parent = *stack_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(v));
      return &parent.back();
    }
    Json& slot = parent[key_];
    slot = std::move(v);
    return &slot;
  }

  template <class T>
  bool scalar(T&& v) {
    if (skip_depth_ > 0) return true;
    if (skip_value_) {
      skip_value_ = false;
      return true;
    }
    place(Json(std::forward<T>(v)));
    return true;
  }

  bool open(Json::value_t type) {
    if (skip_depth_ > 0 || skip_value_) {
      skip_value_ = false;
      ++skip_depth_;
      return true;
    }
    // The path segment of the new container: its key, or "*" as an array element.
    names_.push_back(stack_.empty() ? std::string() : stack_.back()->is_array() ? std::string("*") : key_);
    stack_.push_back(place(Json(type)));
    return true;
  }

  bool close() {
    if (skip_depth_ > 0) {
      --skip_depth_;
      return true;
    }
    stack_.pop_back();
    names_.pop_back();
    return true;
  }

  // Does the path of the open containers plus `k` match a drop path?
  bool dropped(const std::string& k) const {
    const size_t n = names_.size();  // names_[0] is the root (no name)
    if (n > max_depth_) return false;
    for (const auto& path : drop_) {
      if (path.size() != n || (path.back() != k && path.back() != "*")) continue;
      bool match = true;
      for (size_t i = 0; i + 1 < n && match; ++i) match = path[i] == "*" || path[i] == names_[i + 1];
      if (match) return true;
    }
    return false;
  }

  Json& root_;
  const std::vector<JsonPath>& drop_;
  std::vector<Json*> stack_;
  std::vector<std::string> names_;
  std::string key_;
  size_t max_depth_ = 0;  // no drop path is longer: deeper keys need no check
  int skip_depth_ = 0;
  bool skip_value_ = false;
};

}  // namespace

Json parse_pruned(const std::string& text, const std::vector<JsonPath>& drop) {
  if (drop.empty()) return Json::parse(text);
  Json root;
  PruningDomBuilder builder(root, drop);
  Json::sax_parse(text, &builder);
  return root;
}

}  // namespace lane::kube
