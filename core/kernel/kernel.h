// The teplug kernel: the C++ API framework code uses.
//
//   auto kernel = teplug::core::Kernel::Create({}).value();   // built-ins, discovery, config
//   auto attention = kernel->Query<TeplugAttentionV1>(teplug::sdk::kIidAttentionV1);
//   attention->vtbl->forward(attention.get(), &args);            // selected per call
//
// QueryInterface returns a dispatching object implementing the interface: it
// selects an implementation per call (decisions cached per op signature),
// falls back on UNSUPPORTED/UNAVAILABLE unless strict, and says why. Prepare
// returns a dispatching object that has already decided one op for one
// signature, for hot loops that repeat it: its calls skip the per-call key
// and keep fallback, strict mode and the error handling. Select returns the
// chosen implementation itself, without any of that, and can name a provider
// ("native") to reach it even when another would win.
#ifndef TEPLUG_CORE_KERNEL_KERNEL_H_
#define TEPLUG_CORE_KERNEL_KERNEL_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "core/config/validated_config.h"
#include "core/loader/discovery.h"
#include "core/loader/load_report.h"
#include "core/log/logger.h"
#include "core/ops/capability_fields.h"
#include "core/registry/implementation.h"
#include "core/select/decision_record.h"
#include "core/select/selector.h"
#include "teplug/sdk/ref.hpp"
#include "teplug/teplug.h"

namespace teplug::core {

struct KernelOptions {
  // Config: text wins over path; with neither, $TEPLUG_CONFIG, else the
  // embedded default config.
  std::string config_text;
  std::string config_source_name = "<api config>";  // file name shown in messages for config_text
  std::string config_path;
  // Plugins named by the API, loaded after config plugins.
  std::vector<std::string> plugin_paths;
  // Read TEPLUG_PLUGINS / TEPLUG_PLUGIN_PATH / NVTE_PLUGIN / TEPLUG_CONFIG /
  // TEPLUG_LOG (with secure_getenv, or `env` when set).
  bool use_environment = true;
  EnvLookup env;
  // Overrides TEPLUG_LOG and the config's log_level.
  std::optional<LogLevel> log_level;
  Logger::Sink log_sink;  // default: stderr
  // Load providers registered with TEPLUG_REGISTER_BUILTIN_PROVIDER.
  bool load_builtins = true;
  // Every op strict (no call-time fallback), whatever the config says.
  bool strict = false;
  // Load plugins despite loose file permissions (logged as a warning).
  bool allow_insecure_plugin_permissions = false;
  // Probe every plugin in a forked child before loading it in-process
  // (core/loader/plugin_probe.h). Also on when the config says `probe: true`
  // or TEPLUG_PLUGIN_PROBE=1 is set; a config plugin entry may ask for it alone.
  bool probe_plugins = false;
  // How long a probe may take; unset: the config's probe_timeout_ms, else 10 s.
  std::optional<absl::Duration> probe_timeout;
  // Every call of a prepared op (Prepare) checks that it has the facts the
  // op was prepared for, and is refused with INVALID_ARGUMENT when it has
  // not: a debugging aid that costs the per-call key the preparation saves.
  // Also on with TEPLUG_CHECK_PREPARED=1.
  bool check_prepared_calls = false;
};

// The chosen implementation of one op, with the reason.
struct Selection {
  std::shared_ptr<const Implementation> implementation;  // keeps its library loaded
  std::shared_ptr<const Decision> decision;
  // Why: every candidate's verdict (its text formatted when read).
  const DecisionRecord& record() const;
  // The implementation's object, add_ref'd; cast to the interface struct.
  template <class T>
  T* as() const {
    return reinterpret_cast<T*>(implementation->object.get());
  }
};

// One row of `teplug list`.
struct ImplementationListing {
  std::string interface_name;  // "IAttention/1"
  std::string name;            // "provider/name"
  int32_t default_priority = 0;
  std::optional<int32_t> config_priority;
  std::string capability_summary;
  // Every field of its capability descriptor: "devices" (named as the
  // providers declared), then the interface's fields in struct order.
  std::vector<CapabilityField> capability_fields;
};
struct ProviderListing {
  std::string name, vendor, version, source;
  uint32_t abi_min = 0, abi_max = 0;
  bool builtin = false;
  bool enabled = true;
  // The names it declared: "device kind 1100 = gaudi", "vendor 0x1da3 = habana".
  std::vector<std::string> declared_names;
  std::vector<ImplementationListing> implementations;
};

// What `teplug list` shows under devices: every device the registered
// device implementations (IDevice) serve, in registry order.
struct DeviceListing {
  std::vector<ServedDevice> devices;
  // One line per implementation whose enumeration failed (its devices are
  // missing from `devices`), naming it and the call.
  std::vector<std::string> problems;
};

// Which implementation served the ops this thread calls through dispatching
// objects: after call-time fallback that is not the first choice a decision
// record names, so a tool that credits providers (`teplug run`) asks this.
// While a recorder lives on a thread, every op a dispatching object serves on
// that thread (and every collective op run on a communicator it created)
// stores the qualified name of the implementation that returned success.
// Recorders nest: the newest records until it ends. Create and destroy one
// on the same thread. Without one, a dispatched call pays a thread-local
// load and a branch not taken.
class ServedByRecorder {
 public:
  ServedByRecorder();
  ~ServedByRecorder();
  ServedByRecorder(const ServedByRecorder&) = delete;
  ServedByRecorder& operator=(const ServedByRecorder&) = delete;

