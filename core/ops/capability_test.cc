// ReadCapability: valid descriptors of every interface are copied faithfully
// (devices included, never pointing back at plugin memory), and each kind of
// malformed descriptor is refused with a message naming struct, field, value.
#include "core/ops/interface_module.h"

#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "core/ops/attention.h"
#include "core/ops/collective.h"
#include "core/ops/gemm.h"
#include "core/ops/modules.h"
#include "core/ops/quantizer.h"
#include "gtest/gtest.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::core {
namespace {

using ::testing::HasSubstr;

TeplugDeviceSupport Device(int32_t kind, int32_t arch_min = 0, int32_t arch_max = 0) {
  TeplugDeviceSupport d = sdk::Versioned<TeplugDeviceSupport>();
  d.kind = kind;
  d.vendor_id = TEPLUG_VENDOR_NVIDIA;
  d.arch_min = arch_min;
  d.arch_max = arch_max;
  return d;
}

class CapabilityTest : public ::testing::Test {
 protected:
  std::vector<TeplugDeviceSupport> devices_ = {Device(TEPLUG_DEVICE_CUDA, 80, 90),
                                               Device(TEPLUG_DEVICE_CPU)};

  TeplugGemmCaps Gemm() {
    TeplugGemmCaps c = sdk::Versioned<TeplugGemmCaps>();
    c.devices = devices_.data();
    c.num_devices = devices_.size();
    c.a_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
    c.b_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E5M2);
    c.d_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32);
    c.epilogues = TEPLUG_GEMM_CAP_BIAS | TEPLUG_GEMM_CAP_GELU;
    c.scaling_modes = TEPLUG_SCALING_BIT(TEPLUG_SCALING_PER_TENSOR);
    c.alignment = 16;
    c.max_dim = 65536;
    return c;
  }
  TeplugAttentionCaps Attention() {
    TeplugAttentionCaps c = sdk::Versioned<TeplugAttentionCaps>();
    c.devices = devices_.data();
    c.num_devices = 1;
    c.qkv_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP16);
    c.layouts = TEPLUG_LAYOUT_BIT(TEPLUG_LAYOUT_THD_THD_THD) | TEPLUG_LAYOUT_BIT(TEPLUG_LAYOUT_SB3HD);
    c.mask_types = TEPLUG_MASK_BIT(TEPLUG_MASK_CAUSAL);
    c.bias_types = TEPLUG_BIAS_BIT(TEPLUG_BIAS_NONE);
    c.features = TEPLUG_ATTN_CAP_BACKWARD;
    c.head_dim_min = 8;
    c.head_dim_max = 256;
    c.head_dim_multiple = 8;
    return c;
  }
  TeplugQuantizerCaps Quantizer() {
    TeplugQuantizerCaps c = sdk::Versioned<TeplugQuantizerCaps>();
    c.devices = devices_.data();
    c.num_devices = 2;
    c.input_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
    c.output_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP4_E2M1);
    c.scaling_modes = TEPLUG_SCALING_BIT(TEPLUG_SCALING_BLOCK_2D128);
    c.features = TEPLUG_QUANT_CAP_COLUMNWISE;
    return c;
  }
  TeplugCollectiveCaps Collective() {
    TeplugCollectiveCaps c = sdk::Versioned<TeplugCollectiveCaps>();
    c.devices = devices_.data();
    c.num_devices = 2;
    c.dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_INT64);
    c.ops = TEPLUG_OP_BIT(TEPLUG_OP_ALL_REDUCE) | TEPLUG_OP_BIT(TEPLUG_OP_BARRIER);
    c.reductions = TEPLUG_REDUCE_BIT(TEPLUG_REDUCE_AVG);
    c.max_world_size = 8;
    return c;
  }

  // The error message of reading `raw`, which must fail.
  template <class T>
  std::string Error(const InterfaceModule& kind, const T& raw) {
    absl::StatusOr<Capability> c = ReadCapability(kind, &raw);
    EXPECT_FALSE(c.ok()) << "descriptor was accepted";
    if (c.ok()) return "";
    EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(c.status().message());
  }
};

