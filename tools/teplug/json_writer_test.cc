// JsonWriter output is valid JSON text in valid UTF-8 whatever bytes a
// string holds (checked with an independent UTF-8 decoder).
#include "tools/teplug/json_writer.h"

#include <random>
#include <string>

#include "core/log/printable_text_oracle.h"
#include "gtest/gtest.h"

namespace teplug::cli {
namespace {

TEST(JsonWriterQuote, InvalidUtf8BytesBecomeBackslashXText) {
  EXPECT_EQ(JsonWriter::Quote("acme\xff"), "\"acme\\\\xff\"");
  EXPECT_EQ(JsonWriter::Quote("\xe2\x82"), "\"\\\\xe2\\\\x82\"");        // truncated
  EXPECT_EQ(JsonWriter::Quote("\xc0\xaf/"), "\"\\\\xc0\\\\xaf/\"");      // overlong
  EXPECT_EQ(JsonWriter::Quote("\xed\xa0\x80"), "\"\\\\xed\\\\xa0\\\\x80\"");  // surrogate
  EXPECT_EQ(JsonWriter::Quote("\xc2\x9b"), "\"\\\\xc2\\\\x9b\"");        // C1 control (CSI)
}

TEST(JsonWriterQuote, KeepsUtf8AndEscapesAsciiTheJsonWay) {
  EXPECT_EQ(JsonWriter::Quote("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
  EXPECT_EQ(JsonWriter::Quote("a\"b\\c\nd\te\rf\x1b[0m\x7f"),
            "\"a\\\"b\\\\c\\nd\\te\\rf\\u001b[0m\x7f\"");
  // A lead byte followed by ASCII: only the lead byte is replaced.
  EXPECT_EQ(JsonWriter::Quote("\xe2(x"), "\"\\\\xe2(x\"");
}

// Random bytes: the literal is valid UTF-8, has no raw control byte, and
// every backslash starts one of JSON's escapes.
TEST(JsonWriterQuote, RandomBytesGiveAValidJsonStringInValidUtf8) {
  std::mt19937 rng(99);
  for (int round = 0; round < 20000; ++round) {
    std::string s(rng() % 12, '\0');
    for (char& c : s) c = static_cast<char>(rng() & 0xFF);
    const std::string q = JsonWriter::Quote(s);
    ASSERT_TRUE(core::testing::IsValidUtf8(q)) << "round " << round;
    ASSERT_GE(q.size(), 2u);
    ASSERT_EQ(q.front(), '"');
    ASSERT_EQ(q.back(), '"');
    for (size_t i = 1; i + 1 < q.size(); ++i) {
      const unsigned char c = q[i];
      ASSERT_GE(c, 0x20) << "raw control byte, round " << round;
      ASSERT_NE(c, '"') << "unescaped quote, round " << round;
      if (c == '\\') {
        ASSERT_LT(i + 2, q.size()) << "round " << round;
        const char e = q[i + 1];
        ASSERT_TRUE(e == '"' || e == '\\' || e == 'n' || e == 't' || e == 'r' || e == 'u')
            << "round " << round;
        ++i;
      }
    }
  }
}

TEST(JsonWriterTest, ADocumentWithHostileStringsIsValidUtf8) {
  JsonWriter j;
  j.BeginObject();
  j.Key("vendor\xff");
  j.String("acme\n\x1b[31m\xff\xfe");
  j.EndObject();
  EXPECT_TRUE(core::testing::IsValidUtf8(j.str())) << j.str();
  EXPECT_EQ(j.str(), "{\n  \"vendor\\\\xff\": \"acme\\n\\u001b[31m\\\\xff\\\\xfe\"\n}\n");
}

}  // namespace
}  // namespace teplug::cli
