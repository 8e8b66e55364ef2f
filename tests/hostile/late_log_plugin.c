/* A plugin that keeps host->log and log_ctx and logs after it was unloaded.
 *
 * Linked with -z nodelete, so its code stays mapped after the host's
 * dlclose (as a library holding STB_GNU_UNIQUE symbols would). Its entry
 * registers one well-formed IGemm and starts a thread that waits for the
 * test binary to ask (teplug_hostile_late_log_requests, ref_counters.h),
 * then calls the kept log function once per request and counts the call
 * (teplug_hostile_late_log_calls). The host must drop those lines without
 * touching the freed state of the unloaded plugin. */
#include <pthread.h>
#include <time.h>

#include "teplug/teplug.h"
#include "tests/hostile/counted_objects.h"
#include "tests/hostile/ref_counters.h"

static void (*g_log)(void*, int32_t, const char*);
static void* g_log_ctx;

static void* late_logger(void* unused) {
  (void)unused;
  const struct timespec tick = {0, 1000000};
  int64_t served = 0;
  if (&teplug_hostile_late_log_requests == 0 || &teplug_hostile_late_log_calls == 0) return NULL;
  for (;;) {
    while (__atomic_load_n(&teplug_hostile_late_log_requests, __ATOMIC_ACQUIRE) == served) {
      nanosleep(&tick, NULL);
    }
    ++served;
    g_log(g_log_ctx, TEPLUG_LOG_WARN, "hostile_late_log: logging after my unload");
    __atomic_add_fetch(&teplug_hostile_late_log_calls, 1, __ATOMIC_RELEASE);
  }
  return NULL;
}

TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(const TeplugHostApi* host,
                                                      TeplugPluginInfo* info) {
  static const TeplugIID kGemmIid = TEPLUG_IID_GEMM_V1_INIT;
  static int started = 0;
  TeplugImplementationDesc d = {sizeof d, TEPLUG_IID_GEMM_V1_INIT, NULL, NULL, "counted-gemm", 0, 0};
  pthread_t thread;
  if (host == NULL || info == NULL ||
      host->struct_size < TEPLUG_STRUCT_SIZE(TeplugHostApi, registrar) ||
      !TEPLUG_HAS_FIELD(info, TeplugPluginInfo, abi_max) || host->log == NULL) {
    return teplug_error_create(TEPLUG_ABI_MISMATCH, "hostile_late_log: host API too small");
  }
  info->name = "hostile_late_log";
  info->vendor = "teplug hostile tests";
  info->version = "0.0.1";
  info->abi_min = TEPLUG_ABI_VERSION_CURRENT;
  info->abi_max = TEPLUG_ABI_VERSION_CURRENT;
  /* The log function of the latest load (a library is loaded once, but a
   * process may load it, drop it and load it again). */
  g_log = host->log;
  g_log_ctx = host->log_ctx;
  if (!started) {
    if (pthread_create(&thread, NULL, late_logger, NULL) != 0) {
      return teplug_error_create(TEPLUG_INTERNAL, "hostile_late_log: pthread_create failed");
    }
    pthread_detach(thread);
    started = 1;
  }
  d.iid = kGemmIid;
  d.object = hostile_gemm();
  d.capability = hostile_gemm_caps();
  return host->registrar->register_implementation(host->registrar, &d);
}
