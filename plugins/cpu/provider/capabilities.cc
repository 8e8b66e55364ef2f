#include "plugins/cpu/provider/capabilities.h"

#include "teplug/sdk/caps_for_host.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::cpu::provider {
namespace {

const TeplugDeviceSupport kHostOnly[] = {
    {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CPU, TEPLUG_VENDOR_ANY, 0, 0}};

constexpr uint64_t kFloatDTypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32) |
                                  TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP16) |
                                  TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);

constexpr uint64_t kFp8DTypes =
    TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E5M2);

constexpr uint32_t kRowwiseScalingModes = TEPLUG_SCALING_BIT(TEPLUG_SCALING_PER_TENSOR) |
                                          TEPLUG_SCALING_BIT(TEPLUG_SCALING_MXFP8_1D32) |
                                          TEPLUG_SCALING_BIT(TEPLUG_SCALING_BLOCK_1D128) |
                                          TEPLUG_SCALING_BIT(TEPLUG_SCALING_BLOCK_2D128);

TeplugGemmCaps MakeGemmCaps() {
  TeplugGemmCaps c = sdk::Versioned<TeplugGemmCaps>();
  c.devices = kHostOnly;
  c.num_devices = 1;
  // fp8 operands are decoded for the matmul (gemm_plan.h), with any of the
  // row-wise scaling modes.
  c.a_dtypes = kFloatDTypes | kFp8DTypes;
  c.b_dtypes = kFloatDTypes | kFp8DTypes;
  c.d_dtypes = kFloatDTypes;
  c.epilogues = TEPLUG_GEMM_CAP_BIAS | TEPLUG_GEMM_CAP_GELU | TEPLUG_GEMM_CAP_GELU_AUX |
                TEPLUG_GEMM_CAP_ACCUMULATE;
  c.scaling_modes = kRowwiseScalingModes;
  c.alignment = 0;
  c.max_dim = 0;
  return c;
}

TeplugAttentionCaps MakeAttentionCaps() {
  TeplugAttentionCaps c = sdk::Versioned<TeplugAttentionCaps>();
  c.devices = kHostOnly;
  c.num_devices = 1;
  c.qkv_dtypes = kFloatDTypes;
  c.layouts = (UINT32_C(1) << TEPLUG_LAYOUT_COUNT_) - 1;
  c.mask_types = (UINT32_C(1) << TEPLUG_MASK_COUNT_) - 1;
  c.bias_types = (UINT32_C(1) << TEPLUG_BIAS_COUNT_) - 1;
  c.features = TEPLUG_ATTN_CAP_DROPOUT | TEPLUG_ATTN_CAP_SLIDING_WINDOW | TEPLUG_ATTN_CAP_GQA |
               TEPLUG_ATTN_CAP_DETERMINISTIC | TEPLUG_ATTN_CAP_BACKWARD |
               TEPLUG_ATTN_CAP_DIFFERENT_HEAD_DIMS;
  return c;
}

TeplugQuantizerCaps MakeQuantizerCaps() {
  TeplugQuantizerCaps c = sdk::Versioned<TeplugQuantizerCaps>();
  c.devices = kHostOnly;
  c.num_devices = 1;
  c.input_dtypes = kFloatDTypes;
  c.output_dtypes = kFp8DTypes;
  c.scaling_modes = kRowwiseScalingModes;
  c.features = TEPLUG_QUANT_CAP_COLUMNWISE | TEPLUG_QUANT_CAP_DEQUANTIZE |
               TEPLUG_QUANT_CAP_CURRENT_SCALING | TEPLUG_QUANT_CAP_DELAYED_SCALING |
               TEPLUG_QUANT_CAP_MX_TE_SCALE;
  return c;
}

}  // namespace

const TeplugAttentionCaps* CpuAttentionCaps() {
  static const TeplugAttentionCaps caps = MakeAttentionCaps();
  return &caps;
}

const TeplugQuantizerCaps* CpuQuantizerCaps(uint32_t host_abi_max) {
  static const TeplugQuantizerCaps caps = MakeQuantizerCaps();
  static const TeplugQuantizerCaps before_1_3 = sdk::ForHostAbi(caps, sdk::kAbiBeforeMxTeScale);
  return host_abi_max >= TEPLUG_ABI_VERSION(1, 3) ? &caps : &before_1_3;
}

const TeplugGemmCaps* CpuGemmCaps() {
  static const TeplugGemmCaps caps = MakeGemmCaps();
  return &caps;
}

}  // namespace teplug::cpu::provider
