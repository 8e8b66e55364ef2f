// ReadCapability at every boundary it checks: each numeric limit is tried at
// the bound (accepted), one past it (refused) and, where the bound is a
// range, with equal and inverted ends. A check that is off by one, or that
// compares the wrong end, fails here even when far-from-the-bound values
// (capability_test.cc) still behave.
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "core/ops/interface_module.h"
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

// A valid descriptor of each interface over a caller-owned device list; tests
// change one field and read it back.
struct Descriptors {
  std::vector<TeplugDeviceSupport> devices{DeviceEntry(TEPLUG_DEVICE_CPU)};

  static TeplugDeviceSupport DeviceEntry(int32_t kind, int32_t arch_min = 0, int32_t arch_max = 0) {
    TeplugDeviceSupport d = sdk::Versioned<TeplugDeviceSupport>();
    d.kind = kind;
    d.arch_min = arch_min;
    d.arch_max = arch_max;
    return d;
  }
  template <class T>
  T WithDevices() {
    T c = sdk::Versioned<T>();
    c.devices = devices.data();
    c.num_devices = devices.size();
    return c;
  }
  TeplugGemmCaps gemm() {
    auto c = WithDevices<TeplugGemmCaps>();
    c.a_dtypes = c.b_dtypes = c.d_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32);
    return c;
  }
  TeplugAttentionCaps attention() {
    auto c = WithDevices<TeplugAttentionCaps>();
    c.qkv_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
    c.layouts = TEPLUG_LAYOUT_BIT(TEPLUG_LAYOUT_BSHD_BSHD_BSHD);
    c.mask_types = TEPLUG_MASK_BIT(TEPLUG_MASK_NONE);
    c.bias_types = TEPLUG_BIAS_BIT(TEPLUG_BIAS_NONE);
    return c;
  }
  TeplugQuantizerCaps quantizer() {
    auto c = WithDevices<TeplugQuantizerCaps>();
    c.input_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
    c.output_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3);
    c.scaling_modes = TEPLUG_SCALING_BIT(TEPLUG_SCALING_PER_TENSOR);
    return c;
  }
  TeplugCollectiveCaps collective() {
    auto c = WithDevices<TeplugCollectiveCaps>();
    c.dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32);
    c.ops = TEPLUG_OP_BIT(TEPLUG_OP_BARRIER);
    return c;
  }
};

template <class T>
const InterfaceModule& KindOf();
template <> const InterfaceModule& KindOf<TeplugGemmCaps>() { return GemmModule(); }
template <> const InterfaceModule& KindOf<TeplugAttentionCaps>() { return AttentionModule(); }
template <> const InterfaceModule& KindOf<TeplugQuantizerCaps>() { return QuantizerModule(); }
template <> const InterfaceModule& KindOf<TeplugCollectiveCaps>() { return CollectiveModule(); }

// "" when `raw` is accepted, else the error message.
template <class T>
std::string Problem(const T& raw) {
  absl::StatusOr<Capability> c = ReadCapability(KindOf<T>(), &raw);
  return c.ok() ? "" : std::string(c.status().message());
}

TEST(CapabilityBoundariesTest, DescriptorStructSizeMustReachItsLastV1Field) {
  Descriptors d;
  auto expect_bound = [](auto raw, size_t required, const std::string& strct) {
    raw.struct_size = required;
    EXPECT_EQ(Problem(raw), "") << strct;
    raw.struct_size = required - 1;
    EXPECT_THAT(Problem(raw), HasSubstr(strct + ".struct_size " + std::to_string(required - 1) + " < " +
                                        std::to_string(required) + " required"));
  };
  expect_bound(d.gemm(), TEPLUG_STRUCT_SIZE(TeplugGemmCaps, max_dim), "TeplugGemmCaps");
  expect_bound(d.attention(), TEPLUG_STRUCT_SIZE(TeplugAttentionCaps, max_seqlen_kv), "TeplugAttentionCaps");
  expect_bound(d.quantizer(), TEPLUG_STRUCT_SIZE(TeplugQuantizerCaps, features), "TeplugQuantizerCaps");
  expect_bound(d.collective(), TEPLUG_STRUCT_SIZE(TeplugCollectiveCaps, max_world_size), "TeplugCollectiveCaps");
}

