#include "core/config/config_loader.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"
#include "core/config/config_validation.h"
#include "core/config/default_config.h"
#include "core/config/json_field_locations.h"
#include "core/config/problem_list.h"
#include "core/config/rule_vocabulary.h"
#include "core/config/field_name_suggestion.h"
#include "core/config/text_field_locations.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"

namespace teplug::config {
namespace {

// The text of 0-based line `line` of `text` (empty when out of range).
absl::string_view LineOf(absl::string_view text, int line) {
  size_t start = 0;
  for (int i = 0; i < line; ++i) {
    start = text.find('\n', start);
    if (start == absl::string_view::npos) return {};
    ++start;
  }
  const size_t end = text.find('\n', start);
  return text.substr(start, end == absl::string_view::npos ? text.size() - start
                                                           : end - start);
}

// The parser's message, ending in "; did you mean \"x\"?" instead of its
// full stop when it is about an unknown field with a plausible correction.
std::string WithFieldSuggestion(const std::string& message) {
  const std::string suggestion = SuggestFieldNameForParserMessage(message);
  if (suggestion.empty()) return message;
  absl::string_view text = message;
  absl::ConsumeSuffix(&text, ".");
  return absl::StrCat(text, suggestion);
}

// Collects every error and warning the text parser reports. Warnings are
// problems too: with unknown fields allowed (so parsing continues past
// them), an unknown field name arrives as a warning.
class TextErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  TextErrorCollector(absl::string_view text, ProblemList* problems)
      : text_(text), problems_(problems) {}

  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    Add(line, column, message);
  }

  void AddWarning(int line, google::protobuf::io::ColumnNumber column,
                  const std::string& message) override {
    Add(line, column, message);
  }

 private:
  void Add(int line, int column, const std::string& message) {
    // The parser's positions are 0-based; a negative line means "unknown".
    if (line < 0) line = 0;
    if (column < 0) column = 0;
    column = UnknownFieldNameColumn(line, column, message);
    problems_->Add(SourcePosition{line + 1, column + 1},
                   absl::StrCat("syntax error: ", WithFieldSuggestion(message)));
  }

  // The parser reports an unknown field at the token after its name; point
  // at the name itself, found by searching the line backwards. Lines with
  // tabs are left alone (the parser counts a tab as up to 8 columns).
  int UnknownFieldNameColumn(int line, int column, const std::string& message) {
    constexpr absl::string_view kMarker = "has no field named \"";
    const size_t marker = message.find(kMarker.data(), 0, kMarker.size());
    if (marker == std::string::npos) return column;
    const size_t name_start = marker + kMarker.size();
    const size_t name_end = message.find('"', name_start);
    if (name_end == std::string::npos) return column;
    const absl::string_view name =
        absl::string_view(message).substr(name_start, name_end - name_start);
    const absl::string_view line_text = LineOf(text_, line);
    if (line_text.find('\t') != absl::string_view::npos) return column;
    const size_t found = line_text.substr(0, column).rfind(name);
    return found == absl::string_view::npos ? column : static_cast<int>(found);
  }

  absl::string_view text_;
  ProblemList* problems_;
};

// Runs the semantic checks on a parsed config.
ConfigCheck Finish(ValidatedConfig config, ProblemList problems) {
  ValidateConfigSemantics(config.proto, config.locations, RuleVocabulary(), &problems);
  config.warnings = problems.WarningLines();
  return ConfigCheck{std::move(config), std::move(problems)};
}

// The config when no error was found, else every error.
absl::StatusOr<ValidatedConfig> Accepted(ConfigCheck check) {
  if (check.problems.has_errors() || !check.parsed.has_value()) return check.problems.ToStatus();
  return *std::move(check.parsed);
}

}  // namespace

