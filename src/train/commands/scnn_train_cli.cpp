// The scnn-train program both binaries run: the command tree, one help style, the exit codes.
#include <iostream>
#include <memory>
#include <string>
#include <utility>

#include "common/error.h"
#include "common/error_text.h"
#include "lane/version.h"
#include "train/commands/verb_groups.h"

namespace {

// One help style for every verb: `--flag TYPE [REQUIRED]` (the value's real type: INT, FLOAT,
// TEXT, FILE, ...), then the description, a range as "(0 to 100)" and a default as
// "[default: X]", the style the trainer's settings use (train_settings.h).
class HelpFormatter : public CLI::Formatter {
 public:
  // A flag (no value) has no type name.
  std::string make_option_opts(const CLI::Option* opt) const override {
    if (opt->get_type_size() == 0 || opt->get_type_name().empty()) return "";
    std::string out = " " + split_type(opt).first;
    if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) out += " ...";
    if (opt->get_required()) out += " REQUIRED";
    return out;
  }
  std::string make_option_desc(const CLI::Option* opt) const override {
    std::string desc = opt->get_description();
    if (opt->get_type_size() == 0) return desc;
    if (const std::string range = split_type(opt).second; !range.empty()) desc += " (" + range + ")";
    if (!opt->get_default_str().empty()) desc += " [default: " + opt->get_default_str() + "]";
    return desc;
  }

 private:
  // CLI11's "INT:INT in [0 - 100]" or "TEXT:FILE" → the type ("INT", "FILE") and the range ("0 to 100").
  static std::pair<std::string, std::string> split_type(const CLI::Option* opt) {
    std::string full = opt->get_type_name(), type = full.substr(0, full.find(':')), range;
    for (size_t at = full.find(':'); at != std::string::npos;) {
      const size_t next = full.find(':', at + 1);
      const std::string part = full.substr(at + 1, next == std::string::npos ? next : next - at - 1);
      if (const size_t in = part.find(" in ["); in != std::string::npos) {
        range = part.substr(in + 5, part.size() - in - 6);
        if (const size_t dash = range.find(" - "); dash != std::string::npos) range.replace(dash, 3, " to ");
      } else if (!part.empty()) {
        type = part;  // FILE, DIR, PATH(existing)
      }
      at = next;
    }
    return {type, range};
  }
};

}  // namespace

namespace lane::train {

void add_verbs(CLI::App& app, const Verbs& verbs) {
  add_training_verbs(app, verbs);
  add_data_verbs(app, verbs);
}

int run_scnn_train(int argc, char** argv, const Verbs& verbs) {
  CLI::App app{"scnn-train: train and evaluate the SCNN lane-detection network on TuSimple"};
  app.formatter(std::make_shared<HelpFormatter>());
  app.set_version_flag("--version", std::string("scnn-train ") + kVersion + " (" + kGitRevision + ")");
  app.require_subcommand(1);
  add_verbs(app, verbs);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : static_cast<int>(ExitCode::kUsage);
  } catch (const Error& e) {
    std::cerr << "scnn-train: error: " << without_backtrace(e.what()) << "\n";
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    std::cerr << "scnn-train: error: " << without_backtrace(e.what()) << "\n";
    return static_cast<int>(ExitCode::kFailure);
  }
  return 0;
}

}  // namespace lane::train