TEST(CapabilityBoundariesTest, DeviceCountFromOneToSixtyFour) {
  Descriptors d;
  d.devices.assign(64, Descriptors::DeviceEntry(TEPLUG_DEVICE_CPU));
  TeplugGemmCaps raw = d.gemm();
  EXPECT_EQ(Problem(raw), "");
  raw.num_devices = 1;
  EXPECT_EQ(Problem(raw), "");
  d.devices.push_back(Descriptors::DeviceEntry(TEPLUG_DEVICE_CPU));
  raw = d.gemm();
  EXPECT_THAT(Problem(raw), HasSubstr("num_devices 65 > 64 allowed"));
  raw.num_devices = 0;
  EXPECT_THAT(Problem(raw), HasSubstr("num_devices is 0"));
}

TEST(CapabilityBoundariesTest, DeviceStrideMustCoverTheV1ElementAndKeepAlignment) {
  constexpr size_t kRequired = TEPLUG_STRUCT_SIZE(TeplugDeviceSupport, arch_max);
  constexpr size_t kAlign = alignof(TeplugDeviceSupport);
  // Elements laid out with a chosen stride in a zeroed buffer.
  auto read_with_stride = [](size_t stride) {
    std::vector<unsigned char> buffer(2 * stride + sizeof(TeplugDeviceSupport), 0);
    for (int i = 0; i < 2; ++i) {
      TeplugDeviceSupport d = Descriptors::DeviceEntry(TEPLUG_DEVICE_CPU);
      d.struct_size = stride;
      std::memcpy(buffer.data() + i * stride, &d, sizeof d);
    }
    std::vector<uint64_t> aligned((buffer.size() + 7) / 8);
    std::memcpy(aligned.data(), buffer.data(), buffer.size());
    Descriptors desc;
    TeplugGemmCaps raw = desc.gemm();
    raw.devices = reinterpret_cast<const TeplugDeviceSupport*>(aligned.data());
    raw.num_devices = 2;
    return Problem(raw);
  };
  EXPECT_EQ(read_with_stride(sizeof(TeplugDeviceSupport)), "");
  EXPECT_EQ(read_with_stride(sizeof(TeplugDeviceSupport) + kAlign), "");
  if (kRequired % kAlign == 0) {
    EXPECT_EQ(read_with_stride(kRequired), "");
  }
  EXPECT_THAT(read_with_stride(kRequired - kAlign), HasSubstr("devices[0].struct_size"));
  EXPECT_THAT(read_with_stride(sizeof(TeplugDeviceSupport) + 1), HasSubstr("devices[0].struct_size"));
  // At most 256 bytes: a larger stride would read far outside the array.
  EXPECT_EQ(read_with_stride(256), "");
  EXPECT_THAT(read_with_stride(256 + kAlign),
              HasSubstr("devices[0].struct_size 264: must be >= 24, <= 256 and a multiple of 8"));
}

TEST(CapabilityBoundariesTest, DeviceKindsAreTheKnownOnesOrVendorDefined) {
  for (int32_t kind : std::vector<int32_t>{TEPLUG_DEVICE_ANY, TEPLUG_DEVICE_CPU, TEPLUG_DEVICE_CUDA, TEPLUG_DEVICE_OPENCL,
                       TEPLUG_DEVICE_VENDOR_BASE, TEPLUG_DEVICE_VENDOR_BASE + 1}) {
    Descriptors d;
    d.devices[0].kind = kind;
    EXPECT_EQ(Problem(d.gemm()), "") << kind;
  }
  for (int32_t kind : std::vector<int32_t>{-1, TEPLUG_DEVICE_OPENCL + 1, TEPLUG_DEVICE_VENDOR_BASE - 1}) {
    Descriptors d;
    d.devices[0].kind = kind;
    EXPECT_THAT(Problem(d.gemm()), HasSubstr("devices[0].kind " + std::to_string(kind))) << kind;
  }
}

