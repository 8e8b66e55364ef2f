// The part of a parsed config that says which plugins to load and how, as
// text format: for `teplug validate`, which loads a config's plugins to learn
// the provider names even when the rest of the config has errors.
#ifndef TEPLUG_CORE_CONFIG_PLUGINS_ONLY_CONFIG_H_
#define TEPLUG_CORE_CONFIG_PLUGINS_ONLY_CONFIG_H_

#include <string>

#include "core/config/validated_config.h"

namespace teplug::config {

// A text-format config holding `config`'s plugins entries and its plugin
// loading settings (allow_insecure_plugin_permissions, probe,
// probe_timeout_ms), and nothing else. `required` is cleared, so a refused
// plugin is reported like any other instead of stopping the kernel that
// loads them (the caller says which were required). Each plugins entry stands on the line
// it had in `config`'s source, so a load report citing "FILE:LINE" points at
// the operator's file. Entries and settings the checks refuse (an empty or
// repeated path, a malformed sha256 pin, an out-of-range timeout) are left
// out, so the result is always a valid config.
std::string PluginsOnlyConfigText(const ValidatedConfig& config);

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_PLUGINS_ONLY_CONFIG_H_
