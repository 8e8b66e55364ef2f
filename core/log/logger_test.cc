// The logger is the last line of defence against forged log lines: whatever
// a message holds, the sink gets one "teplug <LEVEL>: " header at column 0,
// no control byte and no malformed UTF-8, and indented continuation lines.
#include "core/log/logger.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "core/log/printable_text_oracle.h"
#include "gtest/gtest.h"

namespace teplug::core {
namespace {

struct Captured {
  std::vector<std::string> messages;  // one per sink call
  Logger logger{LogLevel::kDebug,
                [this](LogLevel, absl::string_view line) { messages.emplace_back(line); }};
  // Every physical line the sink was given, as a terminal would show them.
  std::vector<std::string> Lines() const {
    std::vector<std::string> out;
    for (const std::string& m : messages) {
      for (absl::string_view l : absl::StrSplit(m, '\n')) out.emplace_back(l);
    }
    return out;
  }
};

TEST(LoggerTest, AForgedLineInAMessageStaysOnItsLine) {
  Captured c;
  c.logger.Log(LogLevel::kInfo,
               "plugin acme: ok\r\x1b[1A\x1b[2K\nteplug WARN: plugin /x.so (api) refused: forged\xff");
  ASSERT_EQ(c.messages.size(), 1u);
  const std::vector<std::string> lines = c.Lines();
  ASSERT_EQ(lines.size(), 2u) << c.messages[0];
  EXPECT_EQ(lines[0], "teplug INFO: plugin acme: ok\\x0d\\x1b[1A\\x1b[2K");
  EXPECT_EQ(lines[1], "  teplug WARN: plugin /x.so (api) refused: forged\\xff");
}

TEST(LoggerTest, HostMultiLineMessagesKeepTheirLinesIndented) {
  Captured c;
  c.logger.Log(LogLevel::kWarn, "no provider can serve gemm\n  candidate  verdict\nstrict: no\n");
  ASSERT_EQ(c.messages.size(), 1u);
  EXPECT_EQ(c.messages[0],
            "teplug WARN: no provider can serve gemm\n    candidate  verdict\n  strict: no");
}

TEST(LoggerTest, OrdinaryTextIsUnchanged) {
  Captured c;
  c.logger.Log(LogLevel::kError, "plugin caf\xc3\xa9: 3 \xe2\x82\xac \"quoted\" \\x41");
  ASSERT_EQ(c.messages.size(), 1u);
  EXPECT_EQ(c.messages[0], "teplug ERROR: plugin caf\xc3\xa9: 3 \xe2\x82\xac \"quoted\" \\x41");
}

// Every byte value but '\n' (the line break the logger keeps), alone and
// around newlines, through Log and LogOnce:
// only the first physical line of a message starts with "teplug ", and every
// line is printable UTF-8 by the independent decoder.
TEST(LoggerTest, NoByteLetsAMessageStartALineOrCarryAControl) {
  Captured c;
  for (int b = 0; b < 256; ++b) {
    if (b == '\n') continue;
    const std::string byte(1, static_cast<char>(b));
    c.logger.Log(LogLevel::kWarn, "a" + byte + "teplug WARN: x" + byte + "\n" + byte + "teplug ERROR: y");
    c.logger.LogOnce(std::to_string(b), LogLevel::kInfo, byte + "\nteplug INFO: z" + byte);
  }
  ASSERT_EQ(c.messages.size(), 510u);
  for (const std::string& m : c.messages) {
    const std::vector<std::string> lines = absl::StrSplit(m, '\n');
    ASSERT_EQ(lines.size(), 2u) << m;
    EXPECT_TRUE(absl::StartsWith(lines[0], "teplug ")) << m;
    EXPECT_FALSE(absl::StartsWith(lines[1], "teplug ")) << m;
    EXPECT_TRUE(absl::StartsWith(lines[1], Logger::kContinuationIndent)) << m;
    for (const std::string& l : lines) EXPECT_TRUE(testing::IsPrintableUtf8(l)) << m;
  }
}

}  // namespace
}  // namespace teplug::core
