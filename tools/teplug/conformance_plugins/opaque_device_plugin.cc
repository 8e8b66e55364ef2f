// An IDevice for a device whose memory the host cannot read directly, an fp32
// GEMM, an fp32 -> fp8_e4m3 per-tensor current-scaling quantizer and an fp32
// RMSNorm forward that serve only that device (plain C ABI), so `teplug
// conformance --device opencl:0` is tested without an accelerator. The device
// is "opencl:0" (kind TEPLUG_DEVICE_OPENCL); its memory is host memory behind
// opaque handles: a handle is the address XOR a mask that makes it a
// non-canonical address, so a caller that passes host pointers where device
// memory belongs gets refused by supports (the tensors name no opencl
// device) or crashes the GEMM, never a right answer. Built honest and once
// per lie:
//   LIE_FORGETS_COPY  the GEMM computes into its own buffer and never writes
//                     it to D's device memory (D comes back as it went in);
//                     the quantizer keeps its scale_inv in host memory of
//                     its own instead of writing the device's (it comes back
//                     as the zero it went in as); the RMSNorm writes y
//                     but not rsigma
//   LIE_NO_REASON     the RMSNorm's supports says no without a reason
//   LIE_WORKSPACE     the GEMM's workspace_size answers 0 bytes, yet its GEMM
//                     needs the kGemmWorkspaceBytes of device memory it asks
//                     for when honest
//   LIE_STRUCT_SIZE   the GEMM refuses args whose struct_size is not exactly
//                     its own sizeof(TeplugGemmArgs) (older and newer hosts)
// With LIE_REFCOUNT (plugin_parts.h) release does not decrement. And once as
// WITHOUT_IDEVICE: the GEMM and quantizer alone, declaring a
// device no IDevice of the plugin serves (conformance cannot check them).
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "teplug/teplug.h"
#include "tools/teplug/conformance_plugins/opaque_device.h"
#include "tools/teplug/conformance_plugins/plugin_parts.h"