TEST_F(CapabilityTest, GemmIsCopiedWithItsDevices) {
  TeplugGemmCaps raw = Gemm();
  absl::StatusOr<Capability> cap = ReadCapability(GemmModule(), &raw);
  ASSERT_TRUE(cap.ok()) << cap.status();
  EXPECT_EQ(cap->module, &GemmModule());
  const TeplugGemmCaps& g = cap->As<TeplugGemmCaps>();
  EXPECT_EQ(g.a_dtypes, raw.a_dtypes);
  EXPECT_EQ(g.b_dtypes, raw.b_dtypes);
  EXPECT_EQ(g.d_dtypes, raw.d_dtypes);
  EXPECT_EQ(g.epilogues, raw.epilogues);
  EXPECT_EQ(g.scaling_modes, raw.scaling_modes);
  EXPECT_EQ(g.alignment, 16);
  EXPECT_EQ(g.max_dim, 65536);
  ASSERT_EQ(cap->devices.size(), 2u);
  EXPECT_EQ(g.num_devices, 2u);
  EXPECT_EQ(g.devices, nullptr) << "the copy never points at plugin memory: the list is Capability::devices";
  EXPECT_EQ(cap->devices[0].kind, TEPLUG_DEVICE_CUDA);
  EXPECT_EQ(cap->devices[0].arch_min, 80);
  EXPECT_EQ(cap->devices[0].arch_max, 90);
  EXPECT_EQ(cap->devices[1].kind, TEPLUG_DEVICE_CPU);
}

TEST_F(CapabilityTest, CopiesKeepTheDescriptorAndNeverReadPluginMemory) {
  TeplugGemmCaps raw = Gemm();
  absl::StatusOr<Capability> cap = ReadCapability(GemmModule(), &raw);
  ASSERT_TRUE(cap.ok()) << cap.status();
  Capability copy(*cap);
  Capability assigned;
  assigned = copy;
  for (const Capability* c : {&copy, &assigned}) {
    EXPECT_EQ(c->module, &GemmModule());
    EXPECT_EQ(c->caps_size, sizeof(TeplugGemmCaps));
    EXPECT_EQ(c->As<TeplugGemmCaps>().devices, nullptr);
    ASSERT_EQ(c->devices.size(), 2u);
    EXPECT_NE(c->devices.data(), devices_.data());
  }
  // Changing the plugin's memory afterwards does not change our copy.
  devices_[0].arch_max = 100;
  raw.a_dtypes = 0;
  EXPECT_EQ(assigned.devices[0].arch_max, 90);
  EXPECT_NE(assigned.As<TeplugGemmCaps>().a_dtypes, 0u);
}

TEST_F(CapabilityTest, EveryInterfaceReadsBack) {
  TeplugAttentionCaps a = Attention();
  auto ca = ReadCapability(AttentionModule(), &a);
  ASSERT_TRUE(ca.ok()) << ca.status();
  EXPECT_EQ(ca->As<TeplugAttentionCaps>().layouts, a.layouts);
  EXPECT_EQ(ca->As<TeplugAttentionCaps>().head_dim_max, 256);
  EXPECT_EQ(ca->As<TeplugAttentionCaps>().head_dim_multiple, 8);
  EXPECT_EQ(ca->devices.size(), 1u);

  TeplugQuantizerCaps q = Quantizer();
  auto cq = ReadCapability(QuantizerModule(), &q);
  ASSERT_TRUE(cq.ok()) << cq.status();
  EXPECT_EQ(cq->As<TeplugQuantizerCaps>().output_dtypes, q.output_dtypes);
  EXPECT_EQ(cq->As<TeplugQuantizerCaps>().scaling_modes, q.scaling_modes);

  TeplugCollectiveCaps c = Collective();
  auto cc = ReadCapability(CollectiveModule(), &c);
  ASSERT_TRUE(cc.ok()) << cc.status();
  EXPECT_EQ(cc->As<TeplugCollectiveCaps>().ops, c.ops);
  EXPECT_EQ(cc->As<TeplugCollectiveCaps>().max_world_size, 8);
  EXPECT_EQ(cc->As<TeplugCollectiveCaps>().devices, nullptr);
}

