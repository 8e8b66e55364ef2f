// A GEMM plugin (plain C ABI) that is wrong about block scaling: it declares
// fp8_e4m3 operands in block_1d128 scaling with an fp32 D, and reads every
// element of a row with the scale of the row's FIRST 128-element block, so it
// is right while K fits one block and wrong beyond. `teplug conformance` must
// fail it on scaling_modes=block_1d128 with a reproducing command.
#include <cmath>
#include <cstring>
#include <vector>

#include "teplug/teplug.h"
#include "tools/teplug/conformance_plugins/plugin_parts.h"

namespace {

using conformance_plugins::AddRef;
using conformance_plugins::Error;
using conformance_plugins::Release;

const TeplugIID kGemmIid = TEPLUG_IID_GEMM_V1_INIT;
constexpr uint64_t kE4m3 = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3);
constexpr uint64_t kFp32 = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32);

bool BlockE4m3(const TeplugTensor* t) {
  return t != nullptr && t->dtype == TEPLUG_DTYPE_FP8_E4M3 && t->rank == 2 && t->quant != nullptr &&
         t->quant->mode == TEPLUG_SCALING_BLOCK_1D128 && t->quant->scale_inv != nullptr;
}

// Why these args are not served, or NULL when they are.
const char* Unserved(const TeplugGemmArgs* g) {
  if (!BlockE4m3(g->a) || !BlockE4m3(g->b)) return "only fp8_e4m3 operands in block_1d128 scaling";
  if (g->d == nullptr || g->d->dtype != TEPLUG_DTYPE_FP32) return "only an fp32 D";
  if (g->bias != nullptr || g->pre_gelu_out != nullptr || g->epilogue != 0 || g->accumulate != 0)
    return "no bias, GELU or accumulate";
  return nullptr;
}

TeplugBool Supports(TeplugObject*, int32_t op, const void* args, char* reason, size_t reason_size) {
  const char* why =
      op != TEPLUG_OP_GEMM ? "only gemm" : Unserved(static_cast<const TeplugGemmArgs*>(args));
  return conformance_plugins::AnswerSupports(why, reason, reason_size);
}

TeplugError* Workspace(TeplugGemmV1*, const TeplugGemmArgs*, size_t* bytes) {
  *bytes = 0;
  return nullptr;
}

// OCP e4m3: bias 7, 3 mantissa bits, subnormals; 0x7F/0xFF are NaN.
float DecodeE4m3(uint8_t code) {
  const int exponent = (code >> 3) & 0xF, mantissa = code & 7;
  const float sign = (code & 0x80) != 0 ? -1.0f : 1.0f;
  if ((code & 0x7F) == 0x7F) return NAN;
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), -9);
  return sign * std::ldexp(1.0f + mantissa / 8.0f, exponent - 7);
}

// The real values of a contiguous block_1d128 tensor, row-major. The lie is
// the scale: always the row's first block's.
std::vector<float> Dequantize(const TeplugTensor* t) {
  const int64_t rows = t->shape[0], cols = t->shape[1], blocks = (cols + 127) / 128;
  const auto* codes = static_cast<const uint8_t*>(t->data);
  const auto* scale_inv = static_cast<const float*>(t->quant->scale_inv->data);
  std::vector<float> v(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      v[r * cols + c] = DecodeE4m3(codes[r * cols + c]) * scale_inv[r * blocks];
  return v;
}

TeplugError* Gemm(TeplugGemmV1*, const TeplugGemmArgs* g) {
  if (g == nullptr || g->struct_size < TEPLUG_STRUCT_SIZE(TeplugGemmArgs, stream))
    return Error(TEPLUG_INVALID_ARGUMENT, "gemm: args NULL or struct_size too small");
  if (g->a == nullptr || g->b == nullptr || g->d == nullptr)
    return Error(TEPLUG_INVALID_ARGUMENT, "gemm: a, b and d are required");
  if (Unserved(g) != nullptr) return Error(TEPLUG_UNSUPPORTED, Unserved(g));
  const int64_t m = g->d->shape[0], n = g->d->shape[1];
  const int64_t k = g->trans_a ? g->a->shape[0] : g->a->shape[1];
  const std::vector<float> a = Dequantize(g->a), b = Dequantize(g->b);
  const int64_t lda = g->a->shape[1], ldb = g->b->shape[1];
  auto* d = static_cast<float*>(g->d->data);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0;
      for (int64_t p = 0; p < k; ++p)
        acc += (g->trans_a ? a[p * lda + i] : a[i * lda + p]) *
               (g->trans_b ? b[j * ldb + p] : b[p * ldb + j]);
      float v = g->alpha * acc;
      if (g->c != nullptr && g->beta != 0)
        v += g->beta * static_cast<const float*>(g->c->data)[i * n + j];
      d[i * n + j] = v;
    }
  return nullptr;
}

const TeplugGemmV1Vtbl kVtbl = {
    {sizeof(TeplugGemmV1Vtbl), &conformance_plugins::QueryOne<&kGemmIid>, &AddRef, &Release},
    &Supports,
    &Workspace,
    &Gemm};
TeplugGemmV1 g_gemm = {&kVtbl};

const TeplugDeviceSupport kCpu[] = {
    {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CPU, TEPLUG_VENDOR_ANY, 0, 0}};
const TeplugGemmCaps kCaps = {sizeof(TeplugGemmCaps),
                              kCpu,
                              1,
                              kE4m3,
                              kE4m3,
                              kFp32,
                              0,
                              TEPLUG_SCALING_BIT(TEPLUG_SCALING_BLOCK_1D128),
                              0,
                              0};

}  // namespace

extern "C" TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(const TeplugHostApi* host,
                                                                 TeplugPluginInfo* info) {
  return conformance_plugins::RegisterOne(host, info, "conformance_block_scales", kGemmIid,
                                          reinterpret_cast<TeplugObject*>(&g_gemm), &kCaps,
                                          "first_block_scale");
}