namespace {

using conformance_plugins::AddRef;
using conformance_plugins::Error;
using conformance_plugins::Release;
using opaque_device::Host;
using opaque_device::kOpencl;
using opaque_device::OnDevice;
using opaque_device::UnservedDevice;

const TeplugIID kGemmIid = TEPLUG_IID_GEMM_V1_INIT;
const TeplugIID kQuantizerIid = TEPLUG_IID_QUANTIZER_V1_INIT;
const TeplugIID kNormIid = TEPLUG_IID_NORM_V1_INIT;

// ---- IGemm: fp32 on opencl:0 memory ----

const char* UnservedGemm(const TeplugGemmArgs* g) {
  if (!OnDevice(g->a) || !OnDevice(g->b) || !OnDevice(g->d))
    return "only fp32 A, B and D in opencl:0 memory";
  if (g->c != nullptr || g->bias != nullptr || g->pre_gelu_out != nullptr || g->epilogue != 0 ||
      g->accumulate != 0)
    return "no C, bias, GELU or accumulate";
  if (g->a->quant != nullptr || g->b->quant != nullptr) return "no quantized operands";
  return nullptr;
}

TeplugBool GemmSupports(TeplugObject*, int32_t op, const void* args, char* reason,
                        size_t reason_size) {
  return conformance_plugins::AnswerSupports(
      op != TEPLUG_OP_GEMM ? "only gemm" : UnservedGemm(static_cast<const TeplugGemmArgs*>(args)),
      reason, reason_size);
}

// The GEMM's scratch in device memory: it keeps its row sums there, so a
// workspace of host memory (or none) is refused or crashes.
constexpr size_t kGemmWorkspaceBytes = 256;

TeplugError* Workspace(TeplugGemmV1*, const TeplugGemmArgs*, size_t* bytes) {
#ifdef LIE_WORKSPACE
  *bytes = 0;
#else
  *bytes = kGemmWorkspaceBytes;
#endif
  return nullptr;
}

// Element (r, c) of a row-major rank-2 fp32 tensor in device memory.
float& At(const TeplugTensor* t, int64_t r, int64_t c) {
  const int64_t ld = t->strides[0] != 0 ? t->strides[0] : t->shape[1];
  return static_cast<float*>(Host(t->data))[r * ld + c];
}

TeplugError* Gemm(TeplugGemmV1*, const TeplugGemmArgs* g) {
  if (g == nullptr || g->struct_size < TEPLUG_STRUCT_SIZE(TeplugGemmArgs, stream))
    return Error(TEPLUG_INVALID_ARGUMENT, "gemm: args NULL or struct_size too small");
#ifdef LIE_STRUCT_SIZE
  if (g->struct_size != sizeof(TeplugGemmArgs))
    return Error(TEPLUG_INVALID_ARGUMENT, "gemm: struct_size is not sizeof(TeplugGemmArgs)");
#endif
  if (g->a == nullptr || g->b == nullptr || g->d == nullptr)
    return Error(TEPLUG_INVALID_ARGUMENT, "gemm: a, b and d are required");
  if (const char* why = UnservedGemm(g)) return Error(TEPLUG_UNSUPPORTED, why);
  if (g->workspace == nullptr || g->workspace_size < kGemmWorkspaceBytes)
    return Error(TEPLUG_INVALID_ARGUMENT, "gemm: needs 256 bytes of workspace on opencl:0");
  const int64_t m = g->d->shape[0], n = g->d->shape[1];
  const int64_t k = g->trans_a ? g->a->shape[0] : g->a->shape[1];
  float* acc = static_cast<float*>(std::malloc(sizeof(float) * static_cast<size_t>(m * n)));
  if (acc == nullptr) return Error(TEPLUG_OUT_OF_MEMORY, "gemm: no memory for the accumulator");
  for (int64_t i = 0; i < m * n; ++i) acc[i] = 0;
  for (int64_t p = 0; p < k; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        acc[i * n + j] += (g->trans_a ? At(g->a, p, i) : At(g->a, i, p)) *
                          (g->trans_b ? At(g->b, j, p) : At(g->b, p, j));
  // A checksum of the first row kept in the workspace (device memory): a
  // workspace that is not a handle of this device is not writable here.
  float* scratch = static_cast<float*>(Host(g->workspace));
  scratch[0] = 0;
  for (int64_t j = 0; j < n; ++j) scratch[0] += acc[j];
#ifndef LIE_FORGETS_COPY
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) At(g->d, i, j) = g->alpha * acc[i * n + j];
#endif
  std::free(acc);
  return nullptr;
}

const TeplugGemmV1Vtbl kGemmVtbl = {
    {sizeof(TeplugGemmV1Vtbl), &conformance_plugins::QueryOne<&kGemmIid>, &AddRef, &Release},
    &GemmSupports,
    &Workspace,
    &Gemm};
TeplugGemmV1 g_gemm = {&kGemmVtbl};

// ---- IQuantizer: fp32 -> fp8_e4m3, per-tensor current scaling, row-wise ----

const char* UnservedQuantize(const TeplugQuantizeArgs* a) {
  if (a->input == nullptr || a->output == nullptr || a->output->quant == nullptr)
    return "input, output and output->quant are required";
  const TeplugQuantization* q = a->output->quant;
  if (!OnDevice(a->input) || a->output->dtype != TEPLUG_DTYPE_FP8_E4M3 ||
      a->output->device == nullptr || UnservedDevice(a->output->device) != nullptr)
    return "only fp32 input to fp8_e4m3 output in opencl:0 memory";
  if (q->mode != TEPLUG_SCALING_PER_TENSOR || a->recipe != TEPLUG_RECIPE_CURRENT)
    return "only per-tensor current scaling";
  if (a->columnwise != 0 || a->rowwise == 0) return "only the row-wise output";
  if (q->scale == nullptr || q->scale_inv == nullptr || q->amax == nullptr)
    return "scale, scale_inv and amax are required";
  return nullptr;
}

TeplugBool QuantizerSupports(TeplugObject*, int32_t op, const void* args, char* reason,
                             size_t reason_size) {
  return conformance_plugins::AnswerSupports(
      op != TEPLUG_OP_QUANTIZE ? "only quantize"
                               : UnservedQuantize(static_cast<const TeplugQuantizeArgs*>(args)),
      reason, reason_size);
}

#ifdef LIE_FORGETS_COPY
// Where the lying quantizer keeps scale_inv instead of the device's memory.
float g_kept_scale_inv = 0;
#endif

// fp8_e4m3 code of `v`: round to nearest even, saturating to +-448.
uint8_t E4m3(float v) {
  const uint8_t sign = std::signbit(v) ? 0x80 : 0;
  const double a = std::fabs(static_cast<double>(v));
  if (a >= 448) return sign | 0x7E;
  if (a < std::ldexp(1.0, -6)) return sign | static_cast<uint8_t>(std::nearbyint(std::ldexp(a, 9)));
  int e = 0;
  std::frexp(a, &e);  // a = f * 2^e, f in [0.5, 1)
  int exponent = e - 1;
  int mantissa = static_cast<int>(std::nearbyint((std::ldexp(a, -exponent) - 1) * 8));
  if (mantissa == 8) mantissa = 0, ++exponent;
  const int code = ((exponent + 7) << 3) | mantissa;
  return sign | static_cast<uint8_t>(code > 0x7E ? 0x7E : code);
}

TeplugError* Quantize(TeplugQuantizerV1*, const TeplugQuantizeArgs* a) {
  if (a == nullptr) return Error(TEPLUG_INVALID_ARGUMENT, "quantize: args are required");
  if (const char* why = UnservedQuantize(a)) return Error(TEPLUG_UNSUPPORTED, why);
  int64_t n = 1;
  for (int i = 0; i < a->input->rank; ++i) n *= a->input->shape[i];
  const float* x = static_cast<const float*>(Host(a->input->data));
  float amax = 0;
  for (int64_t i = 0; i < n; ++i) amax = std::fmax(amax, std::fabs(x[i]));
  const float bounded = std::fmax(amax, a->amax_epsilon);
  float scale = bounded == 0 || !std::isfinite(bounded) ? 1.0f : 448.0f / bounded;
  if (std::isinf(scale)) scale = 3.40282347e38f;
  if (a->force_pow2_scales != 0) {
    uint32_t bits;
    std::memcpy(&bits, &scale, 4);
    bits &= 0xFF800000u;
    std::memcpy(&scale, &bits, 4);
  }
  const float scale_inv = 1.0f / scale;
  const TeplugQuantization* q = a->output->quant;
  auto* codes = static_cast<uint8_t*>(Host(a->output->data));
  for (int64_t i = 0; i < n; ++i) codes[i] = E4m3(x[i] * scale);
  *static_cast<float*>(Host(q->scale->data)) = scale;
  *static_cast<float*>(Host(q->amax->data)) = amax;
#ifdef LIE_FORGETS_COPY
  g_kept_scale_inv = scale_inv;
#else
  *static_cast<float*>(Host(q->scale_inv->data)) = scale_inv;
#endif
  return nullptr;
}

TeplugError* Dequantize(TeplugQuantizerV1*, const TeplugDequantizeArgs*) {
  return Error(TEPLUG_UNSUPPORTED, "dequantize: not served");
}

const TeplugQuantizerV1Vtbl kQuantizerVtbl = {
    {sizeof(TeplugQuantizerV1Vtbl), &conformance_plugins::QueryOne<&kQuantizerIid>, &AddRef,
     &Release},
    &QuantizerSupports,
    &Quantize,
    &Dequantize};
TeplugQuantizerV1 g_quantizer = {&kQuantizerVtbl};

// ---- INorm: fp32 RMSNorm forward ----

const char* UnservedNorm(int32_t op, const void* args) {
  if (op != TEPLUG_NORM_OP_FORWARD) return "only the forward";
  const auto* a = static_cast<const TeplugNormFwdArgs*>(args);
  if (a == nullptr || a->norm_type != TEPLUG_NORM_RMSNORM) return "only RMSNorm";
  if (!OnDevice(a->x) || !OnDevice(a->gamma) || !OnDevice(a->y) ||
      (a->rsigma != nullptr && !OnDevice(a->rsigma)))
    return "only fp32 x, gamma, y and rsigma in opencl:0 memory";
  return nullptr;
}

TeplugBool NormSupports(TeplugObject*, int32_t op, const void* args, char* reason,
                        size_t reason_size) {
#ifdef LIE_NO_REASON
  // The lie: no without a reason.
  return conformance_plugins::AnswerSupports(UnservedNorm(op, args) == nullptr ? nullptr : "",
                                             reason, reason_size);
#else
  return conformance_plugins::AnswerSupports(UnservedNorm(op, args), reason, reason_size);
#endif
}

TeplugError* NormWorkspace(TeplugNormV1*, int32_t, const void*, size_t* bytes) {
  *bytes = 0;
  return nullptr;
}

TeplugError* NormForward(TeplugNormV1*, const TeplugNormFwdArgs* a) {
  if (const char* why = UnservedNorm(TEPLUG_NORM_OP_FORWARD, a))
    return Error(TEPLUG_UNSUPPORTED, why);
  const int64_t hidden = a->x->shape[a->x->rank - 1];
  int64_t rows = 1;
  for (int i = 0; i + 1 < a->x->rank; ++i) rows *= a->x->shape[i];
#ifdef LIE_FORGETS_COPY
  float* rsigma = nullptr;
#else
  float* rsigma = a->rsigma == nullptr ? nullptr : static_cast<float*>(Host(a->rsigma->data));
#endif
  conformance_plugins::RmsNormRows(
      static_cast<const float*>(Host(a->x->data)), static_cast<const float*>(Host(a->gamma->data)),
      static_cast<float*>(Host(a->y->data)), rsigma, rows, hidden, static_cast<double>(hidden),
      a->epsilon, a->zero_centered_gamma != 0);
  return nullptr;
}

TeplugError* NormBackward(TeplugNormV1*, const TeplugNormBwdArgs*) {
  return Error(TEPLUG_UNSUPPORTED, "backward: not served");
}

const TeplugNormV1Vtbl kNormVtbl = {
    {sizeof(TeplugNormV1Vtbl), &conformance_plugins::QueryOne<&kNormIid>, &AddRef, &Release},
    &NormSupports,
    &NormWorkspace,
    &NormForward,
    &NormBackward};
TeplugNormV1 g_norm = {&kNormVtbl};

constexpr uint64_t kFp32 = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32);
const TeplugGemmCaps kGemmCaps = {
    sizeof(TeplugGemmCaps), kOpencl, 1, kFp32, kFp32, kFp32, 0, 0, 0, 0};
