// The per-generation cuBLASLt GEMM table, checked against fake device lists
// (sm_75, sm_80, sm_86, sm_89, sm_90, sm_100, sm_120) and library versions.
#include "native/gemm/cublaslt_gemm_support.h"

#include <deque>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native {
namespace {

using ::testing::HasSubstr;

constexpr size_t kCublasLt13_1 = 130100;  // the toolkit of this project's machines
constexpr uint32_t Bit(int32_t mode) { return TEPLUG_SCALING_BIT(mode); }
constexpr uint64_t kFp8Bits = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E5M2);

TEST(GemmSupportTest, EachGenerationServesItsDtypesAndScalingModes) {
  EXPECT_FALSE(GemmSupportForArch(75, kCublasLt13_1).has_value());

  for (int32_t arch : {80, 86}) {
    const auto s = GemmSupportForArch(arch, kCublasLt13_1);
    ASSERT_TRUE(s.has_value());
    EXPECT_STREQ(s->generation, "Ampere (sm_80)");
    EXPECT_EQ(s->input_dtypes & kFp8Bits, 0u);
    EXPECT_NE(s->input_dtypes & TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16), 0u);
    EXPECT_EQ(s->scaling_modes, 0u);
  }

  const auto ada = GemmSupportForArch(89, kCublasLt13_1);
  EXPECT_EQ(ada->input_dtypes & kFp8Bits, kFp8Bits);
  EXPECT_EQ(ada->scaling_modes, Bit(TEPLUG_SCALING_PER_TENSOR));
  EXPECT_FALSE(ada->fp8_any_layout);

  const auto hopper = GemmSupportForArch(90, kCublasLt13_1);
  EXPECT_EQ(hopper->scaling_modes, Bit(TEPLUG_SCALING_PER_TENSOR) | Bit(TEPLUG_SCALING_BLOCK_1D128) |
                                       Bit(TEPLUG_SCALING_BLOCK_2D128));
  EXPECT_FALSE(hopper->fp8_any_layout);

  // fp8 in any layout on sm_100 to sm_119 and from sm_130; TN only on sm_120/121.
  for (int32_t arch : {100, 103, 110, 120, 121, 130}) {
    const auto blackwell = GemmSupportForArch(arch, kCublasLt13_1);
    const bool geforce = arch >= 120 && arch < 130;
    EXPECT_STREQ(blackwell->generation, arch < 120   ? "Blackwell (sm_100)"
                                        : arch < 130 ? "Blackwell (sm_120)"
                                                     : "sm_130 and later");
    EXPECT_EQ(blackwell->scaling_modes, Bit(TEPLUG_SCALING_PER_TENSOR) | Bit(TEPLUG_SCALING_MXFP8_1D32));
    EXPECT_EQ(blackwell->fp8_any_layout, !geforce) << "sm_" << arch;
  }
}

TEST(GemmSupportTest, ScalingModesFollowTheLibraryVersion) {
  // cuBLASLt 12.8: Hopper without block scaling.
  EXPECT_EQ(GemmSupportForArch(90, 120800)->scaling_modes, Bit(TEPLUG_SCALING_PER_TENSOR));
  // cuBLASLt 12.6: no fp8 at all on Blackwell, so no fp8 dtypes either.
  const auto old = GemmSupportForArch(100, 120600);
  EXPECT_EQ(old->scaling_modes, 0u);
  EXPECT_EQ(old->input_dtypes & kFp8Bits, 0u);
}

TEST(GemmSupportTest, OneDescriptorPerGenerationPresentWithItsArchBounds) {
  const std::vector<NativeGemmCaps> caps = GemmCapsForArchs({90, 80, 90, 100, 86, 75}, kCublasLt13_1);
  ASSERT_EQ(caps.size(), 3u);  // sm_75 is not served; the two sm_90 and sm_80/86 share
  EXPECT_STREQ(caps[0].support.generation, "Ampere (sm_80)");
  EXPECT_STREQ(caps[1].support.generation, "Hopper (sm_90)");
  EXPECT_STREQ(caps[2].support.generation, "Blackwell (sm_100)");
  EXPECT_EQ(caps[0].device.kind, TEPLUG_DEVICE_CUDA);
  EXPECT_EQ(caps[0].device.arch_min, 80);
  EXPECT_EQ(caps[0].device.arch_max, 88);
  EXPECT_EQ(caps[1].device.arch_min, 90);
  EXPECT_EQ(caps[1].device.arch_max, 99);
  EXPECT_EQ(caps[2].device.arch_min, 100);
  EXPECT_EQ(caps[2].device.arch_max, 119);
  for (const NativeGemmCaps& c : caps) {
    EXPECT_EQ(c.caps.struct_size, sizeof(TeplugGemmCaps));
    EXPECT_EQ(c.caps.a_dtypes, c.support.input_dtypes);
    EXPECT_EQ(c.caps.d_dtypes, c.support.d_dtypes);
    EXPECT_EQ(c.caps.scaling_modes, c.support.scaling_modes);
    EXPECT_EQ(c.caps.epilogues, TEPLUG_GEMM_CAP_BIAS | TEPLUG_GEMM_CAP_GELU | TEPLUG_GEMM_CAP_GELU_AUX |
                                    TEPLUG_GEMM_CAP_ACCUMULATE);
    EXPECT_EQ(c.caps.num_devices, 1u);
  }
  EXPECT_TRUE(GemmCapsForArchs({}, kCublasLt13_1).empty());
  EXPECT_TRUE(GemmCapsForArchs({70, 75}, kCublasLt13_1).empty());
}

