// Transactional loading of one provider.
//
// LoadPluginFile: resolve the path -> file security check (unless the
// policy allows insecure files: then one WARN says the check failed and was
// overridden) -> sha256 pin -> ELF header check (elf_check.h) -> the
// pre-flight probe in a forked child, when the policy or the candidate asks
// for it (plugin_probe.h) -> dlopen(RTLD_NOW | RTLD_LOCAL) ->
// dlsym(teplug_plugin_entry), which must be a function (entry_symbol.h) ->
// run the entry with a host API whose
// registrar stages and validates every registration -> validate the
// TeplugPluginInfo (name [a-z0-9_-]{1,63}, vendor, version, ABI overlap) ->
// the provider name must not be taken -> build the Provider and its
// Implementations. LoadBuiltin runs the same protocol from the entry step.
//
// These functions NEVER touch a registry: on success the caller commits the
// returned provider and implementations (atomically, in one registry
// update); on failure nothing was staged anywhere. On failure every staged
// object reference is released while the library is still loaded, the
// library is dlclosed, and the returned status reads
//   "plugin <path> (<origin>) refused: <reason>"
//   "built-in provider <label> refused: <reason>"
// LOGGING: the loader logs exactly one WARN line per refusal (that same
// message) through `logger`. Callers must not log the refusal again; they
// record it in the load report (RefusedReportEntry) and, for a required
// candidate, fail kernel creation with the returned status.
#ifndef TEPLUG_CORE_LOADER_PLUGIN_LOADER_H_
#define TEPLUG_CORE_LOADER_PLUGIN_LOADER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "core/builtin/builtin_providers.h"
#include "core/loader/discovery.h"
#include "core/loader/load_report.h"
#include "core/loader/provider_options.h"
#include "core/log/logger.h"
#include "core/registry/implementation.h"
#include "teplug/abi_base.h"

namespace teplug::core {

struct LoadPolicy {
  // The ABI range this host offers plugins (TeplugHostApi.abi_min/max).
  uint32_t host_abi_min = TEPLUG_ABI_VERSION_MAJOR_FIRST;
  uint32_t host_abi_max = TEPLUG_ABI_VERSION_CURRENT;
  // Config allow_insecure_plugin_permissions: load files that fail
  // CheckPluginFileSecurity, logging a WARN that says so.
  bool allow_insecure_permissions = false;
  // Probe every plugin in a forked child before loading it (plugin_probe.h);
  // a candidate may ask for it alone (PluginCandidate::probe).
  bool probe = false;
  // How long a probe child may take before it is killed and the plugin refused.
  absl::Duration probe_timeout = absl::Seconds(10);
  // The options the config gives providers, answered by get_option during
  // the entry (null: none).
  std::shared_ptr<const ProviderOptions> provider_options;
};

struct LoadedProvider {
  std::shared_ptr<const Provider> provider;
  // In registration order.
  std::vector<std::shared_ptr<const Implementation>> implementations;
  // Registrations skipped without refusing the plugin (unknown interface
  // ids), each with its reason; logged at INFO and kept in the load report.
  std::vector<std::string> skipped;
};

// Whether a provider name is already registered (built-ins, earlier
// plugins): the registered provider's source (its escaped path, or
// "built-in"), or nullopt when the name is free.
using ProviderNameTaken = std::function<std::optional<std::string>(absl::string_view name)>;

// The refusal reason for a provider whose name is taken: names the file
// already registered under `name` (`registered_source`: a path or
// "built-in") and the refused one, and says how to resolve it, e.g.
// `duplicate provider name "fast": /b/libteplug_fast2.so declares the name
// already registered by /a/libteplug_fast.so; remove one of the two from the
// plugin search path or the config's plugins list, or rename one provider`.
std::string DuplicateProviderReason(absl::string_view name, absl::string_view registered_source,
                                    absl::string_view refused_source);

// Loads the library `candidate.path` (resolved again here, so API callers
// may pass any path). `logger` may be null (then a stderr WARN logger).
absl::StatusOr<LoadedProvider> LoadPluginFile(const PluginCandidate& candidate,
                                              const LoadPolicy& policy,
                                              const ProviderNameTaken& provider_name_taken,
                                              std::shared_ptr<Logger> logger);

// Runs a built-in's entry through the same transaction (no file, no dlopen).
// The built-in sees TeplugHostApi.plugin_path "built-in"; its Provider has
// builtin = true and source "built-in".
absl::StatusOr<LoadedProvider> LoadBuiltin(const BuiltinProvider& builtin,
                                           const LoadPolicy& policy,
                                           const ProviderNameTaken& provider_name_taken,
                                           std::shared_ptr<Logger> logger);

// Load-report entries for the two outcomes. Implementation names read
// "<interface>/<name>" ("gemm/naive-fp32"); a refusal's reason is what the
// loader refused it for (carried in the status, not parsed from its message).
LoadReportEntry LoadedReportEntry(const PluginCandidate& candidate, const LoadedProvider& loaded);
LoadReportEntry RefusedReportEntry(const PluginCandidate& candidate, const absl::Status& status);
// The candidate a built-in is reported as: path "built-in", origin
// "built-in <label>".
PluginCandidate BuiltinCandidate(const BuiltinProvider& builtin);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_LOADER_PLUGIN_LOADER_H_