TEST(CapabilityBoundariesTest, ArchBoundsMayBeEqualButNotInverted) {
  struct Case {
    int32_t arch_min, arch_max;
    const char* problem;  // "" = accepted
  };
  for (const Case& c : {Case{90, 90, ""}, Case{89, 90, ""}, Case{0, 0, ""}, Case{1, 0, ""}, Case{0, 1, ""},
                        Case{91, 90, "devices[0].arch_min 91 > arch_max 90"},
                        Case{-1, 0, "arch_min -1 / arch_max 0: must be >= 0"},
                        Case{0, -1, "arch_min 0 / arch_max -1: must be >= 0"}}) {
    Descriptors d;
    d.devices[0] = Descriptors::DeviceEntry(TEPLUG_DEVICE_CUDA, c.arch_min, c.arch_max);
    if (*c.problem == '\0') {
      EXPECT_EQ(Problem(d.gemm()), "") << c.arch_min << ".." << c.arch_max;
    } else {
      EXPECT_THAT(Problem(d.gemm()), HasSubstr(c.problem)) << c.arch_min << ".." << c.arch_max;
    }
  }
}

TEST(CapabilityBoundariesTest, HeadDimBoundsMayBeEqualButNotInverted) {
  Descriptors d;
  TeplugAttentionCaps a = d.attention();
  a.head_dim_min = a.head_dim_max = 128;
  EXPECT_EQ(Problem(a), "");
  a.head_dim_min = 127;
  EXPECT_EQ(Problem(a), "");
  a.head_dim_min = 129;
  EXPECT_THAT(Problem(a), HasSubstr("TeplugAttentionCaps.head_dim_min 129 > head_dim_max 128"));
  a.head_dim_max = 1;
  a.head_dim_min = 2;
  EXPECT_THAT(Problem(a), HasSubstr("head_dim_min 2 > head_dim_max 1"));
  a.head_dim_max = 0;  // no upper bound
  EXPECT_EQ(Problem(a), "");
}

// Every "must be >= 0" field: 0 is accepted, -1 is not.
TEST(CapabilityBoundariesTest, NonNegativeFieldsAcceptZeroAndRefuseMinusOne) {
  Descriptors d;
  auto expect = [](auto raw, auto member, const std::string& name) {
    raw.*member = 0;
    EXPECT_EQ(Problem(raw), "") << name;
    raw.*member = -1;
    EXPECT_THAT(Problem(raw), HasSubstr(name + " is -1: must be >= 0"));
  };
  expect(d.gemm(), &TeplugGemmCaps::alignment, "TeplugGemmCaps.alignment");
  expect(d.gemm(), &TeplugGemmCaps::max_dim, "TeplugGemmCaps.max_dim");
  expect(d.attention(), &TeplugAttentionCaps::head_dim_min, "TeplugAttentionCaps.head_dim_min");
  expect(d.attention(), &TeplugAttentionCaps::head_dim_max, "TeplugAttentionCaps.head_dim_max");
  expect(d.attention(), &TeplugAttentionCaps::head_dim_multiple, "TeplugAttentionCaps.head_dim_multiple");
  expect(d.attention(), &TeplugAttentionCaps::max_seqlen_q, "TeplugAttentionCaps.max_seqlen_q");
  expect(d.attention(), &TeplugAttentionCaps::max_seqlen_kv, "TeplugAttentionCaps.max_seqlen_kv");
  expect(d.collective(), &TeplugCollectiveCaps::max_world_size, "TeplugCollectiveCaps.max_world_size");
}

// Zero, one or a power of two up to 256 (the largest alignment class the
// decision cache keys); 512 is the first power of two past the bound.
TEST(CapabilityBoundariesTest, AlignmentIsZeroOneOrAPowerOfTwoUpTo256) {
  Descriptors d;
  TeplugGemmCaps g = d.gemm();
  for (int64_t ok : std::vector<int64_t>{0, 1, 2, 4, 128, 256}) {
    g.alignment = ok;
    EXPECT_EQ(Problem(g), "") << ok;
  }
  for (int64_t bad : std::vector<int64_t>{3, 6, 12, 129, 255, 257}) {
    g.alignment = bad;
    EXPECT_THAT(Problem(g), HasSubstr("TeplugGemmCaps.alignment " + std::to_string(bad)));
  }
  for (int64_t too_large : std::vector<int64_t>{512, int64_t{1} << 40}) {
    g.alignment = too_large;
    EXPECT_THAT(Problem(g), HasSubstr("TeplugGemmCaps.alignment " + std::to_string(too_large))) << too_large;
  }
}

