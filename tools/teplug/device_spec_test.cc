#include "tools/teplug/device_spec.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace teplug::cli {
namespace {

using ::testing::HasSubstr;

TEST(ParseDeviceListTest, OneDevicePerRankInRankOrder) {
  const core::DeviceNames names;
  absl::StatusOr<std::vector<TeplugDevice>> d = ParseDeviceList("cpu,opencl:0,cuda:1", 3, names);
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_EQ(d->size(), 3u);
  EXPECT_EQ((*d)[0].kind, TEPLUG_DEVICE_CPU);
  EXPECT_EQ((*d)[0].ordinal, 0);
  EXPECT_EQ((*d)[1].kind, TEPLUG_DEVICE_OPENCL);
  EXPECT_EQ((*d)[1].ordinal, 0);
  EXPECT_EQ((*d)[2].kind, TEPLUG_DEVICE_CUDA);
  EXPECT_EQ((*d)[2].ordinal, 1);
  EXPECT_EQ(DeviceSpelling((*d)[1], names), "opencl:0");
}

TEST(ParseDeviceListTest, ACountOtherThanTheRanksNamesBothNumbers) {
  const core::DeviceNames names;
  absl::StatusOr<std::vector<TeplugDevice>> d = ParseDeviceList("cpu,opencl:0", 3, names);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("names 2 devices but --ranks is 3"));
  d = ParseDeviceList("opencl:0", 2, names);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("names 1 device but --ranks is 2"));
}

TEST(ParseDeviceListTest, ABadEntryIsNamedByPositionAndText) {
  const core::DeviceNames names;
  absl::StatusOr<std::vector<TeplugDevice>> d = ParseDeviceList("cpu,openlc:0", 2, names);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(std::string(d.status().message()),
              HasSubstr("bad value \"openlc:0\" for --devices entry 2 (rank 1)"));
  d = ParseDeviceList("cpu,opencl:x", 2, names);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("the ordinal after ':'"));
  d = ParseDeviceList("cpu,,opencl", 3, names);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("entry 2 (rank 1) is empty"));
}

TEST(ParseDeviceTest, KeepsNamingTheFlagItCameFrom) {
  const core::DeviceNames names;
  absl::StatusOr<TeplugDevice> d = ParseDevice("tpu:0", names);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("bad value \"tpu:0\" for --device:"));
}

}  // namespace
}  // namespace teplug::cli
