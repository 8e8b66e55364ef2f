#include "core/log/untrusted_text.h"

#include <random>
#include <string>

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

// Independent oracle: decode with a straightforward code-point decoder and
// check the escaped text is valid UTF-8 with no control code points, on
// random byte strings.
bool ValidPrintableUtf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = s[i];
    uint32_t cp = 0;
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
    for (size_t k = 1; k < n; ++k) {
      const unsigned char d = s[i + k];
      if ((d >> 6) != 2) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    const uint32_t min = n == 1 ? 0 : n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) return false;
    i += n;
  }
  return true;
}

TEST(EscapeUntrustedText, RandomBytesAlwaysComeOutPrintableUtf8) {
  std::mt19937 rng(20261201);
  for (int round = 0; round < 20000; ++round) {
    std::string s(rng() % 12, '\0');
    for (char& c : s) c = static_cast<char>(rng() & 0xFF);
    const std::string escaped = EscapeUntrustedText(s);
    ASSERT_TRUE(ValidPrintableUtf8(escaped)) << "input round " << round;
    EXPECT_EQ(IsSafeText(s), escaped == s);
    EXPECT_TRUE(IsSafeText(escaped));
  }
}

}  // namespace
}  // namespace teplug::core
