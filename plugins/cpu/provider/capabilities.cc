#include "plugins/cpu/provider/capabilities.h"

#include "teplug/sdk/struct_io.hpp"

namespace teplug::cpu::provider {
namespace {

const TeplugDeviceSupport kHostOnly[] = {
    {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CPU, TEPLUG_VENDOR_ANY, 0, 0}};

constexpr uint64_t kFloatDTypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32) |
                                  TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP16) |
                                  TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);

TeplugGemmCaps MakeGemmCaps() {
  TeplugGemmCaps c = sdk::Versioned<TeplugGemmCaps>();
  c.devices = kHostOnly;
  c.num_devices = 1;
  c.a_dtypes = kFloatDTypes;
  c.b_dtypes = kFloatDTypes;
  c.d_dtypes = kFloatDTypes;
  c.epilogues = TEPLUG_GEMM_CAP_BIAS | TEPLUG_GEMM_CAP_GELU | TEPLUG_GEMM_CAP_GELU_AUX |
                TEPLUG_GEMM_CAP_ACCUMULATE;
  c.scaling_modes = 0;
  c.alignment = 0;
  c.max_dim = 0;
  return c;
}

}  // namespace

const TeplugGemmCaps* CpuGemmCaps() {
  static const TeplugGemmCaps caps = MakeGemmCaps();
  return &caps;
}

}  // namespace teplug::cpu::provider
