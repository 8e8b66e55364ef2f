/* One plain-C plugin entry per misbehaviour, selected at compile time by a
 * -DHOSTILE_<CASE> define (see BUILD). Each case documents what it does and
 * what the host must answer. Built with teplug_plugin, as a vendor would. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "teplug/teplug.h"
#include "tests/hostile/counted_objects.h"
#ifdef HOSTILE_MISUSE
#include "tests/hostile/registrar_misuse.h"
#endif

#ifdef HOSTILE_ABI_MISMATCH
#define PLUGIN_ABI TEPLUG_ABI_VERSION(2, 0)
#define PLUGIN_ABI_MIN PLUGIN_ABI
#elif defined(HOSTILE_INVERTED_ABI)
/* [1.5, current]: an inverted range whose bounds both look compatible. */
#define PLUGIN_ABI TEPLUG_ABI_VERSION_CURRENT
#define PLUGIN_ABI_MIN TEPLUG_ABI_VERSION(1, 5)
#else
#define PLUGIN_ABI TEPLUG_ABI_VERSION_CURRENT
#define PLUGIN_ABI_MIN PLUGIN_ABI
#endif

#ifdef HOSTILE_BAD_PROVIDER_NAME
#define PROVIDER_NAME "Bad Name!"
#else
#define STRINGIZE_(x) #x
#define STRINGIZE(x) STRINGIZE_(x)
#define PROVIDER_NAME STRINGIZE(HOSTILE_PROVIDER_NAME) /* from BUILD: the plugin's name */
#endif

/* Text that tries to forge a second log line (another plugin's refusal),
 * move the cursor, clear the screen, set the terminal title, and break UTF-8.
 * (No hex digit follows a \x escape: C would read it as part of the escape.) */
#define FORGED_TEXT                                                                    \
  "\nteplug WARN: plugin /opt/other/libteplug_other.so (api) refused: forged\r\x1b[2J" \
  "\x1b]0;owned\x07\xff"

#ifdef HOSTILE_FORGED_TEXT
#define PLUGIN_VENDOR "acme" FORGED_TEXT
#define PLUGIN_VERSION "1.0" FORGED_TEXT
#else
#define PLUGIN_VENDOR "teplug hostile tests"
#define PLUGIN_VERSION "0.0.1"
#endif

static const TeplugIID kGemmIid = TEPLUG_IID_GEMM_V1_INIT;
__attribute__((unused)) static const TeplugIID kQuantizerIid = TEPLUG_IID_QUANTIZER_V1_INIT;

/* Registers one implementation; returns the registrar's answer. */
static TeplugError* reg(const TeplugHostApi* host, TeplugIID iid, TeplugObject* object,
                        const void* caps, const char* name) {
  TeplugImplementationDesc d;
  d.struct_size = sizeof d;
  d.iid = iid;
  d.object = object;
  d.capability = caps;
  d.name = name;
  d.priority = 7;
  d.reserved0 = 0;
  return host->registrar->register_implementation(host->registrar, &d);
}

__attribute__((unused)) static TeplugError* reg_gemm(const TeplugHostApi* host, const void* caps, const char* name) {
  return reg(host, kGemmIid, hostile_gemm(), caps, name);
}

/* Static storage for the malformed descriptors (they must outlive the call). */
__attribute__((unused)) static TeplugGemmCaps g_bad_caps; /* not every case uses it */
__attribute__((unused)) static TeplugDeviceSupport g_devices[2];

/* An IGemm object laid out like counted_objects.c's (so its base methods,
 * copied from a well-formed table, work on it) with a table of our own. */
typedef struct EdgeObject {
  TeplugObject base;
  TeplugIID iid;
  uint32_t refs;
} EdgeObject;
__attribute__((unused)) static TeplugGemmV1Vtbl g_edge_vtbl;
__attribute__((unused)) static EdgeObject g_edge = {{(const TeplugObjectVtbl*)&g_edge_vtbl},
                                                    TEPLUG_IID_GEMM_V1_INIT, 1};
__attribute__((unused)) static TeplugObject* edge_gemm(void) {
  g_edge_vtbl = *(const TeplugGemmV1Vtbl*)hostile_gemm()->vtbl;
  return &g_edge.base;
}

/* An object whose function table is a lone struct_size of 8 bytes. */
__attribute__((unused)) static const size_t kTinyTable = sizeof(size_t);
__attribute__((unused)) static TeplugObject g_tiny = {(const TeplugObjectVtbl*)&kTinyTable};
__attribute__((unused)) static TeplugObject* answer_tiny(TeplugObject* self, const TeplugIID* iid) {
  (void)self;
  (void)iid;
  return &g_tiny;
}

