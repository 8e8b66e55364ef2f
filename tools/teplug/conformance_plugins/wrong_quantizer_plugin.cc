// A quantizer plugin (plain C ABI) whose numbers are wrong: it declares
// fp32 -> fp8_e4m3 per-tensor current scaling, keeps the contract, and
// writes the code of 1.0 for every element with scale_inv 1, whatever the
// input. `teplug conformance` must fail it on its quantizer's claims. Built
// with BLOCK_CLAIMS it declares block_1d128 scaling, column-wise output and
// delayed scaling instead (and writes no column-wise copy): conformance must
// fail those claims too.
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "teplug/teplug.h"
#include "tools/teplug/conformance_plugins/plugin_parts.h"

namespace {

using conformance_plugins::AddRef;
using conformance_plugins::Error;
using conformance_plugins::Release;

const TeplugIID kQuantizerIid = TEPLUG_IID_QUANTIZER_V1_INIT;
const TeplugIID kObjectIid = TEPLUG_IID_OBJECT_INIT;
constexpr uint8_t kE4m3One = 0x38;  // sign 0, exponent 7 (bias 7), mantissa 0

TeplugObject* Query(TeplugObject* self, const TeplugIID* iid) {
  if (iid == nullptr ||
      !(teplug_iid_equal(iid, &kQuantizerIid) || teplug_iid_equal(iid, &kObjectIid)))
    return nullptr;
  AddRef(self);
  return self;
}

TeplugError* Quantize(TeplugQuantizerV1*, const TeplugQuantizeArgs* a) {
  if (a == nullptr || a->input == nullptr || a->output == nullptr || a->output->quant == nullptr ||
      a->output->quant->scale_inv == nullptr)
    return Error(TEPLUG_INVALID_ARGUMENT,
                 "quantize: input, output and output scale_inv are required");
  if (a->input->dtype != TEPLUG_DTYPE_FP32 || a->output->dtype != TEPLUG_DTYPE_FP8_E4M3)
    return Error(TEPLUG_UNSUPPORTED, "quantize: only fp32 input to fp8_e4m3 output");
  int64_t n = 1;
  for (int i = 0; i < a->output->rank; ++i) n *= a->output->shape[i];
  std::memset(a->output->data, kE4m3One, static_cast<size_t>(n));
  const float one = 1.0f;
  std::memcpy(a->output->quant->scale_inv->data, &one, sizeof one);
  return nullptr;
}
TeplugError* Dequantize(TeplugQuantizerV1*, const TeplugDequantizeArgs*) {
  return Error(TEPLUG_UNSUPPORTED, "dequantize: not served");
}

const TeplugQuantizerV1Vtbl kVtbl = {
    {sizeof(TeplugQuantizerV1Vtbl), &Query, &AddRef, &Release}, nullptr, &Quantize, &Dequantize};
TeplugQuantizerV1 g_quantizer = {&kVtbl};

const TeplugDeviceSupport kCpu[] = {
    {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CPU, TEPLUG_VENDOR_ANY, 0, 0}};
const TeplugQuantizerCaps kCaps = {
    sizeof(TeplugQuantizerCaps),
    kCpu,
    1,
    TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32),
    TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3),
#ifdef BLOCK_CLAIMS
    TEPLUG_SCALING_BIT(TEPLUG_SCALING_PER_TENSOR) | TEPLUG_SCALING_BIT(TEPLUG_SCALING_BLOCK_1D128),
    TEPLUG_QUANT_CAP_COLUMNWISE | TEPLUG_QUANT_CAP_DELAYED_SCALING};
#else
    TEPLUG_SCALING_BIT(TEPLUG_SCALING_PER_TENSOR),
    TEPLUG_QUANT_CAP_CURRENT_SCALING};
#endif

}  // namespace

extern "C" TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(const TeplugHostApi* host,
                                                                 TeplugPluginInfo* info) {
  return conformance_plugins::RegisterOne(
#ifdef BLOCK_CLAIMS
      host, info, "conformance_quantizer_block_claims", kQuantizerIid,
#else
      host, info, "conformance_quantizer_numbers", kQuantizerIid,
#endif
      reinterpret_cast<TeplugObject*>(&g_quantizer), &kCaps, "ones");
}
