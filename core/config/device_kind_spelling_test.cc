// IsValidDeviceKindSpelling accepts exactly [a-z0-9_]+: every character at
// the ends of each accepted range is accepted, and its neighbours just
// outside the range (in ASCII) are refused.
#include <string>

#include "core/config/canonical_names.h"
#include "gtest/gtest.h"

namespace teplug::config {
namespace {

TEST(DeviceKindSpellingTest, EveryAcceptedCharacterAndNoNeighbour) {
  for (int c = 0; c < 256; ++c) {
    const bool expected = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    const std::string kind = std::string("npu") + static_cast<char>(c);
    EXPECT_EQ(IsValidDeviceKindSpelling(kind), expected) << "character " << c;
  }
}

TEST(DeviceKindSpellingTest, RangeEndsAndTheirNeighbours) {
  for (const char* ok : {"a", "z", "0", "9", "_", "zz9", "a0_z"}) {
    EXPECT_TRUE(IsValidDeviceKindSpelling(ok)) << ok;
  }
  for (const char* bad : {"`", "{", "/", ":", "^", "A", "Z", "npu{", "npu`"}) {
    EXPECT_FALSE(IsValidDeviceKindSpelling(bad)) << bad;
  }
}

}  // namespace
}  // namespace teplug::config
