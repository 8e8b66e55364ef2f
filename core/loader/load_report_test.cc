// FormatLoadReport: one readable line per entry, loaded and refused.
#include "core/loader/load_report.h"

#include "gtest/gtest.h"

namespace teplug::core {
namespace {

TEST(LoadReportTest, FormatsLoadedAndRefusedEntries) {
  LoadReportEntry builtin{"built-in", "built-in reference", true, false, "reference", "",
                          {"gemm/fp64", "attention/fp64"}};
  LoadReportEntry refused{"/p/libteplug_bad.so", "config t.textproto:3", false, true, "",
                          "sha256 mismatch: ...", {}};
  LoadReportEntry empty{"/p/libteplug_e.so", "api", true, false, "e", "", {}};
  EXPECT_EQ(FormatLoadReport({builtin, refused, empty}),
            "loaded  reference from built-in (built-in reference): gemm/fp64, attention/fp64\n"
            "refused /p/libteplug_bad.so (config t.textproto:3, required): sha256 mismatch: ...\n"
            "loaded  e from /p/libteplug_e.so (api): no implementations\n");
  EXPECT_EQ(FormatLoadReport({}), "no plugins or built-in providers\n");
}

}  // namespace
}  // namespace teplug::core