/* Two device entries whose first claims the array stride `stride`. */
__attribute__((unused)) static TeplugError* reg_with_device_stride(const TeplugHostApi* host,
                                                                  size_t stride) {
  g_devices[0] = hostile_gemm_caps()->devices[0];
  g_devices[1] = g_devices[0];
  g_devices[0].struct_size = stride;
  g_bad_caps = *hostile_gemm_caps();
  g_bad_caps.devices = g_devices;
  g_bad_caps.num_devices = 2;
  return reg_gemm(host, &g_bad_caps, "strided");
}

/* The info of the running entry call. */
static TeplugPluginInfo* g_info;

/* Declares device-kind and vendor names in g_info when the host's
 * TeplugPluginInfo has room for them (TEPLUG_HAS_FIELD). */
__attribute__((unused)) static void declare_names(const TeplugNamedId* kinds, uint32_t kind_count,
                                                  const TeplugNamedId* vendors, uint32_t vendor_count) {
  if (!TEPLUG_HAS_FIELD(g_info, TeplugPluginInfo, vendor_names)) return;
  g_info->device_kind_names = kinds;
  g_info->device_kind_name_count = kind_count;
  g_info->vendor_names = vendors;
  g_info->vendor_name_count = vendor_count;
}
__attribute__((unused)) static const TeplugNamedId kGaudi[] = {{1100, "gaudi"}};
__attribute__((unused)) static const TeplugNamedId kHabana[] = {{0x1da3, "habana"}};

