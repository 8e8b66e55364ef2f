#include "plugins/opencl/provider/capabilities.h"

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
  c.a_dtypes = c.b_dtypes = c.d_dtypes = dtypes;
  c.epilogues = TEPLUG_GEMM_CAP_BIAS | TEPLUG_GEMM_CAP_GELU | TEPLUG_GEMM_CAP_GELU_AUX |
                TEPLUG_GEMM_CAP_ACCUMULATE;
  c.scaling_modes = 0;
  c.alignment = 0;
  c.max_dim = 0;
  return c;
}

}  // namespace

const TeplugGemmCaps* OpenClGemmCaps() {
  static const TeplugGemmCaps caps = MakeGemmCaps();
  return &caps;
}

const TeplugDeviceCaps* OpenClDeviceCaps() {
  static const TeplugDeviceCaps caps = MakeDeviceCaps();
  return &caps;
}

}  // namespace teplug::opencl::provider
