#include "tests/bench/bench_ratios.h"

#include <string>

#include "gtest/gtest.h"

namespace teplug::bench {
namespace {

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Times from which every ratio is easy to work out by hand.
BenchTimes Times(double direct_ns, double selected_ns, double dispatch_ns, double select_us,
                 double empty_ms, double with_50_ms, double prepared_ns) {
  BenchTimes t;
  t.direct_call = direct_ns * 1e-9;
  t.selected_call = selected_ns * 1e-9;
  t.dispatch_call = dispatch_ns * 1e-9;
  t.cold_select_64 = select_us * 1e-6;
  t.create_empty = empty_ms * 1e-3;
  t.create_50 = with_50_ms * 1e-3;
  t.prepared_call = prepared_ns * 1e-9;
  return t;
}

TEST(BenchRatios, AllTargetsMet) {
  std::vector<RatioLine> lines = ComputeRatios(Times(4.0, 4.2, 7.0, 3.1, 0.5, 42.5, 5.0));
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_TRUE(Contains(lines[0].text, "selected/direct = 1.050x")) << lines[0].text;
  EXPECT_TRUE(Contains(lines[1].text, "dispatch/direct = 1.750x (7.00 ns vs 4.00 ns, 3.0 ns more")) << lines[1].text;
  EXPECT_TRUE(Contains(lines[2].text, "cold selection among 64 = 3.10 us")) << lines[2].text;
  EXPECT_TRUE(Contains(lines[3].text, "load 50 plugins = 42.0 ms")) << lines[3].text;
  EXPECT_TRUE(Contains(lines[4].text, "prepared/direct = 1.250x (5.00 ns vs 4.00 ns, 1.0 ns more")) << lines[4].text;
  for (const RatioLine& l : lines) {
    EXPECT_TRUE(l.met) << l.text;
    EXPECT_TRUE(Contains(l.text, ": met")) << l.text;
  }
}

TEST(BenchRatios, MissesSayByHowMuch) {
  std::vector<RatioLine> lines = ComputeRatios(Times(4.0, 5.0, 10.0, 7.5, 1.0, 151.0, 12.0));
  ASSERT_EQ(lines.size(), 5u);
  for (const RatioLine& l : lines) EXPECT_FALSE(l.met) << l.text;
  EXPECT_TRUE(Contains(lines[0].text, "MISSED by 0.2x")) << lines[0].text;  // 1.25 - 1.05
  EXPECT_TRUE(Contains(lines[1].text, "MISSED by 0.5x (25% over)")) << lines[1].text;  // 2.5 - 2.0
  EXPECT_TRUE(Contains(lines[2].text, "MISSED by 2.5 us (50% over)")) << lines[2].text;
  EXPECT_TRUE(Contains(lines[3].text, "MISSED by 50 ms (50% over)")) << lines[3].text;
  EXPECT_TRUE(Contains(lines[4].text, "MISSED by 1x (50% over)")) << lines[4].text;  // 3.0 - 2.0
}

TEST(BenchRatios, VerdictsFlipAtTheIssueTargets) {
  std::vector<RatioLine> inside = ComputeRatios(Times(10.0, 10.4, 19.9, 4.9, 1.0, 100.9, 19.9));
  std::vector<RatioLine> outside = ComputeRatios(Times(10.0, 10.6, 20.1, 5.1, 1.0, 101.1, 20.1));
  ASSERT_EQ(inside.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_TRUE(inside[i].met) << inside[i].text;
    EXPECT_FALSE(outside[i].met) << outside[i].text;
  }
}

// Exactly at each limit: "within 1.05x / 2x" is met, "under 5 us / 100 ms"
// is not, and the printed verdict says the same as the flag.
TEST(BenchRatios, AtExactlyTheTargetTextAndFlagAgree) {
  std::vector<RatioLine> lines = ComputeRatios(Times(2.0, 2.1, 4.0, 5.0, 1.0, 101.0, 4.0));
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_TRUE(lines[0].met) << lines[0].text;
  EXPECT_TRUE(lines[1].met) << lines[1].text;
  for (size_t i = 2; i < 4; ++i) EXPECT_FALSE(lines[i].met) << lines[i].text;
  EXPECT_TRUE(lines[4].met) << lines[4].text;
  for (const RatioLine& l : lines) EXPECT_EQ(l.met, Contains(l.text, ": met")) << l.text;
}

}  // namespace
}  // namespace teplug::bench