static TeplugError* run_case(const TeplugHostApi* host) {
#if defined(HOSTILE_GOOD)
  /* Well behaved: two implementations, one log line. */
  TeplugError* e;
  host->log(host->log_ctx, TEPLUG_LOG_INFO, "registering 2 implementations");
  e = reg_gemm(host, hostile_gemm_caps(), "counted-gemm");
  if (e != NULL) return e;
  return reg(host, kQuantizerIid, hostile_quantizer(), hostile_quantizer_caps(), "counted-quantizer");
#elif defined(HOSTILE_ABI_MISMATCH)
  /* Claims ABI [2.0, 2.0], skips the overlap check, registers anyway and
   * ignores the registrar's refusal. */
  TeplugError* e = reg_gemm(host, hostile_gemm_caps(), "counted-gemm");
  if (e != NULL) e->destroy(e);
  return NULL;
#elif defined(HOSTILE_PARTIAL_THEN_ERROR)
  /* Two successful registrations, then the entry fails. */
  TeplugError* e = reg_gemm(host, hostile_gemm_caps(), "counted-gemm");
  if (e != NULL) return e;
  e = reg(host, kQuantizerIid, hostile_quantizer(), hostile_quantizer_caps(), "counted-quantizer");
  if (e != NULL) return e;
  return teplug_error_create(TEPLUG_INTERNAL, "hostile_partial: failing after two registrations");
#elif defined(HOSTILE_REGISTRAR_ERROR_IGNORED)
  /* One good registration, one malformed one whose error it drops. */
  TeplugError* e = reg_gemm(host, hostile_gemm_caps(), "counted-gemm");
  if (e != NULL) return e;
  g_bad_caps = *hostile_gemm_caps();
  g_bad_caps.devices = NULL;
  g_bad_caps.num_devices = 2;
  e = reg_gemm(host, &g_bad_caps, "second");
  if (e != NULL) e->destroy(e);
  return NULL;
#elif defined(HOSTILE_NEWER_IID_IGNORED)
  /* A forward-compatible plugin: it also offers an interface version this
   * host does not know, accepts the host's UNSUPPORTED answer, and loads with
   * its other registrations. */
  TeplugIID newer = {0x7465706c75670002ull, 0x67656d6d00000002ull};
  TeplugError* e = reg(host, newer, hostile_gemm(), hostile_gemm_caps(), "gemm-v2");
  if (e != NULL) e->destroy(e);
  return reg_gemm(host, hostile_gemm_caps(), "counted-gemm");
#elif defined(HOSTILE_UNKNOWN_IID)
  TeplugIID unknown = {0x1234, 0x5678};
  return reg(host, unknown, hostile_gemm(), hostile_gemm_caps(), "mystery");
#elif defined(HOSTILE_CAPS_TOO_SMALL)
  g_bad_caps = *hostile_gemm_caps();
  g_bad_caps.struct_size = 16;
  return reg_gemm(host, &g_bad_caps, "small-caps");
#elif defined(HOSTILE_DEVICES_NULL)
  g_bad_caps = *hostile_gemm_caps();
  g_bad_caps.devices = NULL;
  g_bad_caps.num_devices = 2;
  return reg_gemm(host, &g_bad_caps, "no-devices");
#elif defined(HOSTILE_UNKNOWN_DTYPE_BIT)
  g_bad_caps = *hostile_gemm_caps();
  g_bad_caps.a_dtypes |= UINT64_C(1) << 40;
  return reg_gemm(host, &g_bad_caps, "future-dtype");
#elif defined(HOSTILE_SMALL_VTBL)
  return reg(host, kGemmIid, hostile_gemm_with_small_vtbl(), hostile_gemm_caps(), "small-vtbl");
#elif defined(HOSTILE_QUERY_REFUSED)
  return reg(host, kGemmIid, hostile_gemm_refusing_query(), hostile_gemm_caps(), "no-query");
#elif defined(HOSTILE_NULL_OBJECT)
  return reg(host, kGemmIid, NULL, hostile_gemm_caps(), "null-object");
#elif defined(HOSTILE_BAD_PROVIDER_NAME)
  /* Registers fine, but its provider name breaks the naming rule. */
  return reg_gemm(host, hostile_gemm_caps(), "counted-gemm");
#elif defined(HOSTILE_FORGED_TEXT)
  /* Loads, with FORGED_TEXT in its vendor, version and one WARN log line. */
  host->log(host->log_ctx, TEPLUG_LOG_WARN, "about to register" FORGED_TEXT);
  return reg_gemm(host, hostile_gemm_caps(), "counted-gemm");
#elif defined(HOSTILE_FORGED_REFUSAL)
  /* Fails its entry with FORGED_TEXT in the error message. */
  return teplug_error_create(TEPLUG_INTERNAL, "hostile_forged_refusal" FORGED_TEXT);
#elif defined(HOSTILE_NO_IMPLEMENTATIONS)
  /* Fills info and returns success without registering anything. */
  (void)host;
  return NULL;
#elif defined(HOSTILE_ONLY_NEWER_IID)
  /* Offers only an interface version this host does not know and ignores
   * the host's UNSUPPORTED answer: nothing is left to serve. */
  TeplugIID newer = {0x7465706c75670002ull, 0x67656d6d00000002ull};
  TeplugError* e = reg(host, newer, hostile_gemm(), hostile_gemm_caps(), "gemm-v2");
  if (e != NULL) e->destroy(e);
  return NULL;
#elif defined(HOSTILE_DUPLICATE_IMPL)
  TeplugError* e = reg_gemm(host, hostile_gemm_caps(), "same");
  if (e != NULL) return e;
  return reg(host, kQuantizerIid, hostile_quantizer(), hostile_quantizer_caps(), "same");
#elif defined(HOSTILE_DEVICE_STRIDE_HUGE)
  /* devices[0].struct_size 1 TiB: devices[1] would be 1 TiB past the array. */
  return reg_with_device_stride(host, (size_t)1 << 40);
#elif defined(HOSTILE_DEVICE_STRIDE_WRAP)
  /* devices[0].struct_size SIZE_MAX - 7: 1 * stride wraps to 8 bytes before it. */
  return reg_with_device_stride(host, SIZE_MAX - 7);
#elif defined(HOSTILE_NULL_METHOD)
  /* A complete IGemm table but for gemm itself. */
  TeplugObject* o = edge_gemm();
  g_edge_vtbl.gemm = NULL;
  return reg(host, kGemmIid, o, hostile_gemm_caps(), "no-gemm");
#elif defined(HOSTILE_BAD_IMPL_NAME)
  /* Every kind of invalid byte in an implementation name. */
  return reg_gemm(host, hostile_gemm_caps(), "a b/c\n\x1b[31m\xff\x7f\"");
#elif defined(HOSTILE_INVERTED_ABI)
  /* info names [1.5, 1.0] (see PLUGIN_ABI_MIN); the registrar must refuse. */
  return reg_gemm(host, hostile_gemm_caps(), "counted-gemm");
#elif defined(HOSTILE_QUERY_TINY_ANSWER)
  /* query_interface answers another object, whose table is 8 bytes long. */
  TeplugObject* o = edge_gemm();
  g_edge_vtbl.base.query_interface = answer_tiny;
  return reg(host, kGemmIid, o, hostile_gemm_caps(), "tiny-answer");
#elif defined(HOSTILE_INFO_OVERRUN)
  /* Loads, but first writes 64 bytes past the TeplugPluginInfo the host
   * handed out, as a plugin built against newer headers that fills its new
   * fields without checking info->struct_size would. */
  memset((char*)g_info + g_info->struct_size, 0xAB, 64);
  return reg_gemm(host, hostile_gemm_caps(), "counted-gemm");
#elif defined(HOSTILE_EXTREME_VALUES)
  /* Legal but extreme: priorities INT32_MAX and INT32_MIN, a descriptor,
   * capability and function table whose struct_size is SIZE_MAX (newer
   * writers: trailing fields ignored), log calls with a NULL message, levels
   * far out of range and a 1 MiB message. Loads. */
  static char big[(1 << 20) + 1];
  static TeplugGemmCaps caps;
  TeplugImplementationDesc d;
  TeplugError* e;
  TeplugObject* o = edge_gemm();
  memset(big, 'x', sizeof big - 1);
  host->log(host->log_ctx, TEPLUG_LOG_ERROR, NULL);
  host->log(host->log_ctx, INT32_MIN, "level INT32_MIN");
  host->log(host->log_ctx, INT32_MAX, "level INT32_MAX");
  host->log(host->log_ctx, TEPLUG_LOG_WARN, big);
  g_edge_vtbl.base.struct_size = SIZE_MAX;
  caps = *hostile_gemm_caps();
  caps.struct_size = SIZE_MAX;
  memset(&d, 0, sizeof d);
  d.struct_size = SIZE_MAX;
  d.iid = kGemmIid;
  d.object = o;
  d.capability = &caps;
  d.name = "top";
  d.priority = INT32_MAX;
  e = host->registrar->register_implementation(host->registrar, &d);
  if (e != NULL) return e;
  d.object = hostile_gemm();
  d.capability = hostile_gemm_caps();
  d.name = "bottom";
  d.priority = INT32_MIN;
  return host->registrar->register_implementation(host->registrar, &d);
#elif defined(HOSTILE_NAMED_DEVICES)
  /* Names vendor kind 1100 "gaudi" and vendor 0x1da3 "habana", and serves
   * fp32 GEMMs on the host CPU and on gaudi devices of habana. Loads. */
  declare_names(kGaudi, 1, kHabana, 1);
  g_devices[0] = hostile_gemm_caps()->devices[0];
  g_devices[1] = g_devices[0];
  g_devices[1].kind = 1100;
  g_devices[1].vendor_id = 0x1da3;
  g_bad_caps = *hostile_gemm_caps();
  g_bad_caps.devices = g_devices;
  g_bad_caps.num_devices = 2;
  return reg_gemm(host, &g_bad_caps, "counted-gemm");
#elif defined(HOSTILE_RENAMED_DEVICES)
  /* Names kind 1100 "other_npu" (hostile_named_devices calls it "gaudi") and
   * vendor 0x1da3 "habana" as that one does. Loads; loaded after
   * hostile_named_devices, its name for 1100 is ignored with a warning. */
  static const TeplugNamedId kOther[] = {{1100, "other_npu"}};
  declare_names(kOther, 1, kHabana, 1);
  return reg_gemm(host, hostile_gemm_caps(), "counted-gemm");
#elif defined(HOSTILE_BUILTIN_DEVICE_NAME)
  /* Names a vendor kind "cuda", a name the ABI already gives kind 2. */
  static const TeplugNamedId kCuda[] = {{1100, "cuda"}};
  declare_names(kCuda, 1, NULL, 0);
  return reg_gemm(host, hostile_gemm_caps(), "counted-gemm");
#elif defined(HOSTILE_BAD_DEVICE_NAME)
  /* A vendor name with capitals, a space and a newline. */
  static const TeplugNamedId kBad[] = {{0x1da3, "Habana Labs\n"}};
  declare_names(NULL, 0, kBad, 1);
  return reg_gemm(host, hostile_gemm_caps(), "counted-gemm");
#elif defined(HOSTILE_DEVICE_NAME_TWICE)
  /* One name for two kinds. */
  static const TeplugNamedId kTwice[] = {{1100, "gaudi"}, {1101, "gaudi"}};
  declare_names(kTwice, 2, NULL, 0);
  return reg_gemm(host, hostile_gemm_caps(), "counted-gemm");
#elif defined(HOSTILE_DEVICE_NAMES_NULL)
  /* A count of 3 and no array. */
  declare_names(NULL, 3, NULL, 0);
  return reg_gemm(host, hostile_gemm_caps(), "counted-gemm");
#elif defined(HOSTILE_MISUSE)
  /* Keeps or shares the registrar: registrar_misuse_plugin.c. */
  return misuse_run_case(host);
#else
#error "define one HOSTILE_<CASE>"
#endif
}

TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(const TeplugHostApi* host,
                                                      TeplugPluginInfo* info) {
  if (host == NULL || info == NULL ||
      host->struct_size < TEPLUG_STRUCT_SIZE(TeplugHostApi, registrar) ||
      !TEPLUG_HAS_FIELD(info, TeplugPluginInfo, abi_max)) {
    return teplug_error_create(TEPLUG_ABI_MISMATCH, "hostile: host API too small");
  }
  info->name = PROVIDER_NAME;
  info->vendor = PLUGIN_VENDOR;
  info->version = PLUGIN_VERSION;
  info->abi_min = PLUGIN_ABI_MIN;
  info->abi_max = PLUGIN_ABI;
  g_info = info;
  return run_case(host);
}
