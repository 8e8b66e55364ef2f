// ReadDeclaredNames on hand-built TeplugPluginInfo: what an older
// struct_size hides, what is kept, and each refusal with the entry it names.
#include "core/loader/declared_names.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::core {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

TeplugPluginInfo Info(const TeplugNamedId* kinds, uint32_t nk, const TeplugNamedId* vendors,
                      uint32_t nv) {
  TeplugPluginInfo info = sdk::Versioned<TeplugPluginInfo>();
  info.device_kind_names = kinds;
  info.device_kind_name_count = nk;
  info.vendor_names = vendors;
  info.vendor_name_count = nv;
  return info;
}

std::string Refusal(const TeplugPluginInfo& info) {
  DeclaredNames names;
  absl::Status s = ReadDeclaredNames(info, &names);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  return std::string(s.message());
}

TEST(DeclaredNamesTest, KeepsValidNamesAndAnEntryListedTwiceOnce) {
  const TeplugNamedId kinds[] = {{1100, "gaudi"}, {1101, "gaudi2"}, {1100, "gaudi"}};
  const TeplugNamedId vendors[] = {{0x1da3, "habana"}};
  DeclaredNames names;
  ASSERT_TRUE(ReadDeclaredNames(Info(kinds, 3, vendors, 1), &names).ok());
  EXPECT_THAT(names.device_kinds, ElementsAre(Pair(1100, "gaudi"), Pair(1101, "gaudi2")));
  EXPECT_THAT(names.vendors, ElementsAre(Pair(0x1da3u, "habana")));
}

TEST(DeclaredNamesTest, AnOlderHostsStructSizeHidesTheFields) {
  const TeplugNamedId kinds[] = {{1, "cpu"}};  // would be refused if read
  TeplugPluginInfo info = Info(kinds, 1, nullptr, 0);
  info.struct_size = TEPLUG_STRUCT_SIZE(TeplugPluginInfo, abi_max);
  DeclaredNames names;
  EXPECT_TRUE(ReadDeclaredNames(info, &names).ok());
  EXPECT_TRUE(names.device_kinds.empty());
}

TEST(DeclaredNamesTest, EachRuleNamesTheEntry) {
  const TeplugNamedId low[] = {{3, "npu"}};
  EXPECT_EQ(
      Refusal(Info(low, 1, nullptr, 0)),
      "TeplugPluginInfo.device_kind_names[0] {3, \"npu\"}: a vendor-defined device kind must be "
      "1024 to 2147483647");
  const TeplugNamedId nvidia[] = {{0x10de, "green"}};
  EXPECT_EQ(
      Refusal(Info(nullptr, 0, nvidia, 1)),
      "TeplugPluginInfo.vendor_names[0] {0x10de, \"green\"}: the id already has a built-in name");
  const TeplugNamedId intel[] = {{0x1da3, "intel"}};
  EXPECT_EQ(
      Refusal(Info(nullptr, 0, intel, 1)),
      "TeplugPluginInfo.vendor_names[0] {0x1da3, \"intel\"}: \"intel\" is a built-in vendor name");
  const TeplugNamedId spelled_as_number[] = {{1100, "vendor1100"}};
  EXPECT_THAT(Refusal(Info(spelled_as_number, 1, nullptr, 0)),
              ::testing::HasSubstr("must match [a-z][a-z0-9_]{0,30} and not be vendor<digits>"));
  const TeplugNamedId long_name[] = {{1100, "a_name_that_is_longer_than_31_bytes"}};
  EXPECT_THAT(Refusal(Info(long_name, 1, nullptr, 0)),
              ::testing::StartsWith("TeplugPluginInfo.device_kind_names[0] {1100, "
                                    "\"a_name_that_is_longer_than_31_by...\"}"));
  const TeplugNamedId renamed[] = {{1100, "gaudi"}, {1100, "hpu"}};
  EXPECT_EQ(
      Refusal(Info(renamed, 2, nullptr, 0)),
      "TeplugPluginInfo.device_kind_names[1] {1100, \"hpu\"}: id 1100 is already named \"gaudi\" "
      "by this provider");
  const TeplugNamedId null_name[] = {{1100, nullptr}};
  EXPECT_EQ(Refusal(Info(null_name, 1, nullptr, 0)),
            "TeplugPluginInfo.device_kind_names[0] {1100, NULL}: the name is NULL");
  EXPECT_EQ(Refusal(Info(low, 33, nullptr, 0)),
            "TeplugPluginInfo.device_kind_names: 33 entries, at most 32");
}

}  // namespace
}  // namespace teplug::core
