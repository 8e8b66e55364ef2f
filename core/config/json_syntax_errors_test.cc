// JSON configs that end too early or carry a malformed \u escape are refused
// with the reason and its position, not read past their end or accepted.
#include <string>

#include "absl/status/status.h"
#include "core/config/config_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace teplug::config {
namespace {

using ::testing::HasSubstr;

std::string JsonError(const std::string& json) {
  auto loaded = ParseConfigJson(json, "t.json");
  EXPECT_FALSE(loaded.ok()) << json;
  return loaded.ok() ? "" : std::string(loaded.status().message());
}

TEST(JsonSyntaxErrorsTest, AnObjectThatEndsAfterAFieldIsUnterminated) {
  EXPECT_THAT(JsonError("{\"log_level\": \"warn\""), HasSubstr("unterminated object; expected ',' or '}'"));
  EXPECT_THAT(JsonError("{\"log_level\": \"warn\"  \n"), HasSubstr("unterminated object; expected ',' or '}'"));
}

TEST(JsonSyntaxErrorsTest, UnicodeEscapesNeedFourHexDigits) {
  EXPECT_THAT(JsonError("{\"log_level\": \"\\uZZZZ\"}"), HasSubstr("\\u must be followed by 4 hex digits"));
  EXPECT_THAT(JsonError("{\"log_level\": \"\\u12\"}"), HasSubstr("\\u must be followed by 4 hex digits"));
  // Four hex digits are fine as far as the syntax goes.
  auto loaded = ParseConfigJson("{\"log_level\": \"\\u0077arn\"}", "t.json");
  EXPECT_TRUE(loaded.ok()) << loaded.status();
}

}  // namespace
}  // namespace teplug::config
