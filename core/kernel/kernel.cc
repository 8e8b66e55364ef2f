#include "core/kernel/kernel.h"

#include <algorithm>
#include <array>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/builtin/builtin_providers.h"
#include "core/config/config_loader.h"
#include "core/config/config_validation.h"
#include "core/config/default_config.h"
#include "core/kernel/dispatch_objects.h"
#include "core/kernel/kernel_core.h"
#include "core/loader/plugin_loader.h"
#include "core/log/untrusted_text.h"
#include "core/ops/modules.h"

namespace teplug::core {
namespace {

EnvLookup EffectiveEnv(const KernelOptions& o) {
  if (!o.use_environment) return [](const char*) -> std::optional<std::string> { return std::nullopt; };
  return o.env ? o.env : SecureEnv();
}

absl::StatusOr<config::ValidatedConfig> LoadInitialConfig(const KernelOptions& o, const EnvLookup& env) {
  if (!o.config_text.empty()) return config::ParseConfigText(o.config_text, o.config_source_name);
  if (!o.config_path.empty()) return config::LoadConfigFile(o.config_path);
  return config::LoadStartupConfig(env(config::kConfigPathEnvVar));
}

// Log level precedence: API option, then TEPLUG_LOG, then the config.
void ApplyLogLevel(const KernelOptions& o, const EnvLookup& env, const config::ConfigSnapshot& cfg,
                   Logger* logger) {
  if (o.log_level) {
    logger->set_level(*o.log_level);
    return;
  }
  if (std::optional<std::string> text = env("TEPLUG_LOG"); text && !text->empty()) {
    if (std::optional<LogLevel> l = ParseLogLevel(*text)) {
      logger->set_level(*l);
      return;
    }
    logger->Log(LogLevel::kWarn, absl::StrCat("TEPLUG_LOG=", *text,
                                              " is not one of error, warn, info, debug; using the config's level"));
  }
  if (cfg.log_level_set()) logger->set_level(cfg.log_level());
}

// TEPLUG_PLUGIN_PROBE=1 probes every plugin; unset, empty or 0 leaves it to
// the options and the config; anything else is a warning.
bool ProbeFromEnvironment(const EnvLookup& env, const Logger& logger) {
  std::optional<std::string> value = env("TEPLUG_PLUGIN_PROBE");
  if (!value || value->empty() || *value == "0") return false;
  if (*value == "1") return true;
  logger.Log(LogLevel::kWarn, absl::StrCat("TEPLUG_PLUGIN_PROBE=", EscapeUntrustedText(*value),
                                           " is neither 1 nor 0; the pre-flight probe stays as the "
                                           "options and the config set it"));
  return false;
}

struct ModuleOp {
  const InterfaceModule* module;
  const OpSpec* spec;
};
// The interface and op a caller names, or INVALID_ARGUMENT saying which is unknown.
absl::StatusOr<ModuleOp> FindModuleOp(const TeplugIID& iid, int32_t op) {
  const InterfaceModule* module = ModuleOfIid(iid);
  if (module == nullptr) return absl::InvalidArgumentError("unknown interface id");
  const OpSpec* spec = module->FindOp(op);
  if (spec == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("op ", op, " is not an op of ", module->display_name()));
  }
  return ModuleOp{module, spec};
}

// TEPLUG_CHECK_PREPARED=1 checks every call of a prepared op; unset, empty
// or 0 leaves it to the options; anything else is a warning.
bool CheckPreparedFromEnvironment(const EnvLookup& env, const Logger& logger) {
  std::optional<std::string> value = env("TEPLUG_CHECK_PREPARED");
  if (!value || value->empty() || *value == "0") return false;
  if (*value == "1") return true;
  logger.Log(LogLevel::kWarn, absl::StrCat("TEPLUG_CHECK_PREPARED=", EscapeUntrustedText(*value),
                                           " is neither 1 nor 0; prepared calls are checked as the options say"));
  return false;
}

LoadPolicy PolicyFor(const KernelOptions& o, const EnvLookup& env, const config::ConfigSnapshot& cfg,
                     const Logger& logger) {
  LoadPolicy p;
  p.host_abi_min = TEPLUG_ABI_VERSION_MAJOR_FIRST;
  p.host_abi_max = TEPLUG_ABI_VERSION_CURRENT;
  p.allow_insecure_permissions = o.allow_insecure_plugin_permissions || cfg.allow_insecure_plugin_permissions();
  p.probe = o.probe_plugins || cfg.probe_all_plugins() || ProbeFromEnvironment(env, logger);
  if (o.probe_timeout) {
    p.probe_timeout = *o.probe_timeout;
  } else if (std::optional<int32_t> ms = cfg.probe_timeout_ms()) {
    p.probe_timeout = absl::Milliseconds(*ms);
  }
  p.provider_options = cfg.provider_options();
  return p;
}

// Merges the device-kind and vendor names `provider` declares into `state`
// (a new table: published states share the old one) and recompiles the
// config so its rules match the names; logs a warning for each name a
// provider loaded earlier overrides.
void AddDeviceNames(KernelState* state, const Provider& provider, const Logger& logger) {
  if (provider.device_kind_names.empty() && provider.vendor_names.empty()) return;
  auto names = std::make_shared<DeviceNames>(*state->device_names);
  for (const std::string& w : names->Add(provider)) logger.Log(LogLevel::kWarn, w);
  state->device_names = std::move(names);
  state->config = config::ConfigSnapshot::Create(state->device_names->Canonical(state->config->config()),
                                                 state->config->generation());
}

// The config's device kinds and vendors that no provider declares: appended
// to the config warnings (errors in `teplug validate`).
void AddUnknownDeviceNameWarnings(KernelState* state) {
  for (std::string& w : state->device_names->UnknownNames(state->config->config())) {
    state->config_warnings.push_back(std::move(w));
  }
}

// Adds a loaded provider to `state` (not yet published) and records it.
void Commit(KernelState* state, const PluginCandidate& candidate, LoadedProvider loaded, const Logger& logger) {
  AddDeviceNames(state, *loaded.provider, logger);
  state->report.push_back(
      std::make_shared<const LoadReportEntry>(LoadedReportEntry(candidate, loaded)));
  // The lists are shared with published states and decisions, so each one
  // the provider adds to is copied (once), extended and the new entries
  // merged in: linear in the list, plus k log k for the k new ones.
  std::vector<std::shared_ptr<ImplementationList>> grown(state->impls.size());
  for (const auto& impl : loaded.implementations) {
    const auto index = static_cast<size_t>(impl->module->index());
    std::shared_ptr<ImplementationList>& list = grown[index];
    if (list == nullptr) {
      const ImplementationList& current = *state->impls[index];
      list = std::make_shared<ImplementationList>();
      list->reserve(current.size() + loaded.implementations.size());
      list->assign(current.begin(), current.end());
    }
    list->push_back(impl);
  }
  for (size_t k = 0; k < grown.size(); ++k) {
    if (grown[k] == nullptr) continue;
    MergeImplementations(grown[k].get(), state->impls[k]->size());
    state->impls[k] = std::move(grown[k]);
  }
  auto by_name = [](const auto& a, const auto& b) { return a->name < b->name; };
  state->providers.insert(
      std::upper_bound(state->providers.begin(), state->providers.end(), loaded.provider, by_name),
      loaded.provider);
}

// Each loaded provider with the interfaces it implements (config names).
std::vector<config::ProviderOffer> ProviderOffers(const KernelState& s) {
  std::vector<config::ProviderOffer> offers;
  absl::flat_hash_map<const Provider*, size_t> index_of;
  for (const auto& p : s.providers) {
    index_of[p.get()] = offers.size();
    offers.push_back({p->name, {}});
  }
  for (const auto& list : s.impls) {
    for (const auto& impl : *list) {
      auto it = index_of.find(impl->provider.get());
      if (it == index_of.end()) continue;
      std::vector<std::string>& interfaces = offers[it->second].interfaces;
      const std::string name = impl->module->name();
      if (std::find(interfaces.begin(), interfaces.end(), name) == interfaces.end()) interfaces.push_back(name);
    }
  }
  return offers;
}

// The config's own warnings, unknown provider names and allow lists that
// leave ops with no provider: warnings at run time (one config may serve a
// mixed fleet where not every node has every provider); `teplug validate`
// treats unknown provider names as errors.
std::vector<std::string> ProviderNameWarnings(const config::ConfigSnapshot& cfg, const KernelState& s) {
  return config::RunTimeConfigWarnings(cfg.config(), ProviderOffers(s));
}

}  // namespace

