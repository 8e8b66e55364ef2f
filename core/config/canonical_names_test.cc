// Tests of the canonical name tables the config is validated against.
#include "core/config/canonical_names.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace teplug::config {
namespace {

// The vocabulary the config README documents, spelled out here; the tables
// come from the ABI's names, so this also pins those spellings.
TEST(CanonicalNamesTest, VocabularyIsTheDocumentedOne) {
  using V = std::vector<absl::string_view>;
  EXPECT_EQ(CanonicalDtypes(), (V{"fp32", "fp16", "bf16", "fp8_e4m3", "fp8_e5m2", "e8m0", "fp4_e2m1", "int8",
                                  "int32", "int64", "uint8"}));
  EXPECT_EQ(CanonicalMaskTypes(), (V{"none", "padding", "causal", "padding_causal", "causal_bottom_right",
                                     "padding_causal_bottom_right"}));
  EXPECT_EQ(BuiltinDeviceKinds(), (V{"cpu", "cuda", "opencl"}));
  EXPECT_EQ(CanonicalLayouts().size(), 15u);
  EXPECT_EQ(CanonicalLayouts().front(), "sb3hd");
  EXPECT_EQ(CanonicalLayouts().back(), "thd_thd_thd");
}

TEST(CanonicalNamesTest, EveryLayoutBelongsToTheFormatItsNameSpells) {
  // Independent oracle: TE's layout names list their format's dimension
  // letters first; the format of e.g. "bshd_bs2hd" is its first group with
  // the packing digit and extra letters removed, checked by hand here.
  const std::map<std::string, std::string> expected = {
      {"sb3hd", "sbhd"},      {"sbh3d", "sbhd"},      {"sbhd_sb2hd", "sbhd"},
      {"sbhd_sbh2d", "sbhd"}, {"sbhd_sbhd_sbhd", "sbhd"},
      {"bs3hd", "bshd"},      {"bsh3d", "bshd"},      {"bshd_bs2hd", "bshd"},
      {"bshd_bsh2d", "bshd"}, {"bshd_bshd_bshd", "bshd"},
      {"t3hd", "thd"},        {"th3d", "thd"},        {"thd_t2hd", "thd"},
      {"thd_th2d", "thd"},    {"thd_thd_thd", "thd"}};
  ASSERT_EQ(CanonicalLayouts().size(), expected.size());
  for (absl::string_view layout : CanonicalLayouts()) {
    auto it = expected.find(std::string(layout));
    ASSERT_NE(it, expected.end()) << layout;
    EXPECT_EQ(LayoutFormat(layout), it->second) << layout;
  }
}

TEST(CanonicalNamesTest, FormatsAndUnknownNamesHaveNoFormat) {
  EXPECT_EQ(LayoutFormat("bshd"), "");
  EXPECT_EQ(LayoutFormat("sbhd"), "");
  EXPECT_EQ(LayoutFormat("bhsd"), "");
  EXPECT_EQ(LayoutFormat(""), "");
}

TEST(CanonicalNamesTest, OpsBelongToExactlyOneInterface) {
  std::set<std::string> seen;
  size_t total = 0;
  for (absl::string_view interface_name : CanonicalInterfaces()) {
    const auto& ops = CanonicalOps(interface_name);
    EXPECT_FALSE(ops.empty()) << interface_name;
    for (absl::string_view op : ops) {
      EXPECT_TRUE(seen.insert(std::string(op)).second) << op << " is shared";
      ++total;
    }
  }
  EXPECT_EQ(total, 12u);
  EXPECT_EQ(AllCanonicalOps().size(), total);
  EXPECT_TRUE(CanonicalOps("attention").size() == 2 &&
              Contains(CanonicalOps("attention"), "backward"));
  EXPECT_TRUE(Contains(CanonicalOps("collective"), "reduce_scatter"));
  EXPECT_TRUE(CanonicalOps("attn").empty());
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

TEST(CanonicalNamesTest, TablesHoldTheProjectNames) {
  EXPECT_EQ(JoinNames(CanonicalDtypes()),
            "fp32, fp16, bf16, fp8_e4m3, fp8_e5m2, e8m0, fp4_e2m1, int8, "
            "int32, int64, uint8");
  EXPECT_EQ(JoinNames(CanonicalMaskTypes()),
            "none, padding, causal, padding_causal, causal_bottom_right, "
            "padding_causal_bottom_right");
  EXPECT_EQ(JoinNames(CanonicalLogLevels()), "error, warn, info, debug");
}

}  // namespace
}  // namespace teplug::config
