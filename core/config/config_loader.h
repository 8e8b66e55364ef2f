// Reads a teplug config from text format or JSON into a ValidatedConfig.
//
// Every entry point either returns a config that passed all checks that do
// not need the provider list, or InvalidArgument whose message lists every
// problem found, one per line, each "source:line:col: message". Provider
// names are checked later by ValidateProviderNames (config_validation.h).
#ifndef TEPLUG_CORE_CONFIG_CONFIG_LOADER_H_
#define TEPLUG_CORE_CONFIG_CONFIG_LOADER_H_

#include <optional>
#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "core/config/problem_list.h"
#include "core/config/validated_config.h"

namespace teplug::config {

// What checking one config source found: every error and warning, and the
// parsed config whenever the syntax let it parse, even when other errors
// were found (so later checks, such as provider names, can still run on it).
struct ConfigCheck {
  std::optional<ValidatedConfig> parsed;
  ProblemList problems;
};

// The environment variable naming the config file to load at startup.
inline constexpr char kConfigPathEnvVar[] = "TEPLUG_CONFIG";

// Parses text format. Syntax errors and unknown field names are all reported
// (the parser skips unknown fields and keeps going; any other syntax error
// ends parsing, so it is the last one reported). `source_name` prefixes
// problem lines and rule locations.
absl::StatusOr<ValidatedConfig> ParseConfigText(absl::string_view text,
                                                std::string source_name);

// Parses JSON (proto3 JSON mapping; keys may be "strict_interfaces" or
// "strictInterfaces"). Positions come from json_field_locations.h, since
// protobuf's JSON parser reports none.
absl::StatusOr<ValidatedConfig> ParseConfigJson(absl::string_view text,
                                                std::string source_name);

// The same checks as ParseConfigText / ParseConfigJson / LoadConfigFile,
// keeping the parsed config and every problem (errors and warnings) instead
// of a Status: for `teplug validate`, which reports everything in one pass.
// CheckConfigFile fails (NotFound, DataLoss) only when the file cannot be read.
ConfigCheck CheckConfigText(absl::string_view text, std::string source_name);
ConfigCheck CheckConfigJson(absl::string_view text, std::string source_name);
absl::StatusOr<ConfigCheck> CheckConfigFile(const std::string& path);

// Reads `path` and parses it as JSON when its name ends in ".json" or its
// first non-blank character is '{', as text format otherwise. NotFound when
// the file cannot be read.
absl::StatusOr<ValidatedConfig> LoadConfigFile(const std::string& path);

// The config to start with, given the value of $TEPLUG_CONFIG (read by the
// caller, with secure_getenv): the file it names when set and non-empty,
// otherwise the embedded default (default_config.h). A file that cannot be
// used is an error naming the variable and every problem.
absl::StatusOr<ValidatedConfig> LoadStartupConfig(const std::optional<std::string>& config_path_env);

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_CONFIG_LOADER_H_
