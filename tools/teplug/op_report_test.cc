// FormatOpTable prints what a plugin chose (the selection's reason, its
// implementation name) escaped: one table line per op, no control byte.
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

}  // namespace
}  // namespace teplug::cli