const DecisionRecord& Selection::record() const { return decision->record(); }

Kernel::Kernel(std::shared_ptr<KernelCore> core) : core_(std::move(core)) {}
Kernel::~Kernel() = default;

absl::StatusOr<std::unique_ptr<Kernel>> Kernel::Create(KernelOptions options) {
  auto logger = options.log_sink ? std::make_shared<Logger>(LogLevel::kWarn, options.log_sink)
                                 : std::make_shared<Logger>(LogLevel::kWarn);
  const EnvLookup env = EffectiveEnv(options);
  absl::StatusOr<config::ValidatedConfig> cfg = LoadInitialConfig(options, env);
  if (!cfg.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("teplug: invalid config:\n", cfg.status().message()));
  }
  auto state = std::make_unique<KernelState>(InterfaceModules().size());
  state->config = config::ConfigSnapshot::Create(state->device_names->Canonical(*std::move(cfg)), 1);
  ApplyLogLevel(options, env, *state->config, logger.get());
  const LoadPolicy policy = PolicyFor(options, env, *state->config, *logger);
  options.check_prepared_calls = options.check_prepared_calls || CheckPreparedFromEnvironment(env, *logger);
  auto taken = [&](absl::string_view name) { return state->ProviderSource(name); };

  if (options.load_builtins) {
    for (const BuiltinProvider& b : BuiltinProviders()) {
      absl::StatusOr<LoadedProvider> loaded = LoadBuiltin(b, policy, taken, logger);
      if (loaded.ok()) {
        Commit(state.get(), BuiltinCandidate(b), *std::move(loaded), *logger);
      } else {
        state->report.push_back(std::make_shared<const LoadReportEntry>(
            RefusedReportEntry(BuiltinCandidate(b), loaded.status())));
      }
    }
  }

  std::vector<PluginCandidate> from_api;
  for (const std::string& p : options.plugin_paths) from_api.push_back({p, "api", false, ""});
  std::vector<LoadReportEntry> refused;
  std::vector<PluginCandidate> candidates = DiscoverPlugins(state->config.get(), from_api, env, &refused, logger);
  for (LoadReportEntry& r : refused) {
    if (r.required) {
      return absl::FailedPreconditionError(
          absl::StrCat("teplug: required ", RefusalLine(r)));
    }
    state->report.push_back(std::make_shared<const LoadReportEntry>(std::move(r)));
  }
  for (const PluginCandidate& c : candidates) {
    absl::StatusOr<LoadedProvider> loaded = LoadPluginFile(c, policy, taken, logger);
    if (loaded.ok()) {
      Commit(state.get(), c, *std::move(loaded), *logger);
      continue;
    }
    if (c.required) {
      return absl::FailedPreconditionError(absl::StrCat("teplug: required ", loaded.status().message()));
    }
    state->report.push_back(
        std::make_shared<const LoadReportEntry>(RefusedReportEntry(c, loaded.status())));
  }

  state->config_warnings = ProviderNameWarnings(*state->config, *state);
  AddUnknownDeviceNameWarnings(state.get());
  for (const std::string& w : state->config_warnings) logger->Log(LogLevel::kWarn, w);
  auto core = std::make_shared<KernelCore>(std::move(options), logger, std::move(state));
  return std::unique_ptr<Kernel>(new Kernel(std::move(core)));
}

