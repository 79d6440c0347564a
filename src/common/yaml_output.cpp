#include "common/yaml_output.h"

#include <yaml-cpp/yaml.h>

namespace lane {
namespace {

void emit(YAML::Emitter& out, const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::object:
      out << YAML::BeginMap;
      for (auto it = v.begin(); it != v.end(); ++it) {
        out << YAML::Key << it.key() << YAML::Value;
        emit(out, it.value());
      }
      out << YAML::EndMap;
      break;
    case nlohmann::json::value_t::array:
      out << YAML::BeginSeq;
      for (const auto& e : v) emit(out, e);
      out << YAML::EndSeq;
      break;
    case nlohmann::json::value_t::string: {
      // Quote strings that YAML would otherwise read back as another type.
      const auto& s = v.get_ref<const std::string&>();
      // A string YAML cannot even parse ("****" is an alias, "[" a flow start) is quoted too.
      bool plain_ok = false;
      try {
        YAML::Node probe = YAML::Load(s.empty() ? "''" : s);
        plain_ok = !s.empty() && probe.IsScalar() && probe.Tag() == "?" && probe.as<std::string>() == s;
      } catch (const YAML::Exception&) {
      }
      bool looks_typed = s == "true" || s == "false" || s == "null" || s == "~" || s == "yes" ||
                         s == "no" || s == "on" || s == "off";
      if (!looks_typed && plain_ok) {
        try {
          (void)std::stod(s);
          looks_typed = true;
        } catch (...) {
        }
      }
      if (looks_typed || !plain_ok) out << YAML::DoubleQuoted;
      out << s;
      break;
    }
    case nlohmann::json::value_t::boolean:
      out << v.get<bool>();
      break;
    case nlohmann::json::value_t::number_integer:
      out << v.get<long long>();
      break;
    case nlohmann::json::value_t::number_unsigned:
      out << v.get<unsigned long long>();
      break;
    case nlohmann::json::value_t::number_float:
      out << v.get<double>();
      break;
    default:
      out << YAML::Null;
  }
}

}  // namespace

std::string to_yaml(const nlohmann::json& doc) {
  YAML::Emitter out;
  emit(out, doc);
  return std::string(out.c_str()) + "\n";
}

}  // namespace lane