// A GEMM's tensors (dtype, quantization mode) with no data.
class Args {
 public:
  Args(int32_t in, int32_t out, int32_t mode, bool trans_a, bool trans_b) {
    args_ = sdk::Versioned<TeplugGemmArgs>();
    args_.a = Tensor(in, mode);
    args_.b = Tensor(in, mode);
    args_.d = Tensor(out, 0);
    args_.trans_a = trans_a;
    args_.trans_b = trans_b;
  }
  const TeplugGemmArgs& get() const { return args_; }

 private:
  TeplugTensor* Tensor(int32_t dtype, int32_t mode) {
    TeplugTensor& t = tensors_.emplace_back(sdk::Versioned<TeplugTensor>());
    t.dtype = dtype;
    if (mode != 0) {
      TeplugQuantization& q = quants_.emplace_back(sdk::Versioned<TeplugQuantization>());
      q.mode = mode;
      t.quant = &q;
    }
    return &t;
  }
  std::deque<TeplugTensor> tensors_;
  std::deque<TeplugQuantization> quants_;
  TeplugGemmArgs args_;
};

TEST(GemmSupportTest, WhyNotOnArchNamesTheGenerationAndWhatItLacks) {
  const auto ampere = *GemmSupportForArch(80, kCublasLt13_1);
  const auto hopper = *GemmSupportForArch(90, kCublasLt13_1);
  const auto blackwell = *GemmSupportForArch(100, kCublasLt13_1);

  const Args bf16(TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_BF16, 0, true, false);
  for (const auto& s : {ampere, hopper, blackwell}) EXPECT_EQ(WhyNotOnArch(bf16.get(), s), "") << s.generation;

  const Args fp8_tn(TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_BF16, TEPLUG_SCALING_PER_TENSOR, false, true);
  EXPECT_EQ(WhyNotOnArch(fp8_tn.get(), ampere), "native gemm: A dtype 4 is not served on Ampere (sm_80)");
  EXPECT_EQ(WhyNotOnArch(fp8_tn.get(), hopper), "");
  EXPECT_EQ(WhyNotOnArch(fp8_tn.get(), blackwell), "");

  const Args fp8_nn(TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_BF16, TEPLUG_SCALING_PER_TENSOR, false, false);
  EXPECT_EQ(WhyNotOnArch(fp8_nn.get(), hopper),
            "native gemm: fp8 needs the TN form on Hopper (sm_90): trans_a 0 and trans_b 1, got 0 and 0");
  EXPECT_EQ(WhyNotOnArch(fp8_nn.get(), blackwell), "");
  EXPECT_EQ(WhyNotOnArch(fp8_nn.get(), *GemmSupportForArch(120, kCublasLt13_1)),
            "native gemm: fp8 needs the TN form on Blackwell (sm_120): trans_a 0 and trans_b 1, "
            "got 0 and 0");

  const Args mxfp8(TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_BF16, TEPLUG_SCALING_MXFP8_1D32, false, true);
  EXPECT_THAT(WhyNotOnArch(mxfp8.get(), hopper), HasSubstr("A scaling mode 2 is not served by this cuBLASLt on Hopper"));
  EXPECT_EQ(WhyNotOnArch(mxfp8.get(), blackwell), "");

  const Args blocks(TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_SCALING_BLOCK_2D128, false, true);
  EXPECT_EQ(WhyNotOnArch(blocks.get(), hopper), "");
  EXPECT_THAT(WhyNotOnArch(blocks.get(), blackwell), HasSubstr("scaling mode 4 is not served"));
}

}  // namespace
}  // namespace teplug::native