TEST_F(CapabilityTest, LargerStructFromNewerPluginIsAccepted) {
  struct NewerGemmCaps {
    TeplugGemmCaps v1;
    uint64_t future_field;
  } newer;
  newer.v1 = Gemm();
  newer.v1.struct_size = sizeof(newer);
  newer.future_field = 0xdeadbeef;
  auto cap = ReadCapability(GemmModule(), &newer);
  ASSERT_TRUE(cap.ok()) << cap.status();
  EXPECT_EQ(cap->As<TeplugGemmCaps>().struct_size, sizeof(TeplugGemmCaps));
  EXPECT_EQ(cap->As<TeplugGemmCaps>().max_dim, 65536);
}

TEST_F(CapabilityTest, NullDescriptorIsRefused) {
  auto cap = ReadCapability(AttentionModule(), nullptr);
  ASSERT_FALSE(cap.ok());
  EXPECT_THAT(std::string(cap.status().message()), HasSubstr("IAttention/1 is NULL"));
}

TEST_F(CapabilityTest, TooSmallStructIsRefused) {
  TeplugGemmCaps raw = Gemm();
  raw.struct_size = 16;
  EXPECT_THAT(Error(GemmModule(), raw),
              HasSubstr("TeplugGemmCaps.struct_size 16 < " +
                        std::to_string(sizeof(TeplugGemmCaps)) + " required"));
}

// A newer plugin's TeplugDeviceSupport carries an extra field: the host reads
// the array with the writer's stride (devices[0].struct_size).
TEST_F(CapabilityTest, DeviceListWithALargerNewerElementIsReadWithItsStride) {
  struct NewerDevice {
    TeplugDeviceSupport v1;
    int64_t future_field;
  };
  NewerDevice newer[2] = {};
  for (auto& d : newer) d.v1.struct_size = sizeof(NewerDevice);
  newer[0].v1.kind = TEPLUG_DEVICE_CPU;
  newer[1].v1.kind = TEPLUG_DEVICE_CUDA;
  newer[1].v1.vendor_id = TEPLUG_VENDOR_NVIDIA;
  newer[1].v1.arch_min = 80;
  newer[0].future_field = newer[1].future_field = -7;
  TeplugGemmCaps raw = Gemm();
  raw.devices = &newer[0].v1;
  raw.num_devices = 2;
  auto cap = ReadCapability(GemmModule(), &raw);
  ASSERT_TRUE(cap.ok()) << cap.status();
  ASSERT_EQ(cap->devices.size(), 2u);
  EXPECT_EQ(cap->devices[1].kind, TEPLUG_DEVICE_CUDA);
  EXPECT_EQ(cap->devices[1].vendor_id, TEPLUG_VENDOR_NVIDIA);
  EXPECT_EQ(cap->devices[1].arch_min, 80);
}