// Each mask accepts its highest known bit and refuses the next one.
TEST(CapabilityBoundariesTest, MasksAcceptTheHighestKnownBitAndNoHigher) {
  Descriptors d;
  TeplugGemmCaps g = d.gemm();
  g.a_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_COUNT_ - 1);
  EXPECT_EQ(Problem(g), "");
  g.a_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_COUNT_);
  EXPECT_THAT(Problem(g), HasSubstr("TeplugGemmCaps.a_dtypes"));
  g.a_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_INVALID);
  EXPECT_THAT(Problem(g), HasSubstr("TeplugGemmCaps.a_dtypes 0x1 sets unknown bits 0x1"));
  g = d.gemm();
  g.scaling_modes = TEPLUG_SCALING_BIT(TEPLUG_SCALING_COUNT_ - 1);
  EXPECT_EQ(Problem(g), "");
  g.scaling_modes = TEPLUG_SCALING_BIT(TEPLUG_SCALING_COUNT_);
  EXPECT_THAT(Problem(g), HasSubstr("TeplugGemmCaps.scaling_modes"));

  TeplugAttentionCaps a = d.attention();
  a.layouts = TEPLUG_LAYOUT_BIT(TEPLUG_LAYOUT_COUNT_ - 1);
  a.mask_types = TEPLUG_MASK_BIT(TEPLUG_MASK_COUNT_ - 1);
  a.bias_types = TEPLUG_BIAS_BIT(TEPLUG_BIAS_COUNT_ - 1);
  EXPECT_EQ(Problem(a), "");
  a.layouts = TEPLUG_LAYOUT_BIT(TEPLUG_LAYOUT_COUNT_);
  EXPECT_THAT(Problem(a), HasSubstr("TeplugAttentionCaps.layouts"));
  a = d.attention();
  a.mask_types = TEPLUG_MASK_BIT(TEPLUG_MASK_COUNT_);
  EXPECT_THAT(Problem(a), HasSubstr("TeplugAttentionCaps.mask_types"));
  a = d.attention();
  a.bias_types = TEPLUG_BIAS_BIT(TEPLUG_BIAS_COUNT_);
  EXPECT_THAT(Problem(a), HasSubstr("TeplugAttentionCaps.bias_types"));

  TeplugQuantizerCaps q = d.quantizer();
  q.scaling_modes = TEPLUG_SCALING_BIT(TEPLUG_SCALING_COUNT_ - 1);
  EXPECT_EQ(Problem(q), "");
  q.scaling_modes = TEPLUG_SCALING_BIT(TEPLUG_SCALING_COUNT_);
  EXPECT_THAT(Problem(q), HasSubstr("TeplugQuantizerCaps.scaling_modes"));

  TeplugCollectiveCaps c = d.collective();
  c.ops = TEPLUG_OP_BIT(TEPLUG_OP_ALL_REDUCE);
  c.reductions = TEPLUG_REDUCE_BIT(TEPLUG_REDUCE_COUNT_ - 1);
  EXPECT_EQ(Problem(c), "");
  c.reductions = TEPLUG_REDUCE_BIT(TEPLUG_REDUCE_COUNT_);
  EXPECT_THAT(Problem(c), HasSubstr("TeplugCollectiveCaps.reductions"));
}

// The collective ops are TEPLUG_OP_ALL_REDUCE .. TEPLUG_OP_BARRIER, both included.
TEST(CapabilityBoundariesTest, CollectiveOpsSpanAllReduceToBarrier) {
  Descriptors d;
  TeplugCollectiveCaps c = d.collective();
  c.reductions = TEPLUG_REDUCE_BIT(0);
  for (int op = TEPLUG_OP_ALL_REDUCE; op <= TEPLUG_OP_BARRIER; ++op) {
    c.ops = TEPLUG_OP_BIT(op);
    EXPECT_EQ(Problem(c), "") << op;
  }
  for (int op : {TEPLUG_OP_ALL_REDUCE - 1, TEPLUG_OP_BARRIER + 1}) {
    c.ops = TEPLUG_OP_BIT(op);
    EXPECT_THAT(Problem(c), HasSubstr("TeplugCollectiveCaps.ops")) << op;
  }
  // A reducing op needs a reduction; a non-reducing one does not.
  c.reductions = 0;
  c.ops = TEPLUG_OP_BIT(TEPLUG_OP_REDUCE_SCATTER);
  EXPECT_THAT(Problem(c), HasSubstr("TeplugCollectiveCaps.reductions is 0"));
  c.ops = TEPLUG_OP_BIT(TEPLUG_OP_BARRIER);
  EXPECT_EQ(Problem(c), "");
}

}  // namespace
}  // namespace teplug::core