  // "provider/name" of the implementation that served the latest successful
  // call since construction or Clear(); "" when none did.
  const std::string& last() const { return last_; }
  void Clear() { last_.clear(); }

  // For the dispatching objects: whether a recorder is active on this
  // thread, and recording `impl` as the one that served.
  static bool Active() { return active_ != nullptr; }
  static void Record(const Implementation& impl);

 private:
  // Defined once, in dispatch_objects.cc, not `inline`: an inline variable is a
  // GNU-unique symbol, which libteplug.so's version script cannot keep
  // private. `__thread` (constant-initialised, no destructor) needs no TLS
  // wrapper call on the dispatch path.
  static __thread ServedByRecorder* active_;
  ServedByRecorder* previous_;
  std::string last_;
};

class KernelCore;
class DeviceNames;

class Kernel {
 public:
  // Loads built-ins, the config, then discovered plugins (each load is a
  // transaction; refusals are logged and kept in the load report). Fails
  // when the config is invalid or a plugin marked required is refused.
  static absl::StatusOr<std::unique_ptr<Kernel>> Create(KernelOptions options);
  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  // A dispatching object for `iid` (add_ref'd), or empty for an IID this
  // kernel does not serve. It keeps the kernel's state alive on its own.
  sdk::Ref<TeplugObject> QueryInterface(const TeplugIID& iid) const;
  template <class T>
  sdk::Ref<T> Query(const TeplugIID& iid) const {
    return sdk::Ref<T>::Adopt(reinterpret_cast<T*>(QueryInterface(iid).release()));
  }