TEST_F(CapabilityTest, DeviceListProblemsAreRefused) {
  TeplugGemmCaps raw = Gemm();
  raw.devices = nullptr;
  EXPECT_THAT(Error(GemmModule(), raw),
              HasSubstr("TeplugGemmCaps.num_devices is 2 but devices is NULL"));

  raw = Gemm();
  raw.num_devices = 65;
  EXPECT_THAT(Error(GemmModule(), raw), HasSubstr("TeplugGemmCaps.num_devices 65 > 64"));

  raw = Gemm();
  raw.num_devices = 0;
  EXPECT_THAT(Error(GemmModule(), raw), HasSubstr("TeplugGemmCaps.num_devices is 0"));

  devices_[1].struct_size = 8;
  raw = Gemm();
  EXPECT_THAT(Error(GemmModule(), raw),
              HasSubstr("TeplugGemmCaps.devices[1].struct_size 8 differs from devices[0].struct_size " +
                        std::to_string(sizeof(TeplugDeviceSupport))));
  devices_[0].struct_size = 8;
  EXPECT_THAT(Error(GemmModule(), raw), HasSubstr("TeplugGemmCaps.devices[0].struct_size 8: must be >= "));
  devices_[0] = Device(TEPLUG_DEVICE_CPU);

  devices_[1] = Device(TEPLUG_DEVICE_CUDA, 100, 90);
  EXPECT_THAT(Error(GemmModule(), raw),
              HasSubstr("TeplugGemmCaps.devices[1].arch_min 100 > arch_max 90"));

  devices_[1] = Device(77);
  EXPECT_THAT(Error(GemmModule(), raw), HasSubstr("TeplugGemmCaps.devices[1].kind 77"));

  devices_[1] = Device(TEPLUG_DEVICE_CPU, -1, 0);
  EXPECT_THAT(Error(GemmModule(), raw), HasSubstr("arch_min -1"));

  devices_[1] = Device(TEPLUG_DEVICE_VENDOR_BASE + 5);  // vendor-defined kinds are fine
  EXPECT_TRUE(ReadCapability(GemmModule(), &raw).ok());
}

TEST_F(CapabilityTest, UnknownBitsAreRefused) {
  TeplugGemmCaps g = Gemm();
  g.a_dtypes |= TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_COUNT_);
  EXPECT_THAT(Error(GemmModule(), g), HasSubstr("TeplugGemmCaps.a_dtypes 0x1018 sets unknown bits 0x1000"));
  g = Gemm();
  g.d_dtypes |= TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_INVALID);
  EXPECT_THAT(Error(GemmModule(), g), HasSubstr("TeplugGemmCaps.d_dtypes 0x3 sets unknown bits 0x1"));
  g = Gemm();
  g.epilogues = 1u << 4;
  EXPECT_THAT(Error(GemmModule(), g), HasSubstr("TeplugGemmCaps.epilogues 0x10"));
  g = Gemm();
  g.scaling_modes = TEPLUG_SCALING_BIT(TEPLUG_SCALING_COUNT_);
  EXPECT_THAT(Error(GemmModule(), g), HasSubstr("TeplugGemmCaps.scaling_modes 0x20"));

  TeplugAttentionCaps a = Attention();
  a.layouts |= TEPLUG_LAYOUT_BIT(TEPLUG_LAYOUT_COUNT_);
  EXPECT_THAT(Error(AttentionModule(), a), HasSubstr("TeplugAttentionCaps.layouts"));
  a = Attention();
  a.mask_types = TEPLUG_MASK_BIT(TEPLUG_MASK_COUNT_);
  EXPECT_THAT(Error(AttentionModule(), a), HasSubstr("TeplugAttentionCaps.mask_types 0x40"));
  a = Attention();
  a.bias_types = TEPLUG_BIAS_BIT(TEPLUG_BIAS_COUNT_);
  EXPECT_THAT(Error(AttentionModule(), a), HasSubstr("TeplugAttentionCaps.bias_types 0x10"));
  a = Attention();
  a.features = 1u << 6;
  EXPECT_THAT(Error(AttentionModule(), a), HasSubstr("TeplugAttentionCaps.features 0x40"));

  TeplugQuantizerCaps q = Quantizer();
  q.features = 1u << 5;
  EXPECT_THAT(Error(QuantizerModule(), q), HasSubstr("TeplugQuantizerCaps.features 0x20"));

  TeplugCollectiveCaps c = Collective();
  c.ops |= TEPLUG_OP_BIT(TEPLUG_OP_GEMM);
  EXPECT_THAT(Error(CollectiveModule(), c), HasSubstr("TeplugCollectiveCaps.ops"));
  c = Collective();
  c.reductions = TEPLUG_REDUCE_BIT(TEPLUG_REDUCE_COUNT_);
  EXPECT_THAT(Error(CollectiveModule(), c), HasSubstr("TeplugCollectiveCaps.reductions 0x20"));
}

