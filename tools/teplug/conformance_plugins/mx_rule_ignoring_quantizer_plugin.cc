// A quantizer plugin (plain C ABI) that serves fp32 -> fp8_e4m3 in
// mxfp8_1d32 by the OCP rule of quantizer.h, bit for bit, and declares
// TransformerEngine's rule (TEPLUG_QUANT_CAP_MX_TE_SCALE) without honouring
// it: it never reads mx_scale_rule. `teplug conformance` must pass its OCP
// cases and fail features=mx_te_scale.
#include <cmath>
#include <cstring>

#include "teplug/teplug.h"
#include "tools/teplug/conformance_plugins/plugin_parts.h"

namespace {

using conformance_plugins::AddRef;
using conformance_plugins::Error;
using conformance_plugins::Release;

const TeplugIID kQuantizerIid = TEPLUG_IID_QUANTIZER_V1_INIT;

const char* Unserved(const TeplugQuantizeArgs* a) {
  if (a == nullptr || a->input == nullptr || a->output == nullptr || a->output->quant == nullptr)
    return "quantize: input, output and output quant are required";
  const TeplugQuantization* q = a->output->quant;
  if (a->input->dtype != TEPLUG_DTYPE_FP32 || a->output->dtype != TEPLUG_DTYPE_FP8_E4M3)
    return "only fp32 -> fp8_e4m3";
  if (q->mode != TEPLUG_SCALING_MXFP8_1D32) return "only mxfp8_1d32";
  if (q->scale_inv == nullptr) return "quantize: output scale_inv is required";
  if (a->columnwise || !a->rowwise) return "only the row-wise copy";
  if (a->input->rank != 2) return "only rank 2";
  return nullptr;
}

TeplugBool Supports(TeplugObject*, int32_t op, const void* args, char* reason, size_t size) {
  const char* why = op != TEPLUG_OP_QUANTIZE
                        ? "only quantize"
                        : Unserved(static_cast<const TeplugQuantizeArgs*>(args));
  return conformance_plugins::AnswerSupports(why, reason, size);
}

TeplugError* Quantize(TeplugQuantizerV1*, const TeplugQuantizeArgs* a) {
  if (const char* why = Unserved(a)) return Error(TEPLUG_UNSUPPORTED, why);
  const int64_t rows = a->input->shape[0], cols = a->input->shape[1];
  const auto* x = static_cast<const float*>(a->input->data);
  conformance_plugins::QuantizeMxRowsE4m3(x, rows, cols, static_cast<uint8_t*>(a->output->data),
                                          static_cast<uint8_t*>(a->output->quant->scale_inv->data));
  if (a->output->quant->amax != nullptr) {
    float amax = 0;
    for (int64_t i = 0; i < rows * cols; ++i)
      if (!std::isnan(x[i])) amax = std::fmax(amax, std::fabs(x[i]));
    std::memcpy(a->output->quant->amax->data, &amax, sizeof amax);
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
                                   TEPLUG_SCALING_BIT(TEPLUG_SCALING_MXFP8_1D32),
                                   TEPLUG_QUANT_CAP_MX_TE_SCALE};

}  // namespace

extern "C" TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(const TeplugHostApi* host,
                                                                 TeplugPluginInfo* info) {
  return conformance_plugins::RegisterOne(host, info, "conformance_mx_rule_ignored", kQuantizerIid,
                                          reinterpret_cast<TeplugObject*>(&g_quantizer), &kCaps,
                                          "mxfp8");
}
