// A C++ plugin that does NOT use the SDK, loads cleanly (one IGemm, fp32 on
// the CPU, priority 1000 so it is ranked first) and misbehaves only when
// called, in the one way its CALL_* macro picks:
//   CALL_NULL_DESTROY     gemm returns UNSUPPORTED in an error whose destroy is NULL
//   CALL_NULL_MESSAGE     gemm returns UNSUPPORTED in an error whose message is NULL
//   CALL_BAD_CODE         gemm returns an error with code 77 (no TeplugCode)
//   CALL_CONTROL_MESSAGE  gemm returns UNSUPPORTED with a newline, an escape
//                         sequence and a 0xFF byte in its message
//   CALL_THROW_GEMM       gemm throws a std::runtime_error
//   CALL_UNAVAILABLE_GEMM gemm returns UNAVAILABLE in a well-formed error (a
//                         busy device: the call falls back, the plugin is fine)
//   CALL_THROW_SUPPORTS   supports throws a std::runtime_error
//   CALL_THROW_WORKSPACE  workspace_size throws a std::runtime_error
//   CALL_THROW_NON_STD    gemm throws an int
//   CALL_THROW_QUERY      query_interface throws a std::runtime_error (the host
//                         calls it while registering, so this one is refused)
//   CALL_THROW_ADD_REF    add_ref throws (the host takes its reference while
//                         registering, so this one is refused)
//   CALL_THROW_RELEASE    release throws, every time the host releases
//   CALL_KEPT_HOST        keeps the entry's `host` pointer (the contract says
//                         not to) and logs through host->log, with
//                         host->plugin_path, from gemm
// Every other call behaves: supports says yes, workspace_size answers 0.
//
// With CALL_COLLECTIVE it registers one ICollective instead (fp32
// all_reduce sum on the CPU) whose calls misbehave:
//   comm_create   throws when CALL_COMM_CREATE_THROWS is defined, returns
//                 success without writing a communicator (*out stays NULL)
//                 when CALL_COMM_CREATE_NULL is, else hands out a communicator
//   run           throws a std::runtime_error
//   group_start   returns UNAVAILABLE in an error whose message and destroy
//                 are both NULL
//   group_end     returns an error with code 77 and a newline in its message
//   comm_destroy  throws a std::runtime_error
#include <cstdlib>
#include <stdexcept>

#include "teplug/teplug.h"

