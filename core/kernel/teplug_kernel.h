/* teplug_kernel.h — the kernel's C API, for hosts that are not C++.
 *
 * Same behaviour as teplug::core::Kernel (core/kernel/kernel.h): creation
 * loads built-in providers, the config and discovered plugins; query_interface
 * returns dispatching objects that select an implementation per call. Errors
 * are TeplugError* owned by the caller (see teplug/status.h). */
#ifndef TEPLUG_CORE_KERNEL_TEPLUG_KERNEL_H_
#define TEPLUG_CORE_KERNEL_TEPLUG_KERNEL_H_

#include "teplug/teplug.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TeplugKernel TeplugKernel;

/* Zero-initialise, set struct_size, fill what you need: zero means default. */
typedef struct TeplugKernelOptions {
  size_t struct_size;
  /* Config text (text format); wins over config_path. */
  const char* config_text;
  /* Config file (text format or JSON). Neither: $TEPLUG_CONFIG, else the
   * embedded default. */
  const char* config_path;
  const char* const* plugin_paths; /* loaded after config plugins */
  size_t num_plugin_paths;
  /* TeplugLogLevel + 1 (0 = default: TEPLUG_LOG, else the config's level). */
  int32_t log_level_plus_one;
  TeplugBool ignore_environment; /* do not read TEPLUG_* / NVTE_PLUGIN */
  TeplugBool no_builtins;        /* do not load built-in providers */
  TeplugBool strict;             /* no call-time fallback for any op */
  TeplugBool allow_insecure_plugin_permissions;
  int32_t reserved0; /* zero */
} TeplugKernelOptions;
TEPLUG_DECLARE_LAST_FIELD(TeplugKernelOptions, reserved0);

/* Creates a kernel. On error *out is NULL. */
TeplugError* teplug_kernel_create(const TeplugKernelOptions* options, TeplugKernel** out);
/* Destroys the handle. Dispatching objects already obtained stay valid until
 * released. NULL is ignored. */
void teplug_kernel_destroy(TeplugKernel* kernel);

/* A dispatching object for `iid`, add_ref'd (release it), or NULL for an IID
 * this kernel does not serve. */
TeplugObject* teplug_kernel_query_interface(TeplugKernel* kernel, const TeplugIID* iid);

/* The implementation that would serve `op` with `args` (add_ref'd into *out),
 * restricted to `provider` when not NULL (e.g. "native" to reach the native
 * provider even when a plugin would win). TEPLUG_NOT_FOUND with the decision
 * record in the message when nothing can serve it. */
TeplugError* teplug_kernel_select(TeplugKernel* kernel, const TeplugIID* iid, int32_t op, const void* args,
                                  const char* provider, TeplugObject** out);

/* A dispatching object for `iid` (add_ref'd into *out) prepared for op `op`
 * with the facts of `args`: its calls of that op use the decision made now
 * instead of deciding per call, for loops that repeat one op with one
 * signature (teplug::core::Kernel::Prepare says which facts must stay the
 * same; TEPLUG_CHECK_PREPARED=1 checks every call). TEPLUG_NOT_FOUND with
 * the decision record when nothing can serve it. */
TeplugError* teplug_kernel_prepare(TeplugKernel* kernel, const TeplugIID* iid, int32_t op, const void* args,
                                   TeplugObject** out);

/* Text outputs: write at most `capacity` bytes including the NUL into
 * `buffer` (which may be NULL when capacity is 0) and the full length
 * (excluding the NUL) into *length, so a caller can size a second call. */
/* The decision record for an op, as `teplug explain` prints it. */
TeplugError* teplug_kernel_explain(TeplugKernel* kernel, const TeplugIID* iid, int32_t op, const void* args,
                                   const char* provider, char* buffer, size_t capacity, size_t* length);
/* The load report: every provider loaded and every plugin refused, and why. */
TeplugError* teplug_kernel_load_report(TeplugKernel* kernel, char* buffer, size_t capacity, size_t* length);

/* Installs a new config (text format); calls in flight finish on the old one. */
TeplugError* teplug_kernel_reload_config(TeplugKernel* kernel, const char* config_text, const char* source_name);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TEPLUG_CORE_KERNEL_TEPLUG_KERNEL_H_ */