TEST_F(CapabilityTest, EmptyRequiredSetsAreRefused) {
  TeplugGemmCaps g = Gemm();
  g.b_dtypes = 0;
  EXPECT_THAT(Error(GemmModule(), g), HasSubstr("TeplugGemmCaps.b_dtypes is 0"));
  TeplugAttentionCaps a = Attention();
  a.qkv_dtypes = 0;
  EXPECT_THAT(Error(AttentionModule(), a), HasSubstr("TeplugAttentionCaps.qkv_dtypes is 0"));
  a = Attention();
  a.layouts = 0;
  EXPECT_THAT(Error(AttentionModule(), a), HasSubstr("TeplugAttentionCaps.layouts is 0"));
  TeplugQuantizerCaps q = Quantizer();
  q.scaling_modes = 0;
  EXPECT_THAT(Error(QuantizerModule(), q), HasSubstr("TeplugQuantizerCaps.scaling_modes is 0"));
  TeplugCollectiveCaps c = Collective();
  c.reductions = 0;  // all_reduce needs a reduction
  EXPECT_THAT(Error(CollectiveModule(), c), HasSubstr("TeplugCollectiveCaps.reductions is 0"));
  c.ops = TEPLUG_OP_BIT(TEPLUG_OP_BROADCAST);  // without a reducing op none is needed
  EXPECT_TRUE(ReadCapability(CollectiveModule(), &c).ok());
}

TEST_F(CapabilityTest, BadRangesAreRefused) {
  TeplugAttentionCaps a = Attention();
  a.head_dim_min = 256;
  a.head_dim_max = 128;
  EXPECT_THAT(Error(AttentionModule(), a),
              HasSubstr("TeplugAttentionCaps.head_dim_min 256 > head_dim_max 128"));
  a.head_dim_max = 0;  // unbounded: any minimum is fine
  EXPECT_TRUE(ReadCapability(AttentionModule(), &a).ok());
  a = Attention();
  a.max_seqlen_kv = -4;
  EXPECT_THAT(Error(AttentionModule(), a),
              HasSubstr("TeplugAttentionCaps.max_seqlen_kv is -4: must be >= 0"));
  TeplugGemmCaps g = Gemm();
  g.alignment = 12;
  EXPECT_THAT(Error(GemmModule(), g), HasSubstr("TeplugGemmCaps.alignment 12 is not a power of two"));
  g.alignment = 512;
  EXPECT_THAT(Error(GemmModule(), g), HasSubstr("TeplugGemmCaps.alignment 512 > 256"));
  g.alignment = 256;  // the largest alignment class the decision cache keys
  EXPECT_TRUE(ReadCapability(GemmModule(), &g).ok());
  g = Gemm();
  g.max_dim = -1;
  EXPECT_THAT(Error(GemmModule(), g), HasSubstr("TeplugGemmCaps.max_dim is -1"));
  TeplugCollectiveCaps c = Collective();
  c.max_world_size = -2;
  EXPECT_THAT(Error(CollectiveModule(), c), HasSubstr("max_world_size is -2"));
  c = Collective();
  c.features = 2;  // only TEPLUG_COLLECTIVE_CAP_ONE_HOST is defined
  EXPECT_THAT(Error(CollectiveModule(), c), HasSubstr("TeplugCollectiveCaps.features"));
  // A v1.0 descriptor (48 bytes) reads features as 0: ranks anywhere.
  c = Collective();
  c.features = TEPLUG_COLLECTIVE_CAP_ONE_HOST;
  c.struct_size = TEPLUG_STRUCT_SIZE(TeplugCollectiveCaps, max_world_size);
  auto v10 = ReadCapability(CollectiveModule(), &c);
  ASSERT_TRUE(v10.ok()) << v10.status();
  EXPECT_EQ(v10->As<TeplugCollectiveCaps>().features, 0u);
}

}  // namespace
}  // namespace teplug::core
