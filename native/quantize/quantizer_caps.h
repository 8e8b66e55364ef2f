// The capability descriptor of the native IQuantizer: what its kernels serve.
// CUDA devices of any vendor id and arch (an unnamed vendor or unknown arch
// must reach `supports`, which answers with the runtime's reason or the
// sm_80 minimum); fp32/fp16/bf16 <-> fp8 e4m3/e5m2; per_tensor, mxfp8_1d32,
// block_1d128, block_2d128; column-wise copies, dequantize, current and
// delayed scaling. No fp4.
#ifndef TEPLUG_NATIVE_QUANTIZE_QUANTIZER_CAPS_H_
#define TEPLUG_NATIVE_QUANTIZE_QUANTIZER_CAPS_H_

#include "teplug/quantizer.h"

namespace teplug::native::quantize {

// Static storage, valid for the life of the process.
// Without TEPLUG_QUANT_CAP_MX_TE_SCALE for a host older than v1.3.
const TeplugQuantizerCaps* NativeQuantizerCaps(uint32_t host_abi_max = TEPLUG_ABI_VERSION_CURRENT);

}  // namespace teplug::native::quantize

#endif  // TEPLUG_NATIVE_QUANTIZE_QUANTIZER_CAPS_H_
