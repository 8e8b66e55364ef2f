// An unknown field name in a text config is reported at the name itself,
// whatever the lines after it contain (a tab on a later line must not switch
// off the correction of the parser's column).
#include <string>

#include "core/config/config_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace teplug::config {
namespace {

using ::testing::StartsWith;

std::string FirstProblem(const std::string& text) {
  auto loaded = ParseConfigText(text, "t");
  EXPECT_FALSE(loaded.ok());
  if (loaded.ok()) return "";
  const std::string message(loaded.status().message());
  return message.substr(0, message.find('\n'));
}

TEST(UnknownFieldPositionTest, PointsAtTheNameOnAnyLine) {
  EXPECT_THAT(FirstProblem("bogus: 1\n"), StartsWith("t:1:1: "));
  EXPECT_THAT(FirstProblem("log_level: \"warn\"\n  bogus: 1\n"), StartsWith("t:2:3: "));
  EXPECT_THAT(FirstProblem("log_level: \"warn\"\n  bogus: 1\n\tstrict: true\n"), StartsWith("t:2:3: "));
}

}  // namespace
}  // namespace teplug::config
