// The configuration used when no config file is given.
//
// Its source of truth is default.textproto in this folder; the build embeds
// that file's text (genrule "default_config_text") so the shipped default
// and the documented file cannot drift apart.
#ifndef TEPLUG_CORE_CONFIG_DEFAULT_CONFIG_H_
#define TEPLUG_CORE_CONFIG_DEFAULT_CONFIG_H_

#include "absl/status/statusor.h"
#include "core/config/validated_config.h"

namespace teplug::config {

// The text of default.textproto, embedded at build time.
extern const char* const kDefaultConfigText;

// The source name used for the embedded default in problems and decision
// records.
inline constexpr char kDefaultConfigSourceName[] = "<default.textproto>";

// Parses and validates kDefaultConfigText. Fails only if the embedded file
// is broken, which default_config_test guards against.
absl::StatusOr<ValidatedConfig> DefaultConfig();

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_DEFAULT_CONFIG_H_
