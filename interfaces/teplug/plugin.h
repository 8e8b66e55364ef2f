/* teplug/plugin.h — the plugin entry point and the host API it receives.
 *
 * A plugin is a shared library exporting exactly one symbol:
 *
 *   TeplugError* teplug_plugin_entry(const TeplugHostApi* host, TeplugPluginInfo* info);
 *
 * The host calls it once, after dlopen, on one thread. The plugin, in order,
 *   0. checks `host`: non-NULL, and host->struct_size at least
 *      TEPLUG_STRUCT_SIZE(TeplugHostApi, registrar), else TEPLUG_ABI_MISMATCH;
 *   1. fills `info` (name, vendor, version, the ABI range it supports), writing
 *      only fields that fit in info->struct_size (TEPLUG_HAS_FIELD);
 *   2. checks that its ABI range overlaps [host->abi_min, host->abi_max] and
 *      returns a TEPLUG_ABI_MISMATCH error naming both ranges if not
 *      ("minimal_c supports ABI [1.0, 1.1], host supports [2.0, 2.3]");
 *   3. registers each implementation through host->registrar (which of its
 *      errors to return: see TeplugRegistrar);
 *   4. returns NULL (having registered at least one implementation: a
 *      provider that registers none is refused), or an error to refuse
 *      loading.
 * The entry call is one transaction: registrations are staged and become
 * visible only if the entry returns NULL and the host accepts `info`; on any
 * failure every staged registration is discarded and the library unloaded.
 * The host re-checks the ABI ranges itself, so a plugin that skips step 2
 * is still refused, with a less helpful message. interfaces/README.md, "The
 * load sequence", says what the host checks around the call.
 *
 * Field reference: every field here appeared in ABI v1.0, except
 * TeplugPluginInfo's name arrays (v1.1). */
#ifndef TEPLUG_PLUGIN_H_
#define TEPLUG_PLUGIN_H_

#include "teplug/abi_base.h"
#include "teplug/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The documented name of the one exported symbol. */
#define TEPLUG_PLUGIN_ENTRY_SYMBOL "teplug_plugin_entry"

/* Log sparingly: one line at load at DEBUG/INFO, warnings for degraded
 * operation; never log instead of returning an error. */
typedef enum TeplugLogLevel {
  TEPLUG_LOG_ERROR = 0,
  TEPLUG_LOG_WARN = 1,
  TEPLUG_LOG_INFO = 2,
  TEPLUG_LOG_DEBUG = 3
} TeplugLogLevel;

/* One implementation of one interface (56 bytes in v1.0), allocated by the
 * plugin for the register_implementation call. The host copies the struct
 * and the strings, takes one reference on `object` (released when the
 * provider is unloaded or the registration rolled back) and may keep
 * `capability` as a pointer (teplug's core copies it): the descriptor must
 * stay valid and unchanged while the library is loaded. The plugin keeps its
 * own reference and releases it when it no longer needs the object (normally
 * right after registering; the SDK's Registrar::Register does). A plugin may
 * register any number of implementations of the same or different
 * interfaces, and one object under several IIDs it answers. */
typedef struct TeplugImplementationDesc {
  size_t struct_size;
  TeplugIID iid;
  /* The object exposing `iid`; query_interface(iid) must return it. */
  TeplugObject* object;
  /* The interface's capability descriptor: TeplugGemmCaps* for IGemm v1,
   * TeplugAttentionCaps*, TeplugQuantizerCaps*, TeplugCollectiveCaps*. */
  const void* capability;
  /* Short name unique within the provider, 1-63 characters of
   * [A-Za-z0-9_.-], e.g. "cudnn-fused" ("default" if NULL). Shown in decision
   * records as provider/name. */
  const char* name;
  /* Default priority: higher wins. Conventions: reference 0, portable CPU 100,
   * vendor-optimised 200-500, native CUDA 300: a vendor implementation that
   * should win over native CUDA on its own devices registers above 300, one
   * meant as a fallback below. The config (`priorities { provider interface
   * priority }`) and its rules (prefer, deny, allow) override it per site. */
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
  /* Validates and stages one implementation; NULL or an error (owned by the
   * plugin: return it from the entry, or destroy it) naming what was wrong.
   * teplug's core refuses, with the code in brackets, when: `self` is not the
   * registrar the host passed [INVALID_ARGUMENT]; the entry has returned
   * [FAILED_PRECONDITION]; the call comes from a plugin callback the host
   * makes while staging another registration [FAILED_PRECONDITION]; `info`
   * does not yet name an ABI range overlapping the host's, i.e. fill `info`
   * before registering [ABI_MISMATCH]; `desc` is NULL [INVALID_ARGUMENT] or
   * its struct_size is below TEPLUG_STRUCT_SIZE(TeplugImplementationDesc,
   * priority) [ABI_MISMATCH]; `name` is not 1-63 characters of
   * [A-Za-z0-9_.-] or already used in this plugin [INVALID_ARGUMENT]; the IID
   * is not one the host serves [UNSUPPORTED]; `object` or its vtbl is NULL,
   * the table is smaller than the interface's v1 table or a mandatory method
   * is NULL [INVALID_ARGUMENT]; query_interface(iid) does not return `object`
   * itself, or throws [INVALID_ARGUMENT]; the capability descriptor is
   * malformed (struct_size below v1, the device list rules of capability.h,
   * an unknown bit, a required bit set that is 0, a negative limit,
   * head_dim_min > head_dim_max, an alignment that is not a power of two or
   * is above 256) [INVALID_ARGUMENT].
   * TEPLUG_UNSUPPORTED for an unknown IID (e.g. a newer major version) only
   * skips the registration: destroy it and go on, the plugin loads with the
   * rest. The host remembers every other refusal made during the entry (all
   * but a wrong `self`): the plugin is refused even if the entry returns
   * NULL. */
  TeplugError* (*register_implementation)(TeplugRegistrar* self,
                                          const TeplugImplementationDesc* desc);
};
TEPLUG_DECLARE_LAST_FIELD(TeplugRegistrar, register_implementation);