sdk::Ref<TeplugObject> Kernel::QueryInterface(const TeplugIID& iid) const {
  const InterfaceModule* module = ModuleOfIid(iid);
  if (module == nullptr) return sdk::Ref<TeplugObject>();
  return sdk::Ref<TeplugObject>::Adopt(MakeDispatchObject(core_, *module));
}

std::optional<int32_t> Kernel::OpNumber(const TeplugIID& iid, absl::string_view op_name) {
  const InterfaceModule* module = ModuleOfIid(iid);
  const OpSpec* op = module != nullptr ? module->FindOp(op_name) : nullptr;
  if (op == nullptr) return std::nullopt;
  return op->op;
}

absl::StatusOr<sdk::Ref<TeplugObject>> Kernel::PrepareObject(const TeplugIID& iid, int32_t op,
                                                              const void* args) const {
  absl::StatusOr<ModuleOp> m = FindModuleOp(iid, op);
  if (!m.ok()) return m.status();
  absl::StatusOr<std::unique_ptr<PreparedOp>> prepared =
      core_->Prepare(*m->module, *m->spec, args, core_->options().check_prepared_calls);
  if (!prepared.ok()) return prepared.status();
  return sdk::Ref<TeplugObject>::Adopt(MakePreparedObject(core_, *m->module, *std::move(prepared)));
}

