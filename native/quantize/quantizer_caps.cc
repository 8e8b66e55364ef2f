#include "native/quantize/quantizer_caps.h"

#include "teplug/sdk/caps_for_host.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native::quantize {
namespace {

const TeplugDeviceSupport kCuda[] = {
    {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CUDA, TEPLUG_VENDOR_ANY, 0, 0}};

TeplugQuantizerCaps MakeQuantizerCaps() {
  TeplugQuantizerCaps c = sdk::Versioned<TeplugQuantizerCaps>();
  c.devices = kCuda;
  c.num_devices = 1;
  c.input_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP16) |
                   TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
  c.output_dtypes =
      TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E5M2);
  c.scaling_modes = TEPLUG_SCALING_BIT(TEPLUG_SCALING_PER_TENSOR) |
                    TEPLUG_SCALING_BIT(TEPLUG_SCALING_MXFP8_1D32) |
                    TEPLUG_SCALING_BIT(TEPLUG_SCALING_BLOCK_1D128) |
                    TEPLUG_SCALING_BIT(TEPLUG_SCALING_BLOCK_2D128);
  c.features = TEPLUG_QUANT_CAP_COLUMNWISE | TEPLUG_QUANT_CAP_DEQUANTIZE |
               TEPLUG_QUANT_CAP_CURRENT_SCALING | TEPLUG_QUANT_CAP_DELAYED_SCALING |
               TEPLUG_QUANT_CAP_MX_TE_SCALE;
  return c;
}

}  // namespace

const TeplugQuantizerCaps* NativeQuantizerCaps(uint32_t host_abi_max) {
  static const TeplugQuantizerCaps caps = MakeQuantizerCaps();
  static const TeplugQuantizerCaps before_1_3 = sdk::ForHostAbi(caps, sdk::kAbiBeforeMxTeScale);
  return host_abi_max >= TEPLUG_ABI_VERSION(1, 3) ? &caps : &before_1_3;
}

}  // namespace teplug::native::quantize
