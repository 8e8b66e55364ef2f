// FormatLoadReport: one readable line per entry, loaded and refused, even
// for an entry built elsewhere whose texts were never escaped.
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

TEST(LoadReportTest, UnescapedTextStaysOnItsLine) {
  LoadReportEntry loaded{"/p/libteplug_a\nteplug WARN: x.so", "TEPLUG_PLUGIN_PATH /p\r", true, false,
                         "a", "", {"gemm/x\x1b[2J"}, {"skipped\n\xff"}};
  LoadReportEntry refused{"/p/b\xff.so", "api", false, false, "", "bad\nrefused /q.so: forged",
                          {}};
  EXPECT_EQ(FormatLoadReport({loaded, refused}),
            "loaded  a from /p/libteplug_a\\x0ateplug WARN: x.so (TEPLUG_PLUGIN_PATH /p\\x0d): "
            "gemm/x\\x1b[2J\n"
            "        skipped: skipped\\x0a\\xff\n"
            "refused /p/b\\xff.so (api): bad\\x0arefused /q.so: forged\n");
  EXPECT_EQ(RefusalLine(refused), "plugin /p/b\\xff.so (api) refused: bad\\x0arefused /q.so: forged");
}

}  // namespace
}  // namespace teplug::core
