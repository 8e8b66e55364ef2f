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
                 double empty_ms, double with_50_ms) {
  BenchTimes t;
  t.direct_call = direct_ns * 1e-9;
  t.selected_call = selected_ns * 1e-9;
  t.dispatch_call = dispatch_ns * 1e-9;
  t.cold_select_64 = select_us * 1e-6;
  t.create_empty = empty_ms * 1e-3;
  t.create_50 = with_50_ms * 1e-3;
  return t;
}

TEST(BenchRatios, AllTargetsMet) {
  std::vector<RatioLine> lines = ComputeRatios(Times(4.0, 4.2, 16.5, 3.1, 0.5, 42.5));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_TRUE(Contains(lines[0].text, "selected/direct = 1.050x")) << lines[0].text;
  EXPECT_TRUE(Contains(lines[1].text, "dispatch - direct = 12.5 ns")) << lines[1].text;
  EXPECT_TRUE(Contains(lines[2].text, "cold selection among 64 = 3.10 us")) << lines[2].text;
  EXPECT_TRUE(Contains(lines[3].text, "load 50 plugins = 42.0 ms")) << lines[3].text;
  for (const RatioLine& l : lines) {
    EXPECT_TRUE(l.met) << l.text;
    EXPECT_TRUE(Contains(l.text, ": met")) << l.text;
  }
}

TEST(BenchRatios, MissesSayByHowMuch) {
  std::vector<RatioLine> lines = ComputeRatios(Times(4.0, 5.0, 34.0, 7.5, 1.0, 151.0));
  ASSERT_EQ(lines.size(), 4u);
  for (const RatioLine& l : lines) EXPECT_FALSE(l.met) << l.text;
  EXPECT_TRUE(Contains(lines[0].text, "MISSED by 0.15x")) << lines[0].text;  // 1.25 - 1.10
  EXPECT_TRUE(Contains(lines[1].text, "MISSED by 5 ns (20% over)")) << lines[1].text;  // 30 - 25
  EXPECT_TRUE(Contains(lines[2].text, "MISSED by 2.5 us (50% over)")) << lines[2].text;
  EXPECT_TRUE(Contains(lines[3].text, "MISSED by 50 ms (50% over)")) << lines[3].text;
}

TEST(BenchRatios, VerdictsFlipAtTheIssueTargets) {
  std::vector<RatioLine> inside = ComputeRatios(Times(10.0, 10.9, 34.9, 4.9, 1.0, 100.9));
  std::vector<RatioLine> outside = ComputeRatios(Times(10.0, 11.1, 35.1, 5.1, 1.0, 101.1));
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_TRUE(inside[i].met) << inside[i].text;
    EXPECT_FALSE(outside[i].met) << outside[i].text;
  }
}

// Exactly at each limit: "within 1.1x" is met, "under 25 ns / 5 us / 100 ms"
// is not, and the printed verdict says the same as the flag.
TEST(BenchRatios, AtExactlyTheTargetTextAndFlagAgree) {
  std::vector<RatioLine> lines = ComputeRatios(Times(2.0, 2.2, 27.0, 5.0, 1.0, 101.0));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_TRUE(lines[0].met) << lines[0].text;
  for (size_t i = 1; i < 4; ++i) EXPECT_FALSE(lines[i].met) << lines[i].text;
  for (const RatioLine& l : lines) EXPECT_EQ(l.met, Contains(l.text, ": met")) << l.text;
}

}  // namespace
}  // namespace teplug::bench
