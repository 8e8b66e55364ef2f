// AttentionCall::VisibleRange: each query row's visible keys as one interval,
// per attention.h's visible(i, j), for the diagonal of each mask type, windows
// and padding rows.
#include "plugins/cpu/attention/attention_call.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace teplug::cpu::attention {
namespace {

// A call of one batch with actual lengths sq, skv.
AttentionCall Lengths(int64_t sq, int64_t skv) {
  AttentionCall c;
  c.batch = 1;
  c.len_q = {sq};
  c.len_kv = {skv};
  return c;
}

std::pair<int64_t, int64_t> Range(const AttentionCall& c, int64_t i) {
  int64_t lo = -1, hi = -1;
  c.VisibleRange(0, i, &lo, &hi);
  return {lo, hi};
}

TEST(AttentionCallTest, CausalTopLeftAndBottomRight) {
  AttentionCall c = Lengths(4, 6);
  c.window_right = 0;
  c.bottom_right = false;
  EXPECT_EQ(Range(c, 0), std::make_pair(int64_t{0}, int64_t{1}));
  EXPECT_EQ(Range(c, 3), std::make_pair(int64_t{0}, int64_t{4}));
  c.bottom_right = true;  // diagonal shifted by skv - sq = 2
  EXPECT_EQ(Range(c, 0), std::make_pair(int64_t{0}, int64_t{3}));
  EXPECT_EQ(Range(c, 3), std::make_pair(int64_t{0}, int64_t{6}));
}

TEST(AttentionCallTest, WindowsClipToTheKeys) {
  AttentionCall c = Lengths(5, 5);
  c.bottom_right = true;
  c.window_left = 1;
  c.window_right = 2;
  EXPECT_EQ(Range(c, 0), std::make_pair(int64_t{0}, int64_t{3}));
  EXPECT_EQ(Range(c, 2), std::make_pair(int64_t{1}, int64_t{5}));
  EXPECT_EQ(Range(c, 4), std::make_pair(int64_t{3}, int64_t{5}));
}

TEST(AttentionCallTest, PaddingRowsAndEmptyWindowsSeeNothing) {
  AttentionCall c = Lengths(3, 8);
  auto [lo, hi] = Range(c, 3);  // i >= sq_b: a padding row
  EXPECT_EQ(lo, hi);
  // bottom-right with skv < sq: early rows' diagonal is left of key 0.
  AttentionCall d = Lengths(6, 2);
  d.bottom_right = true;
  d.window_right = 0;
  auto [lo0, hi0] = Range(d, 0);
  EXPECT_EQ(lo0, hi0);
  EXPECT_EQ(Range(d, 5), std::make_pair(int64_t{0}, int64_t{2}));
}

}  // namespace
}  // namespace teplug::cpu::attention
