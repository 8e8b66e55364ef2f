// The kernels around cuDNN's SDPA graph, run without a GPU on the host grid
// (//native/device:host_grid), against what sequence_kernels.h says they
// write, on random batches: lengths and ragged offsets from cu_seqlens, the
// dropout state, padding rows zeroed in every layout's strides (and nothing
// else touched), and -inf LSE past each length.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "native/attention/sequence_kernels.h"
#include "native/device/testing/host_grid.h"

namespace teplug::native::attention {
namespace {

// cu_seqlens of `batch` random lengths in [0, max_len] (zero-length
// sequences included).
std::vector<int32_t> RandomCuSeqlens(std::mt19937& rng, int64_t batch, int32_t max_len) {
  std::uniform_int_distribution<int32_t> length(0, max_len);
  std::vector<int32_t> cu(static_cast<size_t>(batch + 1), 0);
  for (int64_t b = 0; b < batch; ++b) cu[b + 1] = cu[b] + length(rng);
  return cu;
}

TEST(SequenceKernelsOnHostGrid, LengthsAndOffsetsFollowCuSeqlens) {
  std::mt19937 rng(7);
  for (int64_t batch : {1, 3, 255, 256, 257, 700}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    const std::vector<int32_t> cu = RandomCuSeqlens(rng, batch, 50);
    std::vector<int32_t> lengths(static_cast<size_t>(batch) + 1, -7);  // one guard past the end
    ASSERT_EQ(LaunchSequenceLengths(cu.data(), lengths.data(), batch, nullptr), 0);
    for (int64_t b = 0; b < batch; ++b) ASSERT_EQ(lengths[b], cu[b + 1] - cu[b]) << "b " << b;
    EXPECT_EQ(lengths[batch], -7) << "written past the batch";

    const int64_t token_stride = 3 * 64;  // heads * head_dim of a THD tensor
    std::vector<int64_t> offsets(static_cast<size_t>(batch) + 2, -7);
    ASSERT_EQ(LaunchRaggedOffsets(cu.data(), offsets.data(), batch, token_stride, nullptr), 0);
    for (int64_t b = 0; b <= batch; ++b) {
      ASSERT_EQ(offsets[b], int64_t{cu[b]} * token_stride) << "b " << b;
    }
    EXPECT_EQ(offsets[batch + 1], -7) << "written past batch + 1";
  }
}

TEST(SequenceKernelsOnHostGrid, AnEmptyBatchLaunchesNothing) {
  const int64_t before = host_grid::Launches();
  const int32_t cu[1] = {0};
  int32_t lengths[1] = {-7};
  EXPECT_EQ(LaunchSequenceLengths(cu, lengths, 0, nullptr), 0);
  EXPECT_EQ(lengths[0], -7);
  EXPECT_EQ(LaunchZeroRowsPastLength(nullptr, {0, 2, 3, 4}, {24, 12, 4, 1}, 2, cu, nullptr), 0);
  EXPECT_EQ(LaunchNegInfPastLength(nullptr, 0, 2, 3, cu, nullptr), 0);
  EXPECT_EQ(host_grid::Launches(), before);
}

TEST(SequenceKernelsOnHostGrid, RngStateIsSeedThenOffset) {
  int64_t rng[3] = {0, 0, -7};
  ASSERT_EQ(LaunchWriteRngState(rng, 0xFEDCBA9876543210ull, 12345, nullptr), 0);
  EXPECT_EQ(static_cast<uint64_t>(rng[0]), 0xFEDCBA9876543210ull);
  EXPECT_EQ(rng[1], 12345);
  EXPECT_EQ(rng[2], -7);
}

// A [B, H, S, D] view in one of the layouts teplug's attention takes, as
// strides over a buffer of B*H*S*D elements.
struct Layout {
  const char* name;
  std::array<int64_t, 4> (*strides)(int64_t b, int64_t h, int64_t s, int64_t d);
};
const Layout kLayouts[] = {
    {"BSHD",
     [](int64_t, int64_t h, int64_t s, int64_t d) {
       return std::array<int64_t, 4>{s * h * d, d, h * d, 1};
     }},
    {"BHSD",
     [](int64_t, int64_t h, int64_t s, int64_t d) {
       return std::array<int64_t, 4>{h * s * d, s * d, d, 1};
     }},
    {"SBHD",
     [](int64_t b, int64_t h, int64_t, int64_t d) {
       return std::array<int64_t, 4>{h * d, d, b * h * d, 1};
     }},
};

// Zeroes the padding rows of random nonzero `Element`s (2 bytes: fp16/bf16,
// 1 byte: fp8) in every layout and checks nothing else changed.
template <typename Element>
void CheckPaddingRowsZeroed() {
  std::mt19937 rng(11);
  const int64_t batch = 3, heads = 5, seq = 37, dim = 24;
  const int64_t total = batch * heads * seq * dim;
  std::vector<int32_t> lengths = {seq, 0, 20};  // full, empty, partial
  for (const Layout& layout : kLayouts) {
    SCOPED_TRACE(layout.name);
    const std::array<int64_t, 4> strides = layout.strides(batch, heads, seq, dim);
    std::vector<Element> values(static_cast<size_t>(total));
    for (Element& v : values)
      v = static_cast<Element>(1 + rng() % (Element(~Element{0}) - 1));  // never 0
    const std::vector<Element> before = values;
    ASSERT_EQ(LaunchZeroRowsPastLength(values.data(), {batch, heads, seq, dim}, strides,
                                       static_cast<int>(sizeof(Element)), lengths.data(), nullptr),
              0);
    size_t zeroed = 0;
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t h = 0; h < heads; ++h) {
        for (int64_t s = 0; s < seq; ++s) {
          for (int64_t d = 0; d < dim; ++d) {
            const size_t i = static_cast<size_t>(b * strides[0] + h * strides[1] + s * strides[2] +
                                                 d * strides[3]);
            if (s >= lengths[b]) {
              ASSERT_EQ(values[i], 0) << "b " << b << " h " << h << " s " << s << " d " << d;
              ++zeroed;
            } else {
              ASSERT_EQ(values[i], before[i])
                  << "b " << b << " h " << h << " s " << s << " d " << d;
            }
          }
        }
      }
    }
    EXPECT_EQ(zeroed, static_cast<size_t>(heads * dim * ((seq - 0) + (seq - 20))));
  }
}

