// Plugin discovery: which library files to try, in
// which order, deduplicated by resolved path. Discovery only lists files;
// plugin_loader.h loads them.
//
// Order: config `plugins` entries (file order), entries passed through the
// API, TEPLUG_PLUGINS (':'-separated library paths), TEPLUG_PLUGIN_PATH
// (':'-separated directories; every libteplug_*.so in each, sorted by name),
// then NVTE_PLUGIN (TransformerEngine's variable, which TransformerEngine
// reads as a Python module name: teplug takes it as one library only when it
// names a path, i.e. contains '/' or ends in ".so"; any other value is left
// to TransformerEngine with one DEBUG line saying so).
//
// TEPLUG_PLUGINS=none turns off ENVIRONMENT discovery only (TEPLUG_PLUGINS,
// TEPLUG_PLUGIN_PATH, NVTE_PLUGIN): entries written in the config or passed
// through the API are explicit requests by whoever built the kernel, and a
// variable in someone's shell must not silently drop them (a required one
// would otherwise turn into a confusing startup failure).
#ifndef TEPLUG_CORE_LOADER_DISCOVERY_H_
#define TEPLUG_CORE_LOADER_DISCOVERY_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/config/config_snapshot.h"
#include "core/loader/load_report.h"
#include "core/log/logger.h"

namespace teplug::core {

struct PluginCandidate {
  // After discovery: the resolved path (realpath).
  std::string path;
  // "config teplug.textproto:7", "TEPLUG_PLUGINS", "TEPLUG_PLUGIN_PATH /dir",
  // "NVTE_PLUGIN", "api" (the default for API entries given without one).
  std::string origin;
  // Failing to load it fails kernel creation.
  bool required = false;
  // Hex SHA-256 pin (either case), or empty for none.
  std::string sha256;
  // Run the pre-flight probe before loading it (config `probe: true` on the
  // entry; LoadPolicy::probe turns it on for every candidate).
  bool probe = false;
};

// The load report entry of a candidate refused for `reason`, its path, origin
// and reason escaped (EscapeUntrustedText): they may hold any byte.
LoadReportEntry RefusedEntry(const PluginCandidate& candidate, std::string reason);

// Reads an environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const char* name)>;

// The process environment read with secure_getenv: in a setuid/setgid
// process every variable reads as unset, so an unprivileged user cannot
// point a privileged process at their own plugin.
EnvLookup SecureEnv();

// Lists the candidates in the order above. Config paths that are relative
// are resolved against the directory of the config file (its source_name),
// other relative paths against the working directory. A duplicate (same
// realpath) keeps the first occurrence's position and origin, becomes
// required if any occurrence is, and takes the first sha256 pin; two
// different pins for one file make it a refused entry. A path that does not
// exist (or a TEPLUG_PLUGIN_PATH directory that cannot be read) becomes an
// entry of `refused` (loaded = false, the origin, the reason), not an error.
// `config` may be null. When `logger` is given, each refused entry is
// logged as exactly one WARN line; without it the caller logs them.
std::vector<PluginCandidate> DiscoverPlugins(const config::ConfigSnapshot* config,
                                             const std::vector<PluginCandidate>& from_api,
                                             const EnvLookup& env,
                                             std::vector<LoadReportEntry>* refused,
                                             const std::shared_ptr<Logger>& logger = nullptr);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_LOADER_DISCOVERY_H_