  // A dispatching object for `iid` (add_ref'd) prepared for op `op` with
  // the facts of `args`: the decision is made now (and cached like a call's),
  // and the object's calls of that op use it without building their key, so
  // they cost little more than a call through Select's implementation. Its
  // other ops dispatch per call. It follows plugin loads and config reloads
  // (the first call after one decides again). Every call of the prepared op
  // must have the facts `args` had: dtypes, ranks, keyed shapes, layout and
  // parameters, explicit strides, quantization, the alignment class of each
  // pointer, the workspace and the device (the decision-cache key,
  // interfaces/README.md); data addresses, values, per-call scalars and
  // streams may change. A call with other facts is not detected unless
  // check_prepared_calls is set: it goes to the prepared choice. Errors as
  // Select's; FAILED_PRECONDITION for an op decided elsewhere than per call
  // (collectives, device opening).
  absl::StatusOr<sdk::Ref<TeplugObject>> PrepareObject(const TeplugIID& iid, int32_t op, const void* args) const;
  template <class T>
  absl::StatusOr<sdk::Ref<T>> Prepare(const TeplugIID& iid, int32_t op, const void* args) const {
    absl::StatusOr<sdk::Ref<TeplugObject>> o = PrepareObject(iid, op, args);
    if (!o.ok()) return o.status();
    return sdk::Ref<T>::Adopt(reinterpret_cast<T*>(o->release()));
  }
  // The number of the op named `op_name` ("forward", "comm_create") in the
  // interface `iid`, or nullopt. Op numbers are local to their interface.
  static std::optional<int32_t> OpNumber(const TeplugIID& iid, absl::string_view op_name);

  // The implementation that would serve `op` (a TeplugOp) with `args`, and
  // why. `provider` restricts the choice to one provider, which is then
  // exempt from config allow lists (not from deny lists or a disabled
  // provider; the record says which allow rule it passed). NOT_FOUND with the
  // decision record in the message when nothing can serve it;
  // INVALID_ARGUMENT for malformed args.
  absl::StatusOr<Selection> Select(const TeplugIID& iid, int32_t op, const void* args,
                                   absl::string_view provider = "") const;
  // The decision record even when nothing can serve the op.
  absl::StatusOr<DecisionRecord> Explain(const TeplugIID& iid, int32_t op, const void* args,
                                         absl::string_view provider = "") const;

  // Loads one more plugin at run time (a transaction, like discovery).
  // Like ReloadConfig*, it returns only once no call still runs on the
  // previous state, so never call either from inside a teplug call on the
  // same thread (it would wait for itself).
  absl::Status LoadPlugin(const std::string& path);
  // Validates and installs a new config; calls in flight finish on the old
  // one (this waits for them). On error the running config is unchanged.
  absl::Status ReloadConfigText(const std::string& text, const std::string& source_name);
  absl::Status ReloadConfigFile(const std::string& path);

  std::vector<LoadReportEntry> LoadReport() const;
  std::vector<ProviderListing> ListProviders() const;
  // Asks every device implementation for its devices (calls into plugins).
  DeviceListing ListDevices() const;
  // Problems found when checking the config's provider names against the
  // registered providers ("file:line:col: unknown provider ..."), if any.
  std::vector<std::string> ConfigWarnings() const;
  // Where the config in use came from: its file's path (--config,
  // $TEPLUG_CONFIG, ReloadConfigFile), KernelOptions::config_source_name or
  // ReloadConfigText's name for text, or config::kDefaultConfigSourceName
  // ("<default.textproto>") for the embedded default.
  std::string ConfigSourceName() const;
  // The device kinds and vendors `config`'s rules name that are neither
  // built-in nor declared by a loaded provider, one "file:line:col: ..." line
  // each (for `teplug validate`, which checks a config the kernel does not run).
  std::vector<std::string> UnknownDeviceNames(const config::ValidatedConfig& config) const;
  // The device-kind and vendor names the loaded providers declared, for
  // parsing names given on a command line (`--device gaudi:0`).
  std::shared_ptr<const DeviceNames> DeviceNaming() const;
  Logger& logger() const;

 private:
  explicit Kernel(std::shared_ptr<KernelCore> core);
  // Selection for Explain and Select, outside the decision cache.
  absl::StatusOr<Decision> Decide(const TeplugIID& iid, int32_t op, const void* args,
                                  absl::string_view provider) const;
  std::shared_ptr<KernelCore> core_;
};

}  // namespace teplug::core

#endif  // TEPLUG_CORE_KERNEL_KERNEL_H_
