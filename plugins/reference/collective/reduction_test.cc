// Unit tests of the rank-order reduction: the documented semantics on
// hand-picked cases that distinguish them from plausible alternatives, and
// random inputs of every type and operator against the exact oracle.
#include "plugins/reference/collective/reduction.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/reference/collective/random_elements.h"
#include "plugins/reference/collective/reduction_oracle.h"
#include "plugins/reference/numerics/float_formats.h"

namespace teplug::reference::collective {
namespace {

using testing::CheckReduction;
using testing::RandomElements;

// Reduces one element per rank.
template <typename T>
T ReduceScalars(const std::vector<T>& per_rank, DataType type, ReduceOp op) {
  std::vector<const void*> inputs;
  for (const T& value : per_rank) inputs.push_back(&value);
  T out{};
  ReduceInRankOrder(inputs.data(), static_cast<int>(inputs.size()), 1, type, op, &out);
  return out;
}

TEST(ReductionTest, Fp32SumsInRankOrderInFp32) {
  // 2^24 + 1 rounds back to 2^24 (tie to even), twice; any other order or a
  // wider accumulator would give 2^24 + 2.
  const float big = 16777216.0f;
  EXPECT_EQ(ReduceScalars<float>({big, 1.0f, 1.0f}, DataType::kFp32, ReduceOp::kSum), big);
  EXPECT_EQ(ReduceScalars<float>({1.0f, 1.0f, big}, DataType::kFp32, ReduceOp::kSum), big + 2.0f);
}

TEST(ReductionTest, Fp16AccumulatesInFp32AndRoundsOnce) {
  // 1 + 2^-11 is a tie in fp16 that rounds to 1; accumulating in fp16 would
  // lose both halves. In fp32 the sum is 1 + 2^-10, exact in fp16.
  const uint16_t one = EncodeFp16(1.0);
  const uint16_t half_ulp = EncodeFp16(std::ldexp(1.0, -11));
  EXPECT_EQ(ReduceScalars<uint16_t>({one, half_ulp, half_ulp}, DataType::kFp16, ReduceOp::kSum),
            EncodeFp16(1.0 + std::ldexp(1.0, -10)));
}

TEST(ReductionTest, Bf16AccumulatesInFp32AndRoundsOnce) {
  const uint16_t one = EncodeBf16(1.0);
  const uint16_t half_ulp = EncodeBf16(std::ldexp(1.0, -8));
  EXPECT_EQ(ReduceScalars<uint16_t>({one, half_ulp, half_ulp}, DataType::kBf16, ReduceOp::kSum),
            EncodeBf16(1.0 + std::ldexp(1.0, -7)));
}

TEST(ReductionTest, FloatingAverageIsSumDividedByWorld) {
  EXPECT_EQ(ReduceScalars<float>({1.5f, 2.5f, 5.0f}, DataType::kFp32, ReduceOp::kAvg), 3.0f);
  EXPECT_EQ(ReduceScalars<double>({-1.0, 2.0}, DataType::kFp64, ReduceOp::kAvg), 0.5);
}

TEST(ReductionTest, IntegerSumAndProductWrap) {
  EXPECT_EQ(ReduceScalars<int8_t>({100, 100}, DataType::kInt8, ReduceOp::kSum), -56);
  EXPECT_EQ(ReduceScalars<uint8_t>({17, 16}, DataType::kUint8, ReduceOp::kProd), 16);
  EXPECT_EQ(ReduceScalars<int32_t>({std::numeric_limits<int32_t>::max(), 1}, DataType::kInt32,
                                   ReduceOp::kSum),
            std::numeric_limits<int32_t>::min());
  EXPECT_EQ(ReduceScalars<int64_t>({int64_t{1} << 62, 4}, DataType::kInt64, ReduceOp::kProd), 0);
}

TEST(ReductionTest, IntegerAverageTruncatesTowardZeroWithoutOverflow) {
  EXPECT_EQ(ReduceScalars<int8_t>({-3, -2}, DataType::kInt8, ReduceOp::kAvg), -2);
  EXPECT_EQ(ReduceScalars<int8_t>({3, 2}, DataType::kInt8, ReduceOp::kAvg), 2);
  const int64_t max = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(ReduceScalars<int64_t>({max, max, max}, DataType::kInt64, ReduceOp::kAvg), max);
  EXPECT_EQ(ReduceScalars<uint8_t>({255, 254}, DataType::kUint8, ReduceOp::kAvg), 254);
}

TEST(ReductionTest, MinAndMaxPropagateNan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(
      std::isnan(ReduceScalars<float>({1.0f, nan, -2.0f}, DataType::kFp32, ReduceOp::kMin)));
  EXPECT_TRUE(std::isnan(ReduceScalars<float>({nan, 1.0f}, DataType::kFp32, ReduceOp::kMax)));
  EXPECT_EQ(ReduceScalars<float>({1.0f, -2.0f, 3.0f}, DataType::kFp32, ReduceOp::kMin), -2.0f);
}

TEST(ReductionTest, RejectsTypesWithoutArithmetic) {
  for (DataType type :
       {DataType::kFp8E4M3, DataType::kFp8E5M2, DataType::kE8M0, DataType::kFp4E2M1}) {
    const absl::Status status = CheckReducible(type, ReduceOp::kSum, "AllReduce");
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(status.message().find(DataTypeName(type)), absl::string_view::npos) << status;
    EXPECT_NE(status.message().find("AllReduce"), absl::string_view::npos) << status;
  }
  EXPECT_EQ(CheckReducible(DataType::kFp32, static_cast<ReduceOp>(99), "AllReduce").code(),
            absl::StatusCode::kInvalidArgument);
}

// Every reducible type and operator on random data, 1 to 4 ranks, in place
// into the first input (the aliasing the header allows).
TEST(ReductionTest, RandomInputsMatchTheExactOracleInPlace) {
  constexpr size_t kCount = 257;
  uint64_t seed = 1;
  for (DataType type : testing::kReducibleTypes) {
    for (ReduceOp op : testing::kReduceOps) {
      for (int world = 1; world <= 4; ++world) {
        std::vector<std::vector<unsigned char>> buffers;
        for (int r = 0; r < world; ++r) {
          buffers.push_back(RandomElements(type, kCount, ++seed));
        }
        const std::vector<unsigned char> first_input = buffers[0];
        std::vector<const void*> inputs;
        std::vector<const unsigned char*> oracle_inputs = {first_input.data()};
        for (int r = 0; r < world; ++r) inputs.push_back(buffers[r].data());
        for (int r = 1; r < world; ++r) oracle_inputs.push_back(buffers[r].data());
        ASSERT_TRUE(CheckReducible(type, op, "test").ok());
        ReduceInRankOrder(inputs.data(), world, kCount, type, op, buffers[0].data());
        EXPECT_EQ(CheckReduction(oracle_inputs, kCount, type, op, buffers[0].data()), "")
            << "world " << world;
      }
    }
  }
}

}  // namespace
}  // namespace teplug::reference::collective