const TeplugNormCaps kNormCaps = {sizeof(TeplugNormCaps),
                                  kOpencl,
                                  1,
                                  kFp32,
                                  kFp32,
                                  kFp32,
                                  TEPLUG_NORM_TYPE_BIT(TEPLUG_NORM_RMSNORM),
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0};
const TeplugQuantizerCaps kQuantizerCaps = {sizeof(TeplugQuantizerCaps),
                                            kOpencl,
                                            1,
                                            kFp32,
                                            TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3),
                                            TEPLUG_SCALING_BIT(TEPLUG_SCALING_PER_TENSOR),
                                            TEPLUG_QUANT_CAP_CURRENT_SCALING};

}  // namespace

extern "C" TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(const TeplugHostApi* host,
                                                                 TeplugPluginInfo* info) {
#ifdef WITHOUT_IDEVICE
  if (TeplugError* e = conformance_plugins::RegisterOne(host, info, PLUGIN_PROVIDER_NAME, kGemmIid,
                                                        reinterpret_cast<TeplugObject*>(&g_gemm),
                                                        &kGemmCaps, "opaque_gemm"))
    return e;
#else
  if (TeplugError* e = conformance_plugins::RegisterOne(
          host, info, PLUGIN_PROVIDER_NAME, opaque_device::kDeviceIid,
          reinterpret_cast<TeplugObject*>(&opaque_device::g_opaque_device),
          &opaque_device::kOpaqueDeviceCaps, "opaque_device"))
    return e;
  if (TeplugError* e = conformance_plugins::RegisterImplementation(
          host, kGemmIid, reinterpret_cast<TeplugObject*>(&g_gemm), &kGemmCaps, "opaque_gemm"))
    return e;
#endif
  if (TeplugError* e = conformance_plugins::RegisterImplementation(
          host, kQuantizerIid, reinterpret_cast<TeplugObject*>(&g_quantizer), &kQuantizerCaps,
          "opaque_quantizer"))
    return e;
  return conformance_plugins::RegisterImplementation(
      host, kNormIid, reinterpret_cast<TeplugObject*>(&g_norm), &kNormCaps, "opaque_rmsnorm");
}