TEST(SequenceKernelsOnHostGrid, PaddingRowsAreZeroedInEveryLayoutAndNothingElse) {
  CheckPaddingRowsZeroed<uint16_t>();
}

TEST(SequenceKernelsOnHostGrid, Fp8PaddingRowsAreZeroedByteByByte) {
  CheckPaddingRowsZeroed<uint8_t>();
}

TEST(SequenceKernelsOnHostGrid, MaxOfAmaxesTakesOnlyTheMaskedSlots) {
  // Slots 4 floats apart (16 bytes, as the attention's scratch has them);
  // the floats between them are larger than any slot and must not count.
  constexpr int64_t kStride = 4;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> value(0.01f, 100.0f);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<float> slots(32 * kStride, 1e30f);
    for (int i = 0; i < 32; ++i) slots[static_cast<size_t>(i * kStride)] = value(rng);
    const uint32_t mask = static_cast<uint32_t>(rng()) | 1u;
    float want = 0.0f;
    for (int i = 0; i < 32; ++i)
      if ((mask >> i) & 1u) want = std::max(want, slots[static_cast<size_t>(i * kStride)]);
    float out = -1.0f;
    ASSERT_EQ(LaunchMaxOfAmaxes(slots.data(), kStride, mask, &out, nullptr), 0);
    ASSERT_EQ(out, want) << "mask " << mask;
  }
  // A NaN amax is not lost.
  const float nan_first[3] = {std::nanf(""), 2.0f, 3.0f};
  float out = 0.0f;
  ASSERT_EQ(LaunchMaxOfAmaxes(nan_first, 1, 0b111, &out, nullptr), 0);
  EXPECT_TRUE(std::isnan(out));
  ASSERT_EQ(LaunchMaxOfAmaxes(nan_first, 1, 0b110, &out, nullptr), 0);
  EXPECT_EQ(out, 3.0f);
}

TEST(SequenceKernelsOnHostGrid, LsePastEachLengthIsMinusInfinity) {
  std::mt19937 rng(13);
  const int64_t batch = 4, heads = 3, seq = 90;
  const std::vector<int32_t> lengths = {90, 0, 45, 89};
  std::vector<float> lse(static_cast<size_t>(batch * heads * seq));
  std::normal_distribution<float> normal;
  for (float& v : lse) v = normal(rng);
  const std::vector<float> before = lse;
  ASSERT_EQ(LaunchNegInfPastLength(lse.data(), batch, heads, seq, lengths.data(), nullptr), 0);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t s = 0; s < seq; ++s) {
        const size_t i = static_cast<size_t>((b * heads + h) * seq + s);
        if (s >= lengths[b]) {
          ASSERT_TRUE(std::isinf(lse[i]) && lse[i] < 0) << "b " << b << " h " << h << " s " << s;
        } else {
          ASSERT_EQ(lse[i], before[i]) << "b " << b << " h " << h << " s " << s;
        }
      }
    }
  }
}

}  // namespace
}  // namespace teplug::native::attention
