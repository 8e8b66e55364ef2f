#include "core/log/untrusted_text.h"

#include <algorithm>
#include <random>
#include <string>

#include "core/log/printable_text_oracle.h"
#include "gtest/gtest.h"

namespace teplug::core {
namespace {

TEST(EscapeUntrustedText, KeepsPrintableAsciiAndUtf8Letters) {
  const std::string text = "plugin acme: gemm \"fast\" \xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";
  EXPECT_EQ(EscapeUntrustedText(text), text);
  EXPECT_TRUE(IsSafeText(text));
}

TEST(EscapeUntrustedText, EscapesNewlinesAndControlBytes) {
  EXPECT_EQ(EscapeUntrustedText("a\nteplug WARN: forged"), "a\\x0ateplug WARN: forged");
  EXPECT_EQ(EscapeUntrustedText("\r\t\x1b[31m\x7f"), "\\x0d\\x09\\x1b[31m\\x7f");
  EXPECT_EQ(EscapeUntrustedText(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_FALSE(IsSafeText("x\n"));
}

TEST(EscapeUntrustedText, EscapesC1Controls) {
  // U+0085 (NEL) and U+009B (CSI) are line breaks / escape introducers on
  // some terminals; U+00A0 is the first printable code point after them.
  EXPECT_EQ(EscapeUntrustedText("\xc2\x85\xc2\x9b\xc2\xa0"), "\\xc2\\x85\\xc2\\x9b\xc2\xa0");
}

TEST(EscapeUntrustedText, EscapesEveryByteOfMalformedUtf8) {
  EXPECT_EQ(EscapeUntrustedText("\xff"), "\\xff");
  EXPECT_EQ(EscapeUntrustedText("\xc0\xaf"), "\\xc0\\xaf");          // overlong '/'
  EXPECT_EQ(EscapeUntrustedText("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // surrogate
  EXPECT_EQ(EscapeUntrustedText("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // > U+10FFFF
  EXPECT_EQ(EscapeUntrustedText("\xe2\x82"), "\\xe2\\x82");           // truncated at the end
  EXPECT_EQ(EscapeUntrustedText("\xe2(x"), "\\xe2(x");                // bad continuation
  // Boundaries of each lead byte's range stay accepted.
  EXPECT_TRUE(IsSafeText("\xc2\xa0\xdf\xbf\xe0\xa0\x80\xed\x9f\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf"));
}

// Checked against the independent decoder (printable_text_oracle.h) on
// random byte strings: the escaped text is always printable UTF-8.
TEST(EscapeUntrustedText, RandomBytesAlwaysComeOutPrintableUtf8) {
  std::mt19937 rng(20261201);
  for (int round = 0; round < 20000; ++round) {
    std::string s(rng() % 12, '\0');
    for (char& c : s) c = static_cast<char>(rng() & 0xFF);
    const std::string escaped = EscapeUntrustedText(s);
    ASSERT_TRUE(testing::IsPrintableUtf8(escaped)) << "input round " << round;
    EXPECT_EQ(IsSafeText(s), escaped == s);
    EXPECT_TRUE(IsSafeText(escaped));
  }
}

TEST(EscapeUntrustedLines, EscapesEachLineAndIndentsTheContinuations) {
  EXPECT_EQ(EscapeUntrustedLines("gemm m=1\ncandidate\x1b[2J\n\n  chosen\n", "> "),
            "gemm m=1\n> candidate\\x1b[2J\n\n>   chosen");
  EXPECT_EQ(EscapeUntrustedLines("one line\r\xff", "  "), "one line\\x0d\\xff");
  EXPECT_EQ(EscapeUntrustedLines("", "  "), "");
  EXPECT_EQ(EscapeUntrustedLines("\n\n", "  "), "");
}

// Whatever the bytes, every line after the first starts with the indent and
// every line is printable UTF-8 (checked by the independent decoder).
TEST(EscapeUntrustedLines, RandomBytesNeverStartALineAtColumnZero) {
  std::mt19937 rng(7);
  const char alphabet[] = {'\n', '\r', '\x1b', 't', ' ', '\xff', '\xc2', '\x85', 'a'};
  for (int round = 0; round < 20000; ++round) {
    std::string s(rng() % 16, '\0');
    for (char& c : s) c = alphabet[rng() % sizeof alphabet];
    const std::string escaped = EscapeUntrustedLines(s, "  ");
    size_t start = 0;
    for (size_t line = 0;; ++line) {
      const size_t end = std::min(escaped.find('\n', start), escaped.size());
      const std::string text = escaped.substr(start, end - start);
      ASSERT_TRUE(testing::IsPrintableUtf8(text)) << "round " << round << " line " << line;
      if (line > 0 && !text.empty()) {
        ASSERT_EQ(text.substr(0, 2), "  ") << "round " << round << " line " << line;
      }
      if (end == escaped.size()) break;
      start = end + 1;
    }
  }
}

}  // namespace
}  // namespace teplug::core