ConfigCheck CheckConfigText(absl::string_view text, std::string source_name) {
  ProblemList problems(source_name);
  TextErrorCollector collector(text, &problems);
  google::protobuf::TextFormat::Parser parser;
  google::protobuf::TextFormat::ParseInfoTree tree;
  parser.RecordErrorsTo(&collector);
  parser.WriteLocationsTo(&tree);
  parser.AllowUnknownField(true);
  ValidatedConfig config;
  config.source_name = std::move(source_name);
  if (!parser.ParseFromString(std::string(text), &config.proto)) {
    // A real syntax error ends parsing; the message is half-filled, so
    // semantic checks would only add noise.
    if (!problems.has_errors()) {
      problems.Add(SourcePosition{}, "syntax error: the text parser failed");
    }
    return ConfigCheck{std::nullopt, std::move(problems)};
  }
  // Unknown-field warnings (if any) are already in `problems`; the rest of
  // the file parsed, so it is checked too and everything is reported at once.
  config.locations = IndexTextFieldLocations(config.proto, tree);
  return Finish(std::move(config), std::move(problems));
}

ConfigCheck CheckConfigJson(absl::string_view text, std::string source_name) {
  ProblemList problems(source_name);
  ValidatedConfig config;
  config.source_name = std::move(source_name);
  const bool syntax_ok = ScanJsonFieldLocations(
      text, Config::descriptor(), &config.locations, &problems);
  if (!syntax_ok) return ConfigCheck{std::nullopt, std::move(problems)};
  // With only unknown keys found, the rest still parses (skipping them), so
  // it is checked too and every problem is reported at once. Values of the
  // wrong kind make protobuf fail; the scanner has already located those.
  const bool scanner_found_problems = problems.has_errors();
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = scanner_found_problems;
  const auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(text.data(), text.size()), &config.proto,
      options);
  if (!status.ok()) {
    if (!scanner_found_problems) {
      problems.AddWithoutPosition(
          absl::StrCat("JSON does not fit the config schema: ",
                       std::string(status.message())));
    }
    return ConfigCheck{std::nullopt, std::move(problems)};
  }
  return Finish(std::move(config), std::move(problems));
}

absl::StatusOr<ValidatedConfig> ParseConfigText(absl::string_view text,
                                                std::string source_name) {
  return Accepted(CheckConfigText(text, std::move(source_name)));
}

absl::StatusOr<ValidatedConfig> ParseConfigJson(absl::string_view text,
                                                std::string source_name) {
  return Accepted(CheckConfigJson(text, std::move(source_name)));
}

absl::StatusOr<ConfigCheck> CheckConfigFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::NotFoundError(absl::StrCat("cannot open config file \"", path,
                                            "\": ", std::strerror(errno)));
  }
  std::stringstream contents;
  contents << file.rdbuf();
  if (file.bad()) {
    return absl::DataLossError(
        absl::StrCat("error while reading config file \"", path, "\""));
  }
  const std::string text = contents.str();
  const absl::string_view trimmed = absl::StripLeadingAsciiWhitespace(text);
  const bool is_json = absl::EndsWithIgnoreCase(path, ".json") ||
                       (!trimmed.empty() && trimmed.front() == '{');
  return is_json ? CheckConfigJson(text, path) : CheckConfigText(text, path);
}

absl::StatusOr<ValidatedConfig> LoadConfigFile(const std::string& path) {
  absl::StatusOr<ConfigCheck> check = CheckConfigFile(path);
  if (!check.ok()) return check.status();
  return Accepted(*std::move(check));
}

absl::StatusOr<ValidatedConfig> LoadStartupConfig(const std::optional<std::string>& config_path_env) {
  if (config_path_env.has_value() && !config_path_env->empty()) {
    auto loaded = LoadConfigFile(*config_path_env);
    if (!loaded.ok()) {
      return absl::Status(loaded.status().code(),
                          absl::StrCat("config named by $", kConfigPathEnvVar,
                                       " is unusable:\n",
                                       loaded.status().message()));
    }
    return loaded;
  }
  return DefaultConfig();
}

}  // namespace teplug::config