namespace {

#ifdef CALL_COLLECTIVE
const TeplugIID kIid = TEPLUG_IID_COLLECTIVE_V1_INIT;
#else
const TeplugIID kIid = TEPLUG_IID_GEMM_V1_INIT;
#endif
const TeplugIID kObjectIid = TEPLUG_IID_OBJECT_INIT;

uint32_t AddRef(TeplugObject*) {
#ifdef CALL_THROW_ADD_REF
  throw std::runtime_error("add_ref exploded");
#endif
  return 2;
}
uint32_t Release(TeplugObject*) {
#ifdef CALL_THROW_RELEASE
  throw std::runtime_error("release exploded");
#endif
  return 1;
}
TeplugObject* Query(TeplugObject* self, const TeplugIID* iid) {
#ifdef CALL_THROW_QUERY
  throw std::runtime_error("query_interface exploded");
#endif
  return teplug_iid_equal(iid, &kIid) || teplug_iid_equal(iid, &kObjectIid) ? self : nullptr;
}

// An error laid out by hand, as a plugin without the SDK might (not every
// case returns one).
[[maybe_unused]] TeplugError* HandMade(int32_t code, const char* message, void (*destroy)(TeplugError*)) {
  auto* e = static_cast<TeplugError*>(std::malloc(sizeof(TeplugError)));
  e->struct_size = sizeof(TeplugError);
  e->code = code;
  e->reserved0 = 0;
  e->message = message;
  e->destroy = destroy;
  return e;
}
[[maybe_unused]] void FreeError(TeplugError* e) { std::free(e); }

#ifndef CALL_COLLECTIVE
TeplugBool Supports(TeplugObject*, int32_t, const void*, char*, size_t) {
#ifdef CALL_THROW_SUPPORTS
  throw std::runtime_error("supports exploded");
#endif
  return 1;
}

TeplugError* Workspace(TeplugGemmV1*, const TeplugGemmArgs*, size_t* bytes) {
#ifdef CALL_THROW_WORKSPACE
  throw std::runtime_error("workspace_size exploded");
#endif
  *bytes = 0;
  return nullptr;
}


[[maybe_unused]] const TeplugHostApi* g_host;  // CALL_KEPT_HOST

TeplugError* Gemm(TeplugGemmV1*, const TeplugGemmArgs*) {
#if defined(CALL_KEPT_HOST)
  g_host->log(g_host->log_ctx, TEPLUG_LOG_WARN, g_host->plugin_path);
  return nullptr;
#elif defined(CALL_NULL_DESTROY)
  static TeplugError abandoned = {sizeof(TeplugError), TEPLUG_UNSUPPORTED, 0, "cannot, and no destroy", nullptr};
  return &abandoned;
#elif defined(CALL_NULL_MESSAGE)
  return HandMade(TEPLUG_UNSUPPORTED, nullptr, &FreeError);
#elif defined(CALL_BAD_CODE)
  return HandMade(77, "code from the future", &FreeError);
#elif defined(CALL_CONTROL_MESSAGE)
  return HandMade(TEPLUG_UNSUPPORTED, "no\nWARN teplug: plugin other refused\x1b[2J\xff", &FreeError);
#elif defined(CALL_THROW_GEMM)
  throw std::runtime_error("gemm exploded");
#elif defined(CALL_UNAVAILABLE_GEMM)
  return HandMade(TEPLUG_UNAVAILABLE, "device busy", &FreeError);
#elif defined(CALL_THROW_NON_STD)
  throw 42;
#else
  return nullptr;
#endif
}

const TeplugGemmV1Vtbl kVtbl = {{sizeof(TeplugGemmV1Vtbl), &Query, &AddRef, &Release}, &Supports, &Workspace, &Gemm};
TeplugGemmV1 g_gemm = {&kVtbl};
#else
int g_communicator = 0;  // its address is the communicator handle

TeplugError* CommCreate(TeplugCollectiveV1*, const TeplugCommCreateArgs*, TeplugCommunicator** out) {
#ifdef CALL_COMM_CREATE_THROWS
  throw std::runtime_error("comm_create exploded");
#endif
#ifdef CALL_COMM_CREATE_NULL
  (void)out;
  return nullptr;
#endif
  *out = reinterpret_cast<TeplugCommunicator*>(&g_communicator);
  return nullptr;
}
TeplugError* CommDestroy(TeplugCollectiveV1*, TeplugCommunicator*) {
  throw std::runtime_error("comm_destroy exploded");
}
TeplugError* Run(TeplugCollectiveV1*, int32_t, const TeplugCollectiveArgs*) {
  throw std::runtime_error("run exploded");
}
TeplugError* GroupStart(TeplugCollectiveV1*, TeplugCommunicator*) {
  static TeplugError nothing = {sizeof(TeplugError), TEPLUG_UNAVAILABLE, 0, nullptr, nullptr};
  return &nothing;
}
TeplugError* GroupEnd(TeplugCollectiveV1*, TeplugCommunicator*) { return HandMade(77, "group\nend", &FreeError); }

const TeplugCollectiveV1Vtbl kCollectiveVtbl = {{sizeof(TeplugCollectiveV1Vtbl), &Query, &AddRef, &Release},
                                                nullptr,
                                                &CommCreate,
                                                &CommDestroy,
                                                &Run,
                                                &GroupStart,
                                                &GroupEnd};
TeplugCollectiveV1 g_collective = {&kCollectiveVtbl};
#endif

const TeplugDeviceSupport kCpu[] = {{sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CPU, TEPLUG_VENDOR_ANY, 0, 0}};
#ifdef CALL_COLLECTIVE
const TeplugCollectiveCaps kCollectiveCaps = {sizeof(TeplugCollectiveCaps),
                                    kCpu,
                                    1,
                                    TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32),
                                    TEPLUG_OP_BIT(TEPLUG_OP_ALL_REDUCE),
                                    TEPLUG_REDUCE_BIT(TEPLUG_REDUCE_SUM),
                                    0};
#else
const TeplugGemmCaps kCaps = {sizeof(TeplugGemmCaps),
                              kCpu,
                              1,
                              TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32),
                              TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32),
                              TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32),
                              0,
                              0,
                              0,
                              0};
#endif

}  // namespace

extern "C" TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(const TeplugHostApi* host, TeplugPluginInfo* info) {
#ifndef CALL_COLLECTIVE
  g_host = host;
#endif
  info->name = HOSTILE_PROVIDER_NAME;
  info->vendor = "teplug hostile tests";
  info->version = "0.0.1";
  info->abi_min = TEPLUG_ABI_VERSION_CURRENT;
  info->abi_max = TEPLUG_ABI_VERSION_CURRENT;
  TeplugImplementationDesc d = {};
  d.struct_size = sizeof d;
  d.iid = kIid;
#ifdef CALL_COLLECTIVE
  d.object = reinterpret_cast<TeplugObject*>(&g_collective);
  d.capability = &kCollectiveCaps;
  d.name = "collective";
#else
  d.object = reinterpret_cast<TeplugObject*>(&g_gemm);
  d.capability = &kCaps;
  d.name = "gemm";
#endif
  d.priority = 1000;
  return host->registrar->register_implementation(host->registrar, &d);
}
