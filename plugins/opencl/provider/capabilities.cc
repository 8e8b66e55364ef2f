#include "plugins/opencl/provider/capabilities.h"

#include "teplug/sdk/caps_for_host.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::opencl::provider {
namespace {

const TeplugDeviceSupport kOpenClDevices[] = {
    {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_OPENCL, TEPLUG_VENDOR_ANY, 0, 0}};

TeplugDeviceCaps MakeDeviceCaps() {
  TeplugDeviceCaps c = sdk::Versioned<TeplugDeviceCaps>();
  c.devices = kOpenClDevices;
  c.num_devices = 1;
  return c;
}

TeplugGemmCaps MakeGemmCaps() {
  TeplugGemmCaps c = sdk::Versioned<TeplugGemmCaps>();
  c.devices = kOpenClDevices;
  c.num_devices = 1;
  const uint64_t dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP16);
  c.d_dtypes = dtypes;
  // Operands CLBlast cannot read are converted to fp32 by our kernels first.
  c.a_dtypes = c.b_dtypes = dtypes | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16) |
                            TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3) |
                            TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E5M2);
  c.epilogues = TEPLUG_GEMM_CAP_BIAS | TEPLUG_GEMM_CAP_GELU | TEPLUG_GEMM_CAP_GELU_AUX |
                TEPLUG_GEMM_CAP_ACCUMULATE;
  c.scaling_modes =
      TEPLUG_SCALING_BIT(TEPLUG_SCALING_PER_TENSOR) | TEPLUG_SCALING_BIT(TEPLUG_SCALING_MXFP8_1D32);
  c.alignment = 0;
  c.max_dim = 0;
  return c;
}

TeplugQuantizerCaps MakeQuantizerCaps() {
  TeplugQuantizerCaps c = sdk::Versioned<TeplugQuantizerCaps>();
  c.devices = kOpenClDevices;
  c.num_devices = 1;
  c.input_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP16) |
                   TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
  c.output_dtypes =
      TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E5M2);
  c.scaling_modes =
      TEPLUG_SCALING_BIT(TEPLUG_SCALING_PER_TENSOR) | TEPLUG_SCALING_BIT(TEPLUG_SCALING_MXFP8_1D32);
  c.features = TEPLUG_QUANT_CAP_COLUMNWISE | TEPLUG_QUANT_CAP_DEQUANTIZE |
               TEPLUG_QUANT_CAP_CURRENT_SCALING | TEPLUG_QUANT_CAP_DELAYED_SCALING |
               TEPLUG_QUANT_CAP_MX_TE_SCALE;
  return c;
}

}  // namespace

const TeplugQuantizerCaps* OpenClQuantizerCaps(uint32_t host_abi_max) {
  static const TeplugQuantizerCaps caps = MakeQuantizerCaps();
  static const TeplugQuantizerCaps before_1_3 = sdk::ForHostAbi(caps, sdk::kAbiBeforeMxTeScale);
  return host_abi_max >= TEPLUG_ABI_VERSION(1, 3) ? &caps : &before_1_3;
}

const TeplugGemmCaps* OpenClGemmCaps() {
  static const TeplugGemmCaps caps = MakeGemmCaps();
  return &caps;
}

const TeplugDeviceCaps* OpenClDeviceCaps() {
  static const TeplugDeviceCaps caps = MakeDeviceCaps();
  return &caps;
}

}  // namespace teplug::opencl::provider