absl::StatusOr<Decision> Kernel::Decide(const TeplugIID& iid, int32_t op, const void* args,
                                        absl::string_view provider) const {
  absl::StatusOr<ModuleOp> m = FindModuleOp(iid, op);
  if (!m.ok()) return m.status();
  auto guard = core_->state().Read();
  return core_->DecideNow(*guard, *m->module, *m->spec, args, provider);
}

absl::StatusOr<DecisionRecord> Kernel::Explain(const TeplugIID& iid, int32_t op, const void* args,
                                               absl::string_view provider) const {
  absl::StatusOr<Decision> d = Decide(iid, op, args, provider);
  if (!d.ok()) return d.status();
  return d->record();
}

absl::StatusOr<Selection> Kernel::Select(const TeplugIID& iid, int32_t op, const void* args,
                                         absl::string_view provider) const {
  absl::StatusOr<Decision> d = Decide(iid, op, args, provider);
  if (!d.ok()) return d.status();
  if (d->ranked.empty()) {
    return absl::NotFoundError(absl::StrCat("teplug: no provider",
                                            provider.empty() ? "" : absl::StrCat(" named \"", provider, "\""),
                                            " can serve ", d->op_summary(), "\n",
                                            d->record().Format()));
  }
  Selection s;
  s.implementation = d->Shared(0);
  s.decision = std::make_shared<const Decision>(*std::move(d));
  return s;
}

absl::Status Kernel::LoadPlugin(const std::string& path) {
  auto guard_state = [&] { return core_->state().Read(); };
  const LoadPolicy policy =
      PolicyFor(core_->options(), EffectiveEnv(core_->options()), *guard_state()->config, core_->logger());
  PluginCandidate c{path, "api", false, ""};
  absl::StatusOr<LoadedProvider> loaded =
      LoadPluginFile(c, policy, [&](absl::string_view name) { return guard_state()->ProviderSource(name); },
                     core_->shared_logger());
  absl::Status result = loaded.status();
  core_->state().Update([&](const KernelState& current) {
    std::unique_ptr<KernelState> next = current.CopyWithoutCache();
    const Provider* registered = loaded.ok() ? next->FindProvider(loaded->provider->name) : nullptr;
    if (registered != nullptr) {
      // Another thread registered the same name meanwhile: refuse this one.
      result = absl::AlreadyExistsError(absl::StrCat(
          "plugin ", EscapeUntrustedText(path), " (api) refused: ",
          DuplicateProviderReason(registered->name, registered->source, loaded->provider->source)));
      core_->logger().Log(LogLevel::kWarn, result.message());  // the loader saw no refusal to log
    }
    if (result.ok()) {
      Commit(next.get(), c, *std::move(loaded), core_->logger());
    } else {
      next->report.push_back(
          std::make_shared<const LoadReportEntry>(RefusedReportEntry(c, result)));
    }
    next->config_warnings = ProviderNameWarnings(*next->config, *next);
    AddUnknownDeviceNameWarnings(next.get());
    return next;
  });
  return result;
}

namespace {
// One warning per loaded provider whose options `after` changes from
// `before`: a provider reads its options when it loads, so a reload does not
// reach it, and the operator must hear that rather than assume it did.
std::vector<std::string> ChangedOptionWarnings(const KernelState& state, const config::ConfigSnapshot& before,
                                               const config::ConfigSnapshot& after) {
  static const ProviderOptions::mapped_type kNone;
  auto options_of = [](const config::ConfigSnapshot& c, const std::string& provider) -> const auto& {
    auto it = c.provider_options()->find(provider);
    return it == c.provider_options()->end() ? kNone : it->second;
  };
  std::vector<std::string> out;
  for (const auto& p : state.providers) {
    if (options_of(before, p->name) == options_of(after, p->name)) continue;
    out.push_back(absl::StrCat(after.source_name(), ": the options of provider \"", p->name,
                               "\" changed; a provider reads its options when it loads, so ", p->name,
                               " keeps the ones it loaded with until the process restarts"));
  }
  return out;
}

absl::Status Install(KernelCore& core, absl::StatusOr<config::ValidatedConfig> cfg) {
  if (!cfg.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("teplug: invalid config (the running config is unchanged):\n",
                                                   cfg.status().message()));
  }
  std::shared_ptr<const config::ConfigSnapshot> snapshot;
  std::vector<std::string> warnings;
  core.state().Update([&](const KernelState& current) {
    std::unique_ptr<KernelState> next = current.CopyWithoutCache();
    next->config = config::ConfigSnapshot::Create(current.device_names->Canonical(*std::move(cfg)),
                                                  current.config->generation() + 1);
    next->config_warnings = ProviderNameWarnings(*next->config, *next);
    AddUnknownDeviceNameWarnings(next.get());
    warnings = next->config_warnings;
    for (std::string& w : ChangedOptionWarnings(current, *current.config, *next->config)) {
      warnings.push_back(std::move(w));
    }
    snapshot = next->config;
    return next;
  });
  ApplyLogLevel(core.options(), EffectiveEnv(core.options()), *snapshot, &core.logger());
  for (const std::string& w : warnings) core.logger().Log(LogLevel::kWarn, w);
  core.logger().Log(LogLevel::kInfo, absl::StrCat("config generation ", snapshot->generation(), " from ",
                                                  snapshot->source_name(), " installed"));
  return absl::OkStatus();
}
}  // namespace

