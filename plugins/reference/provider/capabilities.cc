#include "plugins/reference/provider/capabilities.h"

#include "plugins/reference/provider/tensor_io.h"
#include "teplug/sdk/caps_for_host.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::reference::provider {
namespace {

const TeplugDeviceSupport kHostOnly[] = {
    {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CPU, TEPLUG_VENDOR_ANY, 0, 0}};

constexpr uint32_t kScaledModes =
    TEPLUG_SCALING_BIT(TEPLUG_SCALING_PER_TENSOR) | TEPLUG_SCALING_BIT(TEPLUG_SCALING_MXFP8_1D32) |
    TEPLUG_SCALING_BIT(TEPLUG_SCALING_BLOCK_1D128) | TEPLUG_SCALING_BIT(TEPLUG_SCALING_BLOCK_2D128);

constexpr uint32_t AllBits(int count) { return count >= 32 ? ~0u : ((1u << count) - 1u); }

TeplugGemmCaps MakeGemmCaps() {
  TeplugGemmCaps c = sdk::Versioned<TeplugGemmCaps>();
  c.devices = kHostOnly;
  c.num_devices = 1;
  c.a_dtypes = kHighPrecisionDTypes | kScaledDTypes;
  c.b_dtypes = kHighPrecisionDTypes | kScaledDTypes;
  c.d_dtypes = kWritableDTypes;
  c.epilogues = TEPLUG_GEMM_CAP_BIAS | TEPLUG_GEMM_CAP_GELU | TEPLUG_GEMM_CAP_GELU_AUX |
                TEPLUG_GEMM_CAP_ACCUMULATE;
  c.scaling_modes = kScaledModes;
  c.alignment = 0;
  c.max_dim = 0;
  return c;
}

TeplugAttentionCaps MakeAttentionCaps() {
  TeplugAttentionCaps c = sdk::Versioned<TeplugAttentionCaps>();
  c.devices = kHostOnly;
  c.num_devices = 1;
  c.qkv_dtypes = kHighPrecisionDTypes | kFp8DTypes;
  c.layouts = AllBits(TEPLUG_LAYOUT_COUNT_);
  c.mask_types = AllBits(TEPLUG_MASK_COUNT_);
  c.bias_types = AllBits(TEPLUG_BIAS_COUNT_);
  c.features = TEPLUG_ATTN_CAP_DROPOUT | TEPLUG_ATTN_CAP_SLIDING_WINDOW | TEPLUG_ATTN_CAP_GQA |
               TEPLUG_ATTN_CAP_DETERMINISTIC | TEPLUG_ATTN_CAP_BACKWARD |
               TEPLUG_ATTN_CAP_DIFFERENT_HEAD_DIMS;
  c.head_dim_min = 1;
  c.head_dim_max = 0;
  c.head_dim_multiple = 1;
  c.max_seqlen_q = 0;
  c.max_seqlen_kv = 0;
  return c;
}

TeplugQuantizerCaps MakeQuantizerCaps() {
  TeplugQuantizerCaps c = sdk::Versioned<TeplugQuantizerCaps>();
  c.devices = kHostOnly;
  c.num_devices = 1;
  c.input_dtypes = kHighPrecisionDTypes;
  c.output_dtypes = kFp8DTypes;
  c.scaling_modes = kScaledModes;
  c.features = TEPLUG_QUANT_CAP_COLUMNWISE | TEPLUG_QUANT_CAP_DEQUANTIZE |
               TEPLUG_QUANT_CAP_CURRENT_SCALING | TEPLUG_QUANT_CAP_DELAYED_SCALING |
               TEPLUG_QUANT_CAP_MX_TE_SCALE;
  return c;
}

TeplugCollectiveCaps MakeCollectiveCaps() {
  TeplugCollectiveCaps c = sdk::Versioned<TeplugCollectiveCaps>();
  c.devices = kHostOnly;
  c.num_devices = 1;
  c.dtypes = kHighPrecisionDTypes | kIntegerDTypes;
  c.ops = TEPLUG_OP_BIT(TEPLUG_OP_ALL_REDUCE) | TEPLUG_OP_BIT(TEPLUG_OP_ALL_GATHER) |
          TEPLUG_OP_BIT(TEPLUG_OP_REDUCE_SCATTER) | TEPLUG_OP_BIT(TEPLUG_OP_BROADCAST) |
          TEPLUG_OP_BIT(TEPLUG_OP_SEND) | TEPLUG_OP_BIT(TEPLUG_OP_RECV) |
          TEPLUG_OP_BIT(TEPLUG_OP_BARRIER);
  c.reductions = AllBits(TEPLUG_REDUCE_COUNT_);
  c.max_world_size = 0;
  c.features = TEPLUG_COLLECTIVE_CAP_ONE_HOST;  // ranks meet in a shared-memory region
  return c;
}

TeplugNormCaps MakeNormCaps() {
  TeplugNormCaps c = sdk::Versioned<TeplugNormCaps>();
  c.devices = kHostOnly;
  c.num_devices = 1;
  c.input_dtypes = kHighPrecisionDTypes;
  c.weight_dtypes = kHighPrecisionDTypes;
  c.output_dtypes = kHighPrecisionDTypes | kFp8DTypes;
  c.norm_types = AllBits(TEPLUG_NORM_TYPE_COUNT_);
  c.scaling_modes =
      TEPLUG_SCALING_BIT(TEPLUG_SCALING_PER_TENSOR) | TEPLUG_SCALING_BIT(TEPLUG_SCALING_MXFP8_1D32);
  c.features =
      TEPLUG_NORM_CAP_BACKWARD | TEPLUG_NORM_CAP_ZERO_CENTERED_GAMMA | TEPLUG_NORM_CAP_MX_TE_SCALE;
  c.hidden_min = 1;
  c.hidden_max = 0;
  c.hidden_multiple = 1;
  return c;
}

TeplugDeviceCaps MakeDeviceCaps() {
  TeplugDeviceCaps c = sdk::Versioned<TeplugDeviceCaps>();
  c.devices = kHostOnly;
  c.num_devices = 1;
  return c;
}

}  // namespace

const TeplugGemmCaps* ReferenceGemmCaps() {
  static const TeplugGemmCaps caps = MakeGemmCaps();
  return &caps;
}
const TeplugAttentionCaps* ReferenceAttentionCaps() {
  static const TeplugAttentionCaps caps = MakeAttentionCaps();
  return &caps;
}
const TeplugQuantizerCaps* ReferenceQuantizerCaps(uint32_t host_abi_max) {
  static const TeplugQuantizerCaps caps = MakeQuantizerCaps();
  static const TeplugQuantizerCaps before_1_3 = sdk::ForHostAbi(caps, sdk::kAbiBeforeMxTeScale);
  return host_abi_max >= TEPLUG_ABI_VERSION(1, 3) ? &caps : &before_1_3;
}
const TeplugCollectiveCaps* ReferenceCollectiveCaps() {
  static const TeplugCollectiveCaps caps = MakeCollectiveCaps();
  return &caps;
}

const TeplugNormCaps* ReferenceNormCaps(uint32_t host_abi_max) {
  static const TeplugNormCaps caps = MakeNormCaps();
  static const TeplugNormCaps before_1_3 = sdk::ForHostAbi(caps, sdk::kAbiBeforeMxTeScale);
  return host_abi_max >= TEPLUG_ABI_VERSION(1, 3) ? &caps : &before_1_3;
}

const TeplugDeviceCaps* ReferenceDeviceCaps() {
  static const TeplugDeviceCaps caps = MakeDeviceCaps();
  return &caps;
}

}  // namespace teplug::reference::provider
