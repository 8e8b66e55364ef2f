// A quantizer plugin (plain C ABI) that is right about everything but its
// column-wise copy: fp32 -> fp8_e4m3, per-tensor current scaling by
// quantizer.h's rules (bit for bit: scale = 448 / amax in fp32, codes
// rounded to nearest even and saturated), and a column-wise copy that it
// declares but writes untransposed (the row-wise codes again, [rows, cols]
// bytes where quantizer.h wants the transpose). `teplug conformance` must
// pass its row-wise claims and fail features=columnwise.
#include <cfloat>
#include <cmath>
#include <cstring>

#include "teplug/teplug.h"
#include "tools/teplug/conformance_plugins/plugin_parts.h"

namespace {

using conformance_plugins::AddRef;
using conformance_plugins::EncodeE4m3;
using conformance_plugins::Error;
using conformance_plugins::Release;

const TeplugIID kQuantizerIid = TEPLUG_IID_QUANTIZER_V1_INIT;

const char* Unserved(const TeplugQuantizeArgs* a) {
  if (a == nullptr || a->input == nullptr || a->output == nullptr || a->output->quant == nullptr)
    return "quantize: input, output and output quant are required";
  const TeplugQuantization* q = a->output->quant;
  if (a->input->dtype != TEPLUG_DTYPE_FP32 || a->output->dtype != TEPLUG_DTYPE_FP8_E4M3)
    return "only fp32 -> fp8_e4m3";
  if (q->mode != TEPLUG_SCALING_PER_TENSOR || a->recipe != TEPLUG_RECIPE_CURRENT)
    return "only per_tensor current scaling";
  if (q->scale_inv == nullptr) return "quantize: output scale_inv is required";
  if (a->columnwise && (q->columnwise_data == nullptr || q->columnwise_scale_inv == nullptr))
    return "quantize: columnwise needs columnwise_data and columnwise_scale_inv";
  if (a->input->rank != 2 || a->amax_epsilon != 0 || a->force_pow2_scales)
    return "only rank 2, no amax_epsilon, no force_pow2_scales";
  return nullptr;
}

TeplugBool Supports(TeplugObject*, int32_t op, const void* args, char* reason, size_t size) {
  const char* why = op != TEPLUG_OP_QUANTIZE
                        ? "only quantize"
                        : Unserved(static_cast<const TeplugQuantizeArgs*>(args));
  return conformance_plugins::AnswerSupports(why, reason, size);
}

void PutFloat(const TeplugTensor* t, float v) {
  if (t != nullptr) std::memcpy(t->data, &v, sizeof v);
}

TeplugError* Quantize(TeplugQuantizerV1*, const TeplugQuantizeArgs* a) {
  if (const char* why = Unserved(a)) return Error(TEPLUG_UNSUPPORTED, why);
  const int64_t n = a->input->shape[0] * a->input->shape[1];
  const auto* x = static_cast<const float*>(a->input->data);
  float amax = 0;
  for (int64_t i = 0; i < n; ++i)
    if (!std::isnan(x[i])) amax = std::fmax(amax, std::fabs(x[i]));
  float scale = amax == 0 || std::isinf(amax) ? 1.0f : 448.0f / amax;
  if (std::isinf(scale)) scale = FLT_MAX;
  const TeplugQuantization* q = a->output->quant;
  PutFloat(q->scale, scale);
  PutFloat(q->scale_inv, 1.0f / scale);
  PutFloat(q->amax, amax);
  auto* codes = static_cast<uint8_t*>(a->output->data);
  for (int64_t i = 0; i < n; ++i) codes[i] = EncodeE4m3(x[i] * scale);
  if (a->columnwise) {
    // The lie: the row-wise codes again, not their transpose.
    std::memcpy(q->columnwise_data->data, codes, static_cast<size_t>(n));
    PutFloat(q->columnwise_scale_inv, 1.0f / scale);
  }
  return nullptr;
}

TeplugError* Dequantize(TeplugQuantizerV1*, const TeplugDequantizeArgs*) {
  return Error(TEPLUG_UNSUPPORTED, "dequantize: not served");
}

const TeplugQuantizerV1Vtbl kVtbl = {
    {sizeof(TeplugQuantizerV1Vtbl), &conformance_plugins::QueryOne<&kQuantizerIid>, &AddRef,
     &Release},
    &Supports,
    &Quantize,
    &Dequantize};
TeplugQuantizerV1 g_quantizer = {&kVtbl};

const TeplugDeviceSupport kCpu[] = {
    {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CPU, TEPLUG_VENDOR_ANY, 0, 0}};
const TeplugQuantizerCaps kCaps = {sizeof(TeplugQuantizerCaps),
                                   kCpu,
                                   1,
                                   TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32),
                                   TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3),
                                   TEPLUG_SCALING_BIT(TEPLUG_SCALING_PER_TENSOR),
                                   TEPLUG_QUANT_CAP_CURRENT_SCALING | TEPLUG_QUANT_CAP_COLUMNWISE};

}  // namespace

extern "C" TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(const TeplugHostApi* host,
                                                                 TeplugPluginInfo* info) {
  return conformance_plugins::RegisterOne(
      host, info, "conformance_columnwise_untransposed", kQuantizerIid,
      reinterpret_cast<TeplugObject*>(&g_quantizer), &kCaps, "per_tensor");
}
