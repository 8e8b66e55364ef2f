// FormatOpTable prints what a plugin chose (the selection's reason, its
// implementation name) escaped: one table line per op, no control byte; its
// time and speedup columns; Summarize keeps the timing; Median.
#include "tools/teplug/op_report.h"

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "core/log/printable_text_oracle.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace teplug::cli {
namespace {

TEST(FormatOpTableTest, PluginTextStaysOnItsLineEscaped) {
  OpResult r;
  r.step = "fwd";
  r.label = "gemm qkv_proj";
  r.interface_name = "IGemm/1";
  r.implementation = "acme/gemm\x1b[2J";
  r.why = "fast\nfwd  forged  IGemm/1  reference/gemm  \"x\"  OK\r\xff";
  const std::string table = FormatOpTable(Summarize({r}));
  const std::vector<std::string> lines = absl::StrSplit(table, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 2u) << table;  // header and the one op
  for (const std::string& line : lines) EXPECT_TRUE(core::testing::IsPrintableUtf8(line)) << line;
  EXPECT_THAT(lines[1], ::testing::HasSubstr("acme/gemm\\x1b[2J"));
  EXPECT_THAT(lines[1], ::testing::HasSubstr(
                            "\"fast\\x0afwd  forged  IGemm/1  reference/gemm  \"x\"  OK\\x0d\\xff\""));
}

OpResult Timed(const std::string& label, bool compared) {
  OpResult r;
  r.step = "fwd";
  r.label = label;
  r.interface_name = "IGemm/1";
  r.implementation = "acme/gemm";
  r.timing.timed = true;
  r.timing.compared = compared;
  r.timing.provider_millis = 2.0;
  r.timing.reference_millis = compared ? 5.0 : 0.0;
  return r;
}

// The time column shows the timed median, the speedup column reference /
// provider, or "-" when the op was not compared with the reference.
TEST(FormatOpTableTest, TimeAndSpeedupColumns) {
  OpResult untimed = Timed("gemm b", false);
  untimed.timing = {};
  untimed.millis = 7.0;  // the checked call's time: shown only when not timed
  const std::string table =
      FormatOpTable(Summarize({Timed("gemm a", true), Timed("gemm c", false), untimed}));
  const std::vector<std::string> lines = absl::StrSplit(table, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 4u) << table;
  EXPECT_THAT(lines[0], ::testing::ContainsRegex("time +first call +speedup +vs reference"));
  EXPECT_THAT(lines[1], ::testing::ContainsRegex("2.000 ms +0.000 ms +2.50x "));
  EXPECT_THAT(lines[2], ::testing::ContainsRegex("2.000 ms +0.000 ms +- "));
  EXPECT_THAT(lines[3], ::testing::ContainsRegex("7.000 ms +7.000 ms +- "));
}

// The first call column shows the first checked call of the row's label, where
// one-time work (a kernel build) lands; time stays the timed median, and the
// calls after the first do not dilute it.
TEST(FormatOpTableTest, FirstCallColumnKeepsTheOneTimeCostApart) {
  OpResult first = Timed("attention forward", true);
  first.millis = 20000.0;  // the first call built the provider's kernels
  OpResult later = Timed("attention forward", true);
  later.timing = {};
  later.millis = 3.0;
  const std::vector<OpSummary> ops = Summarize({first, later, later});
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_DOUBLE_EQ(ops[0].first_millis, 20000.0);
  const std::vector<std::string> lines =
      absl::StrSplit(FormatOpTable(ops), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[1], ::testing::ContainsRegex("\" +2.000 ms +20000.000 ms +2.50x "));
}

// Merging the ranks' calls of one label keeps the one timing taken (on
// rank 0, or on whichever rank timed it).
TEST(SummarizeTest, KeepsTheTimingOfTheCallThatWasTimed) {
  OpResult first = Timed("gemm a", true);
  first.timing = {};
  const std::vector<OpSummary> ops = Summarize({first, Timed("gemm a", true)});
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_TRUE(ops[0].worst.timing.timed);
  EXPECT_DOUBLE_EQ(ops[0].worst.timing.Speedup(), 2.5);
}

// Results that name their rank and device (`teplug run --devices`) keep one
// row per rank and op, with a "rank" column; the same label on two ranks is
// two rows, each with its own provider and why.
TEST(SummarizeTest, RowsPerRankWhenResultsNameTheirDevice) {
  OpResult cpu = Timed("gemm a", true);
  cpu.device = "rank 0 cpu:0";
  cpu.why = "priority 100";
  OpResult opencl = Timed("gemm a", false);
  opencl.device = "rank 1 opencl:0";
  opencl.implementation = "opencl/clblast";
  opencl.why = "priority 200";
  OpResult opencl_again = opencl;  // a second layer on the same rank merges
  const std::vector<OpSummary> ops = Summarize({cpu, opencl, opencl_again});
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[1].calls, 2);
  const std::string table = FormatOpTable(ops);
  const std::vector<std::string> lines = absl::StrSplit(table, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 3u) << table;
  EXPECT_THAT(lines[0], ::testing::ContainsRegex("^step +rank +op +interface +provider"));
  EXPECT_THAT(lines[1], ::testing::ContainsRegex("^fwd +rank 0 cpu:0 +gemm a +IGemm/1 +acme/gemm +\"priority 100\""));
  EXPECT_THAT(lines[2], ::testing::ContainsRegex(
                            "^fwd +rank 1 opencl:0 +gemm a +IGemm/1 +opencl/clblast +\"priority 200\""));
}

TEST(MedianTest, MiddleValueOrMeanOfTheMiddleTwo) {
  EXPECT_DOUBLE_EQ(Median({}), 0);
  EXPECT_DOUBLE_EQ(Median({5, 1, 4, 2, 3}), 3);
  EXPECT_DOUBLE_EQ(Median({9, 1, 3, 2}), 2.5);
}

}  // namespace
}  // namespace teplug::cli
