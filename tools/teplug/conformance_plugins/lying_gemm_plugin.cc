// A small, honest fp32/bf16 GEMM plugin on the CPU (no SDK, the plain C ABI),
// built once honest and once per lie, each lie made by one LIE_* macro, so
// `teplug conformance` is tested against a plugin that is right and against
// plugins that are wrong about exactly one thing:
//   (none)        honest: a_dtypes/b_dtypes/d_dtypes fp32 and bf16, no
//                 epilogue, needs 256 bytes of workspace, supports says why not
//   LIE_NUMBERS   the bf16 output is 5% too large (fp32 is right)
//   LIE_REFCOUNT  release does not decrement the reference count
//   LIE_REASON    supports says no to what it does not serve, without a reason
//   LIE_THREADS   accumulates in one static scratch buffer without a lock, so
//                 concurrent calls corrupt each other's results
//   LIE_MAX_DIM   declares max_dim 48 but serves larger M, N and K when
//                 called directly instead of refusing them
// and once honest but claiming more than conformance can check:
//   CLAIM_INT8    also declares int8 A operands (refused by supports, with
//                 a reason): conformance cannot build an int8 GEMM, so the
//                 claim is "not checked" and the run must not pass
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "teplug/teplug.h"
#include "tools/teplug/conformance_plugins/plugin_parts.h"

namespace {

using conformance_plugins::AddRef;
using conformance_plugins::Error;
using conformance_plugins::Release;

const TeplugIID kGemmIid = TEPLUG_IID_GEMM_V1_INIT;
const TeplugIID kObjectIid = TEPLUG_IID_OBJECT_INIT;
constexpr size_t kWorkspaceBytes = 256;
constexpr uint64_t kServedDTypes =
    TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);

TeplugObject* Query(TeplugObject* self, const TeplugIID* iid) {
  if (iid == nullptr || !(teplug_iid_equal(iid, &kGemmIid) || teplug_iid_equal(iid, &kObjectIid)))
    return nullptr;
  AddRef(self);
  return self;
}

bool Served(const TeplugTensor* t) {
  return t != nullptr && ((kServedDTypes >> t->dtype) & 1) != 0;
}

// Why these args are not served, or NULL when they are.
const char* Unserved(const TeplugGemmArgs* g) {
  if (!Served(g->a) || !Served(g->b) || !Served(g->d))
    return "only fp32 and bf16 operands and output";
  if (g->bias != nullptr || g->pre_gelu_out != nullptr || g->epilogue != 0 || g->accumulate != 0)
    return "no bias, GELU or accumulate";
  if (g->a->quant != nullptr || g->b->quant != nullptr) return "no quantized operands";
  return nullptr;
}

TeplugBool Supports(TeplugObject*, int32_t op, const void* args, char* reason, size_t reason_size) {
  const char* why =
      op != TEPLUG_OP_GEMM ? "only gemm" : Unserved(static_cast<const TeplugGemmArgs*>(args));
  if (why == nullptr) return 1;
#ifndef LIE_REASON
  if (reason != nullptr && reason_size > 0) {
    std::strncpy(reason, why, reason_size - 1);
    reason[reason_size - 1] = '\0';
  }
#else
  (void)reason;
  (void)reason_size;
#endif
  return 0;
}

TeplugError* Workspace(TeplugGemmV1*, const TeplugGemmArgs*, size_t* bytes) {
  *bytes = kWorkspaceBytes;
  return nullptr;
}