absl::Status Kernel::ReloadConfigText(const std::string& text, const std::string& source_name) {
  return Install(*core_, config::ParseConfigText(text, source_name));
}

absl::Status Kernel::ReloadConfigFile(const std::string& path) {
  return Install(*core_, config::LoadConfigFile(path));
}

std::vector<LoadReportEntry> Kernel::LoadReport() const {
  auto state = core_->state().Read();
  std::vector<LoadReportEntry> out;
  out.reserve(state->report.size());
  for (const auto& e : state->report) out.push_back(*e);
  return out;
}

std::vector<std::string> Kernel::ConfigWarnings() const { return core_->state().Read()->config_warnings; }

std::string Kernel::ConfigSourceName() const { return core_->state().Read()->config->source_name(); }

std::vector<std::string> Kernel::UnknownDeviceNames(const config::ValidatedConfig& config) const {
  return core_->state().Read()->device_names->UnknownNames(config);
}

std::shared_ptr<const DeviceNames> Kernel::DeviceNaming() const { return core_->state().Read()->device_names; }

DeviceListing Kernel::ListDevices() const {
  auto state = core_->state().Read();
  DeviceListing out;
  for (const InterfaceModule* module : InterfaceModules()) {
    for (const auto& impl : *state->impls[static_cast<size_t>(module->index())]) {
      if (absl::Status st = module->ListDevices(*impl, &out.devices); !st.ok()) {
        out.problems.push_back(absl::StrCat(impl->QualifiedName(), ": ", st.message()));
      }
    }
  }
  return out;
}

std::vector<ProviderListing> Kernel::ListProviders() const {
  auto state = core_->state().Read();
  std::vector<ProviderListing> out;
  out.reserve(state->providers.size());
  absl::flat_hash_map<const Provider*, size_t> index_of;  // provider -> its listing in `out`
  for (const auto& p : state->providers) {
    ProviderListing l;
    l.name = p->name;
    l.vendor = p->vendor;
    l.version = p->version;
    l.source = p->source;
    l.abi_min = p->abi_min;
    l.abi_max = p->abi_max;
    l.builtin = p->builtin;
    l.enabled = state->config->ProviderEnabled(p->name);
    for (const auto& [kind, name] : p->device_kind_names) l.declared_names.push_back(absl::StrCat("device kind ", kind, " = ", name));
    for (const auto& [id, name] : p->vendor_names) l.declared_names.push_back(absl::StrCat("vendor ", VendorName(id), " = ", name));
    index_of.emplace(p.get(), out.size());
    out.push_back(std::move(l));
  }
  // One pass over the registry (by interface, then provider and name), each
  // implementation appended to its provider's listing.
  for (const auto& impls : state->impls) {
    for (const auto& impl : *impls) {
      auto at = index_of.find(impl->provider.get());
      if (at == index_of.end()) continue;
      ProviderListing& l = out[at->second];
      ImplementationListing il;
      il.interface_name = impl->module->display_name();
      il.name = impl->QualifiedName();
      il.default_priority = impl->default_priority;
      std::optional<int> o = state->config->PriorityOverride(l.name, impl->module->name());
      if (o) il.config_priority = *o;
      il.capability_summary = state->device_names->Rename(SummarizeCapability(impl->capability));
      il.capability_fields = CapabilityFields(impl->capability);
      for (std::string& device : il.capability_fields.front().members) {
        device = state->device_names->Rename(device);
      }
      l.implementations.push_back(std::move(il));
    }
  }
  return out;
}

Logger& Kernel::logger() const { return core_->logger(); }

}  // namespace teplug::core
