/* teplug/plugin.h — the plugin entry point and the host API it receives.
 *
 * A plugin is a shared library exporting exactly one symbol:
 *
 *   TeplugError* teplug_plugin_entry(const TeplugHostApi* host, TeplugPluginInfo* info);
 *
 * The host calls it once, after dlopen. The plugin
 *   1. fills `info` (name, vendor, version, the ABI range it supports), writing
 *      only fields that fit in info->struct_size;
 *   2. checks that its ABI range overlaps [host->abi_min, host->abi_max] and
 *      returns a TEPLUG_ABI_MISMATCH error naming both ranges if not;
 *   3. registers each implementation through host->registrar (which of its
 *      errors to return: see TeplugRegistrar);
 *   4. returns NULL (having registered at least one implementation: a
 *      provider that registers none is refused), or an error to refuse
 *      loading.
 * The entry call is one transaction: registrations are staged and become
 * visible only if the entry returns NULL and the host accepts `info`; on any
 * failure every staged registration is discarded and the library unloaded.
 * The host re-checks the ABI ranges itself, so a plugin that skips step 2
 * is still refused. */
#ifndef TEPLUG_PLUGIN_H_
#define TEPLUG_PLUGIN_H_

#include "teplug/abi_base.h"
#include "teplug/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The documented name of the one exported symbol. */
#define TEPLUG_PLUGIN_ENTRY_SYMBOL "teplug_plugin_entry"

typedef enum TeplugLogLevel {
  TEPLUG_LOG_ERROR = 0,
  TEPLUG_LOG_WARN = 1,
  TEPLUG_LOG_INFO = 2,
  TEPLUG_LOG_DEBUG = 3
} TeplugLogLevel;

/* One implementation of one interface. Registered through the registrar;
 * the host copies the struct and the strings, takes one reference on
 * `object` (released when the provider is unloaded or the registration rolled
 * back) and keeps `capability` as a pointer: the descriptor must stay valid
 * and unchanged while the library is loaded. */
typedef struct TeplugImplementationDesc {
  size_t struct_size;
  TeplugIID iid;
  /* The object exposing `iid`; query_interface(iid) must return it. */
  TeplugObject* object;
  /* The interface's capability descriptor: TeplugGemmCaps* for IGemm v1,
   * TeplugAttentionCaps*, TeplugQuantizerCaps*, TeplugCollectiveCaps*. */
  const void* capability;
  /* Short name unique within the provider, e.g. "cudnn-fused" ("default" if
   * NULL). Shown in decision records as provider/name. */
  const char* name;
  /* Default priority: higher wins. Conventions: reference 0, portable CPU 100,
   * vendor-optimised 200-500, native CUDA 300. Config may override. */
  int32_t priority;
  int32_t reserved0; /* zero */
} TeplugImplementationDesc;
TEPLUG_DECLARE_LAST_FIELD(TeplugImplementationDesc, reserved0);

/* Accepts registrations only while the entry runs, from the entry's thread or
 * threads the plugin started; calls are serialised, one registration staged
 * whole before the next. The struct stays valid memory for the life of the
 * process: a call after the entry returned (from an op, or a thread that
 * outlived the entry) is answered TEPLUG_FAILED_PRECONDITION and changes
 * nothing. Not re-entrant: a call from inside a plugin callback the host
 * makes while staging (query_interface, release) is refused
 * (TEPLUG_FAILED_PRECONDITION), and `self` must be the pointer the host
 * passed (TEPLUG_INVALID_ARGUMENT otherwise). */
typedef struct TeplugRegistrar TeplugRegistrar;
struct TeplugRegistrar {
  size_t struct_size;
  /* Stages one implementation. Errors (returned, owned by the plugin, destroy
   * them) name what was wrong: unknown IID, a capability descriptor that is
   * malformed, NULL object, duplicate name, registration before `info` was
   * filled. TEPLUG_UNSUPPORTED means the host does not serve the IID (e.g. a
   * newer major version): destroy it and go on, the registration is skipped
   * and the plugin loads with the rest. Any other error refuses the plugin
   * even if the entry returns NULL: return it from the entry. */
  TeplugError* (*register_implementation)(TeplugRegistrar* self,
                                          const TeplugImplementationDesc* desc);
};
TEPLUG_DECLARE_LAST_FIELD(TeplugRegistrar, register_implementation);