float Bf16ToFloat(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
uint16_t FloatToBf16(float f) {  // round to nearest even (finite values)
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}
// Element (r, c) of a row-major rank-2 tensor.
float At(const TeplugTensor* t, int64_t r, int64_t c) {
  const int64_t ld = t->strides[0] != 0 ? t->strides[0] : t->shape[1];
  const int64_t i = r * ld + c;
  if (t->dtype == TEPLUG_DTYPE_BF16) return Bf16ToFloat(static_cast<const uint16_t*>(t->data)[i]);
  return static_cast<const float*>(t->data)[i];
}
void Put(TeplugTensor* t, int64_t r, int64_t c, float v) {
  const int64_t ld = t->strides[0] != 0 ? t->strides[0] : t->shape[1];
  const int64_t i = r * ld + c;
  if (t->dtype == TEPLUG_DTYPE_BF16) {
    static_cast<uint16_t*>(t->data)[i] = FloatToBf16(v);
  } else {
    static_cast<float*>(t->data)[i] = v;
  }
}

#ifdef LIE_THREADS
float g_scratch[1 << 16];  // shared by every call, no lock
// The race is the lie under test: ThreadSanitizer is told not to stop the
// process over it, so conformance itself can report it.
#define RACY_BY_DESIGN __attribute__((no_sanitize("thread")))
#else
#define RACY_BY_DESIGN
#endif

RACY_BY_DESIGN TeplugError* Gemm(TeplugGemmV1*, const TeplugGemmArgs* g) {
  if (g == nullptr || g->struct_size < TEPLUG_STRUCT_SIZE(TeplugGemmArgs, stream))
    return Error(TEPLUG_INVALID_ARGUMENT, "gemm: args NULL or struct_size too small");
  if (g->a == nullptr || g->b == nullptr || g->d == nullptr)
    return Error(TEPLUG_INVALID_ARGUMENT, "gemm: a, b and d are required");
  if (Unserved(g) != nullptr) return Error(TEPLUG_UNSUPPORTED, Unserved(g));
  if (g->workspace == nullptr || g->workspace_size < kWorkspaceBytes)
    return Error(TEPLUG_INVALID_ARGUMENT, "gemm: needs 256 bytes of workspace");
  const int64_t m = g->d->shape[0], n = g->d->shape[1];
  const int64_t k = g->trans_a ? g->a->shape[0] : g->a->shape[1];
#ifdef LIE_THREADS
  if (m * n > static_cast<int64_t>(sizeof g_scratch / sizeof g_scratch[0]))
    return Error(TEPLUG_UNSUPPORTED, "gemm: output too large for the scratch buffer");
  float* acc = g_scratch;
#else
  float* acc = static_cast<float*>(std::malloc(sizeof(float) * static_cast<size_t>(m * n)));
  if (acc == nullptr) return Error(TEPLUG_OUT_OF_MEMORY, "gemm: no memory for the accumulator");
#endif
  for (int64_t i = 0; i < m * n; ++i) acc[i] = 0;
  for (int64_t p = 0; p < k; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        acc[i * n + j] += (g->trans_a ? At(g->a, p, i) : At(g->a, i, p)) *
                          (g->trans_b ? At(g->b, j, p) : At(g->b, p, j));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float v = g->alpha * acc[i * n + j];
      if (g->c != nullptr && g->beta != 0) v += g->beta * At(g->c, i, j);
#ifdef LIE_NUMBERS
      if (g->d->dtype == TEPLUG_DTYPE_BF16) v *= 1.05f;
#endif
      Put(g->d, i, j, v);
    }
#ifndef LIE_THREADS
  std::free(acc);
#endif
  return nullptr;
}

const TeplugGemmV1Vtbl kVtbl = {
    {sizeof(TeplugGemmV1Vtbl), &Query, &AddRef, &Release}, &Supports, &Workspace, &Gemm};
TeplugGemmV1 g_gemm = {&kVtbl};

const TeplugDeviceSupport kCpu[] = {
    {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CPU, TEPLUG_VENDOR_ANY, 0, 0}};
#ifdef CLAIM_INT8
constexpr uint64_t kClaimedADTypes = kServedDTypes | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_INT8);
#else
constexpr uint64_t kClaimedADTypes = kServedDTypes;
#endif
#ifdef LIE_MAX_DIM
constexpr int64_t kMaxDim = 48;
#else
constexpr int64_t kMaxDim = 0;
#endif
const TeplugGemmCaps kCaps = {sizeof(TeplugGemmCaps), kCpu,          1, kClaimedADTypes,
                              kServedDTypes,          kServedDTypes, 0, 0,
                              0,                      kMaxDim};

}  // namespace

extern "C" TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(const TeplugHostApi* host,
                                                                 TeplugPluginInfo* info) {
  return conformance_plugins::RegisterOne(host, info, PLUGIN_PROVIDER_NAME, kGemmIid,
                                          reinterpret_cast<TeplugObject*>(&g_gemm), &kCaps,
                                          "naive");
}
