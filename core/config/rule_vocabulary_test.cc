// Tests of the rule vocabulary: the names it holds are the ABI's spellings,
// and its shape is what the config code relies on (ops and facts unique per
// interface, every interface's facts fit in OpFacts, undecided ops are ops).
#include "core/config/rule_vocabulary.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/config/vocabulary_lookup.h"
#include "gtest/gtest.h"

namespace teplug::config {
namespace {

using Names = std::vector<std::string>;

const FactSpec& Fact(absl::string_view interface_name, absl::string_view fact) {
  const InterfaceVocabulary* entry = FindInterface(RuleVocabulary(), interface_name);
  EXPECT_NE(entry, nullptr) << interface_name;
  const FactSpec* spec = FindFact(*entry, fact);
  EXPECT_NE(spec, nullptr) << interface_name << "." << fact;
  static const FactSpec* const kNone = new FactSpec;
  return spec != nullptr ? *spec : *kNone;
}

TEST(RuleVocabularyTest, InterfacesAndOpsAreTheDocumentedOnes) {
  std::vector<absl::string_view> interfaces = InterfaceNames(RuleVocabulary());
  EXPECT_EQ(interfaces, (std::vector<absl::string_view>{"attention", "gemm", "quantizer", "collective", "norm", "device"}));
  EXPECT_EQ(FindInterface(RuleVocabulary(), "attention")->ops, (Names{"forward", "backward"}));
  EXPECT_EQ(FindInterface(RuleVocabulary(), "gemm")->ops, (Names{"gemm"}));
  EXPECT_EQ(FindInterface(RuleVocabulary(), "quantizer")->ops, (Names{"quantize", "dequantize"}));
  EXPECT_EQ(FindInterface(RuleVocabulary(), "collective")->display_name, "ICollective/1");
  EXPECT_EQ(FindInterface(RuleVocabulary(), "norm")->ops, (Names{"forward", "backward"}));
  EXPECT_EQ(FindInterface(RuleVocabulary(), "device")->ops, (Names{"open"}));
  EXPECT_EQ(FindInterface(RuleVocabulary(), "attn"), nullptr);
}

TEST(RuleVocabularyTest, ValuesAreTheAbiSpellings) {
  const Names dtypes{"fp32", "fp16", "bf16", "fp8_e4m3", "fp8_e5m2", "e8m0", "fp4_e2m1", "int8",
                     "int32", "int64", "uint8"};
  for (const char* fact : {"dtype", "a_dtype", "b_dtype", "c_dtype", "d_dtype"}) {
    EXPECT_EQ(Fact("gemm", fact).values, dtypes) << fact;
  }
  EXPECT_EQ(Fact("attention", "dtype").values, dtypes);
  EXPECT_EQ(Fact("attention", "mask_type").values,
            (Names{"none", "padding", "causal", "padding_causal", "causal_bottom_right",
                   "padding_causal_bottom_right"}));
  EXPECT_EQ(Fact("quantizer", "scaling_mode").values,
            (Names{"none", "per_tensor", "mxfp8_1d32", "block_1d128", "block_2d128"}));
  for (const char* fact : {"m", "n", "k"}) EXPECT_EQ(Fact("gemm", fact).kind, FactKind::kInteger);
  EXPECT_EQ(Fact("collective", "world_size").kind, FactKind::kInteger);
}

TEST(RuleVocabularyTest, EachLayoutFormatGroupsTheLayoutsItsNameSpells) {
  // Independent oracle: TE's layout names list their format's dimension
  // letters first, checked by hand here.
  const std::map<std::string, std::string> expected = {
      {"sb3hd", "sbhd"},      {"sbh3d", "sbhd"},      {"sbhd_sb2hd", "sbhd"},
      {"sbhd_sbh2d", "sbhd"}, {"sbhd_sbhd_sbhd", "sbhd"},
      {"bs3hd", "bshd"},      {"bsh3d", "bshd"},      {"bshd_bs2hd", "bshd"},
      {"bshd_bsh2d", "bshd"}, {"bshd_bshd_bshd", "bshd"},
      {"t3hd", "thd"},        {"th3d", "thd"},        {"thd_t2hd", "thd"},
      {"thd_th2d", "thd"},    {"thd_thd_thd", "thd"}};
  const FactSpec& layout = Fact("attention", "layout");
  ASSERT_EQ(layout.values.size(), expected.size());
  std::map<std::string, std::string> grouped;
  for (const auto& [format, members] : layout.groups) {
    EXPECT_EQ(members.size(), 5u) << format;
    for (const std::string& member : members) grouped[member] = format;
  }
  EXPECT_EQ(grouped, expected);
  EXPECT_EQ(ExpandFactValue(RuleVocabulary(), "layout", "thd"),
            (Names{"t3hd", "th3d", "thd_t2hd", "thd_th2d", "thd_thd_thd"}));
  EXPECT_EQ(ExpandFactValue(RuleVocabulary(), "layout", "bs3hd"), (Names{"bs3hd"}));
}

TEST(RuleVocabularyTest, ShapeIsWhatTheConfigCodeReliesOn) {
  for (const InterfaceVocabulary& entry : RuleVocabulary()) {
    EXPECT_FALSE(entry.ops.empty()) << entry.name;
    EXPECT_LE(static_cast<int>(entry.facts.size()), OpFacts::kMaxFacts) << entry.name;
    std::set<std::string> ops(entry.ops.begin(), entry.ops.end());
    EXPECT_EQ(ops.size(), entry.ops.size()) << entry.name << ": an op listed twice";
    std::set<std::string> facts;
    for (const FactSpec& fact : entry.facts) {
      EXPECT_TRUE(facts.insert(fact.name).second) << entry.name << "." << fact.name;
      EXPECT_FALSE(fact.doc.empty()) << entry.name << "." << fact.name;
      if (fact.kind == FactKind::kInteger) {
        EXPECT_TRUE(fact.values.empty() && fact.groups.empty()) << fact.name;
      }
    }
    for (const auto& [op, note] : entry.undecided_ops) {
      EXPECT_TRUE(HasOp(entry, op)) << entry.name << ": undecided op " << op << " is not an op";
      EXPECT_FALSE(note.empty()) << op;
    }
  }
  const InterfaceVocabulary& collective = *FindInterface(RuleVocabulary(), "collective");
  for (const char* op : {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "send", "recv", "barrier"}) {
    ASSERT_NE(UndecidedOpNote(collective, op), nullptr) << op;
    EXPECT_NE(UndecidedOpNote(collective, op)->find("comm_create"), std::string::npos) << op;
  }
  EXPECT_EQ(UndecidedOpNote(collective, "comm_create"), nullptr);
}

TEST(OpFactsTest, FindsFactsByNameAndTellsUnknownFromAbsent) {
  OpFacts facts;
  facts.AddName("dtype", "bf16");
  facts.AddName("layout", "");
  facts.AddInteger("m", 4096);
  facts.AddInteger("n", -1);
  ASSERT_NE(facts.Find("dtype"), nullptr);
  EXPECT_EQ(facts.Find("dtype")->text, "bf16");
  EXPECT_TRUE(facts.Find("dtype")->known);
  EXPECT_FALSE(facts.Find("layout")->known);
  EXPECT_EQ(facts.Find("m")->number, 4096);
  EXPECT_TRUE(facts.Find("m")->known);
  EXPECT_FALSE(facts.Find("n")->known);
  EXPECT_EQ(facts.Find("k"), nullptr);
  for (int i = 0; i < OpFacts::kMaxFacts + 3; ++i) facts.AddInteger("x", i);
  EXPECT_EQ(facts.num_facts, OpFacts::kMaxFacts);  // the rest are dropped, not written past the end
}

}  // namespace
}  // namespace teplug::config