/* Given to the plugin for the duration of the entry call: do not keep
 * `host` itself. `log` (with `log_ctx`) may also be called later, from any
 * thread, while the plugin is loaded; a kept `registrar` pointer stays safe
 * to call but refuses every registration once the entry has returned, and a
 * `log` call after the plugin was refused or unloaded is dropped (reported
 * once on stderr). */
typedef struct TeplugHostApi {
  size_t struct_size;
  uint32_t abi_min; /* oldest ABI version the host accepts */
  uint32_t abi_max; /* newest ABI version the host implements */
  void* log_ctx;
  /* Logs one line (no trailing newline needed) through the host's logger.
   * The host copies `message` (at most 4096 bytes of it: a longer or
   * unterminated message is cut there) before returning. Control characters and
   * bytes that are not well-formed UTF-8 are logged escaped as \xNN, on the
   * same line (README section 2.5). */
  void (*log)(void* log_ctx, int32_t level, const char* message);
  TeplugRegistrar* registrar;
  /* The resolved path of the library file being loaded (its directory holds
   * any data files the plugin ships), or "built-in". Valid during the entry
   * call only. */
  const char* plugin_path;
} TeplugHostApi;
TEPLUG_DECLARE_LAST_FIELD(TeplugHostApi, plugin_path);

/* A name for a vendor-defined number: a device kind (>= TEPLUG_DEVICE_VENDOR_BASE)
 * or a TeplugDevice.vendor_id. `name` is what config files (`device_kinds`,
 * `vendors`), `teplug explain --device NAME:N --vendor NAME` and decision records
 * use: [a-z][a-z0-9_]*, at most 31 characters, not a built-in name (any cpu cuda
 * opencl; nvidia amd intel) and not `vendor<digits>`. This element is frozen: it
 * never grows (a later ABI would add a new array to TeplugPluginInfo instead),
 * so arrays of it are read with a stride of sizeof(TeplugNamedId), 16 bytes. */
typedef struct TeplugNamedId {
  int64_t id;
  const char* name; /* static storage: kept while the library is loaded */
} TeplugNamedId;

/* Filled by the plugin. Strings must stay valid while the library is loaded
 * (string literals). `name` is the provider name: unique in a process, [a-z0-9_-],
 * at most 63 characters; config files refer to it. `vendor` and `version`
 * are kept and shown escaped (control characters and malformed UTF-8 as
 * \xNN; README section 2.5).
 *
 * Fields after abi_max were appended within ABI 1.0: write them only when
 * TEPLUG_HAS_FIELD(info, TeplugPluginInfo, field) (an older host passes a
 * smaller struct_size and reads none of them); the host zeroes them first, so a
 * plugin that leaves them alone declares nothing. They are provider-level
 * facts, like ONNX Runtime's EP factory vendor/vendor id and PJRT's plugin
 * attributes, so they live here and not in a registrar call. */
typedef struct TeplugPluginInfo {
  size_t struct_size; /* set by the host */
  const char* name;
  const char* vendor;
  const char* version;
  uint32_t abi_min;
  uint32_t abi_max;
  /* Number of entries in device_kind_names / vendor_names: 0 to 32 each. */
  uint32_t device_kind_name_count;
  uint32_t vendor_name_count;
  /* Names of the vendor-defined device kinds this provider serves, e.g.
   * {1100, "gaudi"}: ids >= TEPLUG_DEVICE_VENDOR_BASE and <= INT32_MAX. */
  const TeplugNamedId* device_kind_names;
  /* Names of device vendor ids, e.g. {0x1da3, "habana"}: ids 1 to UINT32_MAX,
   * not one of the built-in TEPLUG_VENDOR_* ids. Within the provider an id has
   * one name and a name one id, or the plugin is refused. When another loaded
   * provider already gave the id another name (or the name to another id), the
   * first declaration stays, this one is ignored and the host logs a warning
   * naming both providers. */
  const TeplugNamedId* vendor_names;
} TeplugPluginInfo;
TEPLUG_DECLARE_LAST_FIELD(TeplugPluginInfo, vendor_names);

typedef TeplugError* (*TeplugPluginEntryFn)(const TeplugHostApi* host, TeplugPluginInfo* info);

/* Plugins define the entry with this macro to get the right linkage and
 * visibility: TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(...) {...} */
#if defined(_WIN32)
#define TEPLUG_PLUGIN_EXPORT __declspec(dllexport)
#else
#define TEPLUG_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TEPLUG_PLUGIN_H_ */