/* The host API (64 bytes in v1.1, 48 in v1.0), host-owned, VALID ONLY DURING THE ENTRY
 * CALL: do not keep `host` itself; copy `log` and `log_ctx` to log later
 * (from any thread, while the plugin is loaded). A kept `registrar` pointer
 * stays safe to call but refuses every registration once the entry has
 * returned. A kept `log` called after the plugin was refused or unloaded
 * (possible only when its code stays mapped, e.g. -z nodelete) touches no
 * freed memory: the line is dropped and the first such call reported on
 * stderr ("teplug ERROR: plugin <name> called host->log after it was refused
 * or unloaded; ..."). teplug's core keeps this struct and the path for the
 * life of the process (about 130 bytes plus the path per load), so a plugin
 * that keeps `host` reads valid memory. */
typedef struct TeplugHostApi {
  size_t struct_size;
  uint32_t abi_min; /* oldest ABI version the host accepts */
  uint32_t abi_max; /* newest ABI version the host implements */
  void* log_ctx;
  /* Logs one line (no trailing newline needed) through the host's logger.
   * The host copies `message` (at most 4096 bytes of it: a longer or
   * unterminated message is cut there and marked "..."; NULL is logged as
   * "(null)") before returning. Control characters and bytes that are not
   * well-formed UTF-8 are logged escaped as \xNN, on the same line
   * (interfaces/README.md, "Text you hand the host"). teplug's core prefixes
   * the line with "plugin <label>: " (the library's file name during the
   * entry, the provider name once loaded) and clamps unknown levels to error
   * or debug. NULL: no logger, do not log. */
  void (*log)(void* log_ctx, int32_t level, const char* message);
  TeplugRegistrar* registrar;
  /* The resolved path of the library file being loaded (its directory holds
   * any data files the plugin ships), or "built-in". Valid during the entry
   * call only. */
  const char* plugin_path;
  /* v1.1. The operator's value for option `key` of this provider: the
   * config's `providers { name: "<info->name>" options { key: "<key>" value:
   * "<value>" } }`, for settings a provider takes when it loads (a thread
   * budget, a library path). Call it during the entry with `options_ctx`,
   * after setting info->name (the options are the provider's, by name).
   * Writes at most `capacity` bytes of the value, NUL included, into
   * `buffer` (which may be NULL when capacity is 0) and the value's full
   * length (without the NUL) into *length, so a caller can size a second
   * call. Returns NULL, or an error the plugin destroys:
   * TEPLUG_NOT_FOUND when the config sets no such option for the provider;
   * TEPLUG_INVALID_ARGUMENT for a NULL key or length; TEPLUG_FAILED_PRECONDITION
   * when info->name is not set yet or the entry has returned. A provider gets
   * its options when it loads: a config reload that changes the options of
   * a loaded provider is applied to it only when it next loads (teplug's
   * core logs a warning saying so). Read these two fields only when
   * TEPLUG_HAS_FIELD(host, TeplugHostApi, options_ctx); a 1.0 host has no
   * options. */
  TeplugError* (*get_option)(void* options_ctx, const char* key, char* buffer, size_t capacity,
                             size_t* length);
  void* options_ctx;
} TeplugHostApi;
TEPLUG_DECLARE_LAST_FIELD(TeplugHostApi, options_ctx);

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

/* What the plugin says about itself (64 bytes in v1.1, 40 in v1.0). ALLOCATED BY THE
 * HOST, which sets struct_size; filled by the plugin, which writes only the
 * fields that fit (teplug's core leaves 256 writable bytes behind the
 * struct, never read, for a plugin built against newer headers that forgets
 * the check). Strings must stay valid while the library is loaded (string
 * literals). Fields (v1.0):
 *  - name: the provider name, unique in a process, 1-63 characters of
 *    [a-z0-9_-]; config files refer to it;
 *  - vendor: human-readable vendor ("My Vendor Inc."), at most 255 bytes;
 *  - version: the plugin's own version ("1.2.0"), at most 255 bytes;
 *  - abi_min / abi_max: the oldest and newest TEPLUG_ABI_VERSION the plugin
 *    supports (abi_max normally the TEPLUG_ABI_VERSION_CURRENT it was built
 *    with);
 *  - device_kind_name_count / device_kind_names, vendor_name_count /
 *    vendor_names (v1.1): the names of the plugin's vendor-defined device
 *    kinds and vendor ids (TeplugNamedId), used by configs, `teplug explain`
 *    and decision records.
 * vendor and version are kept and shown escaped (control characters and
 * malformed UTF-8 as \xNN; interfaces/README.md, "Text you hand the host").
 *
 * The name arrays appeared in ABI 1.1: write them only when
 * TEPLUG_HAS_FIELD(info, TeplugPluginInfo, field) (a 1.0 host passes the
 * 40-byte v1.0 struct_size and reads none of them); the host zeroes them
 * first, so a plugin that leaves them alone (every 1.0 plugin) declares
 * nothing. They are provider-level facts, like ONNX Runtime's EP factory
 * vendor/vendor id and PJRT's plugin attributes, so they live here and not
 * in a registrar call. */
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
