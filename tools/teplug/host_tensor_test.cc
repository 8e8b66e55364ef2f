// HostTensor's encoding, decoding and ownership, and the job's error
// measure, on hand-picked values whose bit patterns are known.
#include "tools/teplug/host_tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace teplug::cli {
namespace {

TEST(NormalizedMaxErrorTest, RelativeToTheOracleScaleAndNeverVacuous) {
  EXPECT_DOUBLE_EQ(NormalizedMaxError({1.0, 2.5}, {1.0, 2.0}), 0.25);
  EXPECT_DOUBLE_EQ(NormalizedMaxError({-4.0, 0.0}, {-4.0, 0.0}), 0.0);
  EXPECT_TRUE(std::isinf(NormalizedMaxError({0.0, 0.0}, {0.0, 0.0})));  // all-zero oracle
  EXPECT_TRUE(std::isinf(NormalizedMaxError({1.0}, {1.0, 2.0})));       // size mismatch
  EXPECT_TRUE(std::isinf(NormalizedMaxError({NAN}, {1.0})));
}

TEST(HostTensorTest, Bf16RoundTripsAndFp8DecodesWithItsScale) {
  HostTensor t("t", TEPLUG_DTYPE_BF16, {2, 2});
  t.SetValues({1.0, -0.5, 3.0, 1.0 + 1.0 / 256});  // the last rounds to 1.0 (ties to even)
  EXPECT_EQ(t.Values(), (std::vector<double>{1.0, -0.5, 3.0, 1.0}));
  HostTensor c = t.Clone("c");
  c.SetValues({2, 2, 2, 2});
  EXPECT_EQ(t.Values()[0], 1.0);  // a clone owns its bytes

  HostTensor q("q", TEPLUG_DTYPE_FP8_E4M3, {1, 2});
  q.AttachQuantization(TEPLUG_SCALING_PER_TENSOR);
  auto* bytes = static_cast<uint8_t*>(q.tensor()->data);
  bytes[0] = 0x38;  // e4m3 1.0
  bytes[1] = 0xC0;  // e4m3 -2.0
  float scale_inv = 0.25f;
  std::memcpy(const_cast<void*>(q.tensor()->quant->scale_inv->data), &scale_inv, 4);
  EXPECT_EQ(q.Values(), (std::vector<double>{0.25, -0.5}));
}

TEST(HostTensorTest, Mxfp8DecodesEachBlockWithItsOwnE8m0Scale) {
  HostTensor q("q", TEPLUG_DTYPE_FP8_E5M2, {2, 33});  // 2 rows of 2 blocks
  q.AttachQuantization(TEPLUG_SCALING_MXFP8_1D32);
  auto* codes = static_cast<uint8_t*>(q.tensor()->data);
  codes[0] = 0x3C;       // e5m2 1.0, row 0 block 0
  codes[32] = 0xC2;      // e5m2 -3.0, row 0 block 1
  codes[33 + 5] = 0x01;  // e5m2 2^-16, row 1 block 0
  auto* scales = static_cast<uint8_t*>(const_cast<void*>(q.tensor()->quant->scale_inv->data));
  scales[0] = 0x80;  // 2
  scales[1] = 0x7D;  // 0.25
  scales[2] = 0x8F;  // 2^16
  scales[3] = 0x7F;
  const std::vector<double> v = q.Values();
  EXPECT_EQ(v[0], 2.0);
  EXPECT_EQ(v[32], -0.75);
  EXPECT_EQ(v[33 + 5], 1.0);
  EXPECT_EQ(q.MxScale(1, 32), 1.0);
}

TEST(HostTensorTest, BlockModesDecodeEachElementWithItsBlocksFp32Scale) {
  for (int32_t mode : {TEPLUG_SCALING_BLOCK_1D128, TEPLUG_SCALING_BLOCK_2D128}) {
    HostTensor q("q", TEPLUG_DTYPE_FP8_E4M3, {130, 129});  // 2 block columns
    q.AttachQuantization(mode);
    const TeplugTensor* s = q.tensor()->quant->scale_inv;
    ASSERT_EQ(s->dtype, TEPLUG_DTYPE_FP32);
    EXPECT_EQ(s->shape[0], mode == TEPLUG_SCALING_BLOCK_1D128 ? 130 : 2);
    EXPECT_EQ(s->shape[1], 2);
    auto* codes = static_cast<uint8_t*>(q.tensor()->data);
    codes[129 * 129 + 128] = 0x38;  // e4m3 1.0 at (129, 128)
    const int64_t grid_row = mode == TEPLUG_SCALING_BLOCK_1D128 ? 129 : 1;
    const float scale_inv = 0.75f;
    std::memcpy(static_cast<uint8_t*>(s->data) + 4 * (grid_row * 2 + 1), &scale_inv, 4);
    EXPECT_EQ(q.Values()[129 * 129 + 128], 0.75) << mode;
  }
}

}  // namespace
}  // namespace teplug::cli
