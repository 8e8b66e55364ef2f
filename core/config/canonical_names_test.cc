// Tests of the names the config checks outside the rule vocabulary.
#include "core/config/canonical_names.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace teplug::config {
namespace {

TEST(CanonicalNamesTest, BuiltinDeviceKindsAreTheAbiSpellings) {
  using V = std::vector<absl::string_view>;
  EXPECT_EQ(BuiltinDeviceKinds(), (V{"cpu", "cuda", "opencl"}));
}

TEST(CanonicalNamesTest, DeviceKindSpelling) {
  for (absl::string_view kind : BuiltinDeviceKinds()) {
    EXPECT_TRUE(IsValidDeviceKindSpelling(kind)) << kind;
  }
  EXPECT_TRUE(IsValidDeviceKindSpelling("acme_npu2"));
  EXPECT_FALSE(IsValidDeviceKindSpelling(""));
  EXPECT_FALSE(IsValidDeviceKindSpelling("CUDA"));
  EXPECT_FALSE(IsValidDeviceKindSpelling("my-npu"));
}

TEST(CanonicalNamesTest, LogLevelsAndJoin) {
  EXPECT_EQ(JoinNames(CanonicalLogLevels()), "error, warn, info, debug");
}

}  // namespace
}  // namespace teplug::config
