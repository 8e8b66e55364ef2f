// Tests of ConfigSnapshot: rule matching field by field, verdict helpers,
// priority precedence, strictness, locations, and immutability. A property
// test checks Evaluate against an independent matcher on random ops.
#include "core/config/config_snapshot.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "core/config/config_loader.h"
#include "core/config/random_op_facts.h"
#include "core/config/testdata_path.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace teplug::config {
namespace {

using ::testing::ElementsAre;

std::shared_ptr<const ConfigSnapshot> SnapshotOf(const std::string& text,
                                                  uint64_t generation = 1) {
  auto loaded = ParseConfigText(text, "teplug.textproto");
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  if (!loaded.ok()) return nullptr;
  return ConfigSnapshot::Create(*std::move(loaded), generation);
}

std::vector<std::string> MatchedNames(const ConfigSnapshot& snapshot,
                                      const OpFacts& facts) {
  std::vector<std::string> names;
  for (const CompiledRule* rule : snapshot.Evaluate(facts).matched()) {
    names.push_back(rule->name);
  }
  return names;
}

// A fully described attention forward op; tests change one field at a time.
OpFacts AttentionOp() {
  OpFacts facts;
  facts.interface_name = "attention";
  facts.op = "forward";
  facts.device_kind = "cuda";
  facts.vendor = "NVIDIA";
  facts.dtype = "bf16";
  facts.layout = "bshd_bshd_bshd";
  facts.mask_type = "causal";
  facts.head_dim = 128;
  facts.seq_len = 4096;
  return facts;
}

TEST(ConfigSnapshotTest, EmptyMatchAppliesToEveryOp) {
  auto snapshot = SnapshotOf("rules { name: \"all\" deny: \"x\" }\n"
                             "rules { name: \"all2\" match {} deny: \"y\" }");
  OpFacts gemm;
  gemm.interface_name = "gemm";
  gemm.op = "gemm";
  EXPECT_THAT(MatchedNames(*snapshot, gemm), ElementsAre("all", "all2"));
  EXPECT_THAT(MatchedNames(*snapshot, OpFacts{}), ElementsAre("all", "all2"));
}

TEST(ConfigSnapshotTest, EachStringFieldRestrictsTheMatch) {
  struct Case {
    const char* match;
    void (*change)(OpFacts&);  // Makes AttentionOp() stop matching.
  };
  const Case cases[] = {
      {"interfaces: \"attention\"", [](OpFacts& f) { f.interface_name = "gemm"; }},
      {"ops: \"forward\"", [](OpFacts& f) { f.op = "backward"; }},
      {"device_kinds: \"cuda\"", [](OpFacts& f) { f.device_kind = "opencl"; }},
      {"vendors: \"nvidia\"", [](OpFacts& f) { f.vendor = "AMD"; }},
      {"dtypes: [\"fp16\", \"bf16\"]", [](OpFacts& f) { f.dtype = "fp32"; }},
      {"layouts: \"bshd_bshd_bshd\"", [](OpFacts& f) { f.layout = "bshd_bs2hd"; }},
      {"mask_types: \"causal\"", [](OpFacts& f) { f.mask_type = "padding_causal"; }},
      {"dtypes: \"bf16\"", [](OpFacts& f) { f.dtype = ""; }},  // n/a never matches
      {"mask_types: \"causal\"", [](OpFacts& f) { f.mask_type = ""; }},
  };
  for (const Case& c : cases) {
    auto snapshot = SnapshotOf(std::string("rules { name: \"r\" deny: \"x\" match { ") +
                               c.match + " } }");
    OpFacts facts = AttentionOp();
    EXPECT_THAT(MatchedNames(*snapshot, facts), ElementsAre("r")) << c.match;
    c.change(facts);
    EXPECT_THAT(MatchedNames(*snapshot, facts), ElementsAre()) << c.match;
  }
}

TEST(ConfigSnapshotTest, VendorsMatchIgnoringCase) {
  auto snapshot =
      SnapshotOf("rules { name: \"r\" deny: \"x\" match { vendors: \"NVidia\" } }");
  OpFacts facts = AttentionOp();
  for (const char* vendor : {"NVIDIA", "nvidia", "NVidia"}) {
    facts.vendor = vendor;
    EXPECT_THAT(MatchedNames(*snapshot, facts), ElementsAre("r")) << vendor;
  }
  facts.vendor = "NVIDIA2";
  EXPECT_THAT(MatchedNames(*snapshot, facts), ElementsAre());
}

TEST(ConfigSnapshotTest, AFormatMatchesExactlyItsFiveLayouts) {
  for (absl::string_view format : CanonicalLayoutFormats()) {
    auto snapshot = SnapshotOf(std::string("rules { name: \"r\" deny: \"x\" match { "
                                           "layouts: \"") +
                               std::string(format) + "\" } }");
    int matched = 0;
    for (absl::string_view layout : CanonicalLayouts()) {
      OpFacts facts = AttentionOp();
      facts.layout = layout;
      const bool matches = !snapshot->Evaluate(facts).matched().empty();
      // Oracle: the format spelled by the layout's first letters.
      const bool expected = (format == "thd" && absl::StartsWith(layout, "t")) ||
                            (format == "bshd" && absl::StartsWith(layout, "bs")) ||
                            (format == "sbhd" && absl::StartsWith(layout, "sb"));
      EXPECT_EQ(matches, expected) << format << " vs " << layout;
      matched += matches;
    }
    EXPECT_EQ(matched, 5) << format;
    // The format name itself is not an op's layout and matches nothing else.
    OpFacts facts = AttentionOp();
    facts.layout = "";
    EXPECT_TRUE(snapshot->Evaluate(facts).matched().empty());
  }
}

TEST(ConfigSnapshotTest, RangesAreInclusiveAndNeedAKnownValue) {
  auto snapshot = SnapshotOf(
      "rules { name: \"hd\" deny: \"x\" match { head_dim { min: 64 max: 128 } } }\n"
      "rules { name: \"sl\" deny: \"x\" match { seq_len { min: 4096 } } }\n"
      "rules { name: \"small\" deny: \"x\" match { seq_len { max: 0 } } }");
  struct Case {
    int head_dim;
    int seq_len;
    std::vector<std::string> expected;
  };
  const Case cases[] = {
      {64, 4096, {"hd", "sl"}},  {128, 1 << 30, {"hd", "sl"}},
      {63, 4095, {}},            {129, 4096, {"sl"}},
      {-1, -1, {}},              {100, 0, {"hd", "small"}},
  };
  for (const Case& c : cases) {
    OpFacts facts = AttentionOp();
    facts.head_dim = c.head_dim;
    facts.seq_len = c.seq_len;
    EXPECT_EQ(MatchedNames(*snapshot, facts), c.expected)
        << "head_dim=" << c.head_dim << " seq_len=" << c.seq_len;
  }
}

TEST(ConfigSnapshotTest, VerdictHelpersNameTheResponsibleRule) {
  auto snapshot = SnapshotOf(
      "rules { name: \"other-interface\" match { interfaces: \"gemm\" } deny: \"a\" }\n"
      "rules {\n"
      "  name: \"no-fp8-attention\"\n"
      "  match { interfaces: \"attention\" dtypes: \"fp8_e4m3\" }\n"
      "  deny: [\"acme\", \"slow\"]\n"
      "}\n"
      "rules { name: \"only\" allow: [\"cuda\", \"acme\"] }\n"
      "rules { name: \"pref1\" prefer: [\"reference\", \"cuda\"] }\n"
      "rules { name: \"pref2\" prefer: [\"acme\"] deny: \"slow\" }\n");
  OpFacts facts = AttentionOp();
  facts.dtype = "fp8_e4m3";
  const RuleVerdicts verdicts = snapshot->Evaluate(facts);
  std::vector<std::string> names;
  for (const CompiledRule* rule : verdicts.matched()) names.push_back(rule->name);
  EXPECT_THAT(names, ElementsAre("no-fp8-attention", "only", "pref1", "pref2"));

  const CompiledRule* denied = verdicts.DeniedBy("acme");
  ASSERT_NE(denied, nullptr);
  EXPECT_EQ(denied->Describe(),
            "config rule \"no-fp8-attention\" (teplug.textproto:2)");
  EXPECT_EQ(denied->Location(), "teplug.textproto:2");
  EXPECT_EQ(verdicts.DeniedBy("slow")->name, "no-fp8-attention");  // First wins.
  EXPECT_EQ(verdicts.DeniedBy("cuda"), nullptr);
  EXPECT_EQ(verdicts.DeniedBy("a"), nullptr);  // Its rule did not match.

  EXPECT_EQ(verdicts.NotAllowedBy("cuda"), nullptr);
  ASSERT_NE(verdicts.NotAllowedBy("reference"), nullptr);
  EXPECT_EQ(verdicts.NotAllowedBy("reference")->Describe(),
            "config rule \"only\" (teplug.textproto:7)");

  // Only the first rule with a prefer list ranks.
  EXPECT_EQ(verdicts.PreferenceRank("reference"), 0);
  EXPECT_EQ(verdicts.PreferenceRank("cuda"), 1);
  EXPECT_EQ(verdicts.PreferenceRank("acme"), std::nullopt);
}

TEST(ConfigSnapshotTest, StrictnessRuleBeatsInterfaceBeatsGlobal) {
  auto lenient_global = SnapshotOf(
      "strict_interfaces: \"gemm\"\n"
      "rules { name: \"loose-gemm-fp32\" match { dtypes: \"fp32\" interfaces: \"gemm\" } "
      "strict: false }\n"
      "rules { name: \"strict-attn-bwd\" match { ops: \"backward\" } strict: true }\n");
  OpFacts gemm;
  gemm.interface_name = "gemm";
  gemm.op = "gemm";
  gemm.dtype = "bf16";
  EXPECT_TRUE(lenient_global->IsStrict(gemm));  // Interface list.
  gemm.dtype = "fp32";
  EXPECT_FALSE(lenient_global->IsStrict(gemm));  // Rule overrides interface.
  OpFacts attention = AttentionOp();
  EXPECT_FALSE(lenient_global->IsStrict(attention));  // Global default.
  attention.op = "backward";
  EXPECT_TRUE(lenient_global->IsStrict(attention));  // Rule.

  auto strict_global = SnapshotOf(
      "strict: true\n"
      "rules { name: \"relax\" match { interfaces: \"collective\" } strict: false }");
  EXPECT_TRUE(strict_global->IsStrict(AttentionOp()));
  OpFacts all_reduce;
  all_reduce.interface_name = "collective";
  all_reduce.op = "all_reduce";
  EXPECT_FALSE(strict_global->IsStrict(all_reduce));
  EXPECT_FALSE(strict_global->IsStrict(strict_global->Evaluate(all_reduce),
                                       "collective"));
}

TEST(ConfigSnapshotTest, PerInterfacePriorityBeatsPerProvider) {
  auto snapshot = SnapshotOf(
      "priorities { provider: \"acme\" interface: \"gemm\" priority: 90 }\n"
      "priorities { provider: \"acme\" priority: 10 }\n"
      "priorities { provider: \"ref\" interface: \"attention\" priority: -5 }\n");
  EXPECT_EQ(snapshot->PriorityOverride("acme", "gemm"), 90);
  EXPECT_EQ(snapshot->PriorityOverride("acme", "attention"), 10);
  EXPECT_EQ(snapshot->PriorityOverride("acme", ""), 10);
  EXPECT_EQ(snapshot->PriorityOverride("ref", "attention"), -5);
  EXPECT_EQ(snapshot->PriorityOverride("ref", "gemm"), std::nullopt);
  EXPECT_EQ(snapshot->PriorityOverride("cuda", "gemm"), std::nullopt);
}

TEST(ConfigSnapshotTest, ProvidersAreEnabledUnlessDisabled) {
  auto snapshot = SnapshotOf("providers { name: \"acme\" enabled: false }\n"
                             "providers { name: \"cuda\" enabled: true }\n");
  EXPECT_FALSE(snapshot->ProviderEnabled("acme"));
  EXPECT_TRUE(snapshot->ProviderEnabled("cuda"));
  EXPECT_TRUE(snapshot->ProviderEnabled("unlisted"));
}

TEST(ConfigSnapshotTest, LogLevelAndFlags) {
  EXPECT_EQ(SnapshotOf("")->log_level(), LogLevel::kWarn);
  EXPECT_EQ(SnapshotOf("log_level: \"error\"")->log_level(), LogLevel::kError);
  EXPECT_EQ(SnapshotOf("log_level: \"info\"")->log_level(), LogLevel::kInfo);
  EXPECT_EQ(SnapshotOf("log_level: \"debug\"")->log_level(), LogLevel::kDebug);
  EXPECT_FALSE(SnapshotOf("")->allow_insecure_plugin_permissions());
  EXPECT_TRUE(SnapshotOf("allow_insecure_plugin_permissions: true")
                  ->allow_insecure_plugin_permissions());
}

TEST(ConfigSnapshotTest, RulesKnowTheirFileAndLine) {
  auto loaded = LoadConfigFile(testing::ConfigFilePath("testdata/valid.textproto"));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const std::string source = loaded->source_name;
  auto snapshot = ConfigSnapshot::Create(*std::move(loaded), 7);
  EXPECT_EQ(snapshot->generation(), 7u);
  EXPECT_EQ(snapshot->source_name(), source);
  ASSERT_EQ(snapshot->rules().size(), 3u);
  EXPECT_EQ(snapshot->rules()[0].Location(), source + ":15");
  EXPECT_EQ(snapshot->rules()[1].Location(), source + ":23");
  EXPECT_EQ(snapshot->rules()[2].Location(), source + ":38");
}

TEST(ConfigSnapshotTest, ANewSnapshotDoesNotChangeAnOldOne) {
  std::shared_ptr<const ConfigSnapshot> old_snapshot =
      SnapshotOf("rules { name: \"old\" deny: \"acme\" }\nlog_level: \"error\"", 1);
  const RuleVerdicts old_verdicts = old_snapshot->Evaluate(AttentionOp());
  std::shared_ptr<const ConfigSnapshot> new_snapshot =
      SnapshotOf("rules { name: \"new\" allow: \"cuda\" }\nlog_level: \"debug\"", 2);
  EXPECT_EQ(old_snapshot->generation(), 1u);
  EXPECT_EQ(old_snapshot->log_level(), LogLevel::kError);
  EXPECT_THAT(MatchedNames(*old_snapshot, AttentionOp()), ElementsAre("old"));
  ASSERT_NE(old_verdicts.DeniedBy("acme"), nullptr);
  EXPECT_EQ(old_verdicts.DeniedBy("acme")->name, "old");
  EXPECT_THAT(MatchedNames(*new_snapshot, AttentionOp()), ElementsAre("new"));
  EXPECT_EQ(new_snapshot->generation(), 2u);
}

// Independent matcher written directly against the proto, for the property
// test below (no compiled rules, no format expansion tables).
bool OracleMatches(const Rule& rule, const OpFacts& facts) {
  const Match& m = rule.match();
  auto listed = [](const auto& list, absl::string_view value) {
    if (list.empty()) return true;
    for (const std::string& entry : list) {
      if (entry == value) return true;
    }
    return false;
  };
  auto in_range = [](bool present, const Range& range, int value) {
    if (!present) return true;
    if (value < 0) return false;
    return (!range.has_min() || value >= range.min()) &&
           (!range.has_max() || value <= range.max());
  };
  bool layout_ok = m.layouts().empty();
  for (const std::string& entry : m.layouts()) {
    const std::string layout(facts.layout);
    const bool is_format = entry == "bshd" || entry == "sbhd" || entry == "thd";
    if (!is_format && entry == layout) layout_ok = true;
    if (is_format && !layout.empty() &&
        layout.substr(0, entry.size() == 3 ? 1 : 2) == entry.substr(0, entry.size() == 3 ? 1 : 2)) {
      layout_ok = true;
    }
  }
  bool vendor_ok = m.vendors().empty();
  for (const std::string& entry : m.vendors()) {
    if (absl::AsciiStrToLower(entry) == absl::AsciiStrToLower(facts.vendor)) {
      vendor_ok = true;
    }
  }
  return listed(m.interfaces(), facts.interface_name) && listed(m.ops(), facts.op) &&
         listed(m.device_kinds(), facts.device_kind) && vendor_ok &&
         listed(m.dtypes(), facts.dtype) && layout_ok &&
         listed(m.mask_types(), facts.mask_type) &&
         in_range(m.has_head_dim(), m.head_dim(), facts.head_dim) &&
         in_range(m.has_seq_len(), m.seq_len(), facts.seq_len);
}

TEST(ConfigSnapshotTest, EvaluateAgreesWithAnIndependentMatcherOnRandomOps) {
  auto loaded = ParseConfigText(
      "rules { name: \"a\" deny: \"x\" match { interfaces: \"attention\" layouts: "
      "[\"thd\", \"bs3hd\"] head_dim { min: 64 max: 128 } } }\n"
      "rules { name: \"b\" deny: \"x\" match { dtypes: [\"fp8_e4m3\", \"fp8_e5m2\", "
      "\"bf16\"] device_kinds: [\"cuda\", \"acme_npu\"] } }\n"
      "rules { name: \"c\" deny: \"x\" match { mask_types: [\"causal\", "
      "\"padding_causal_bottom_right\"] seq_len { min: 4096 } vendors: \"nvidia\" } }\n"
      "rules { name: \"d\" deny: \"x\" match { ops: [\"all_reduce\", \"gemm\", "
      "\"backward\"] layouts: \"sbhd\" } }\n"
      "rules { name: \"e\" deny: \"x\" match { seq_len { max: 4095 } interfaces: "
      "[\"gemm\", \"quantizer\"] } }\n",
      "prop");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const Config proto = loaded->proto;
  auto snapshot = ConfigSnapshot::Create(*std::move(loaded), 1);
  testing::RandomOpFacts random(7);
  std::vector<int> matches_per_rule(proto.rules_size(), 0);
  for (int i = 0; i < 20000; ++i) {
    const OpFacts facts = random.Next();
    std::vector<std::string> expected;
    for (int r = 0; r < proto.rules_size(); ++r) {
      if (OracleMatches(proto.rules(r), facts)) {
        expected.push_back(proto.rules(r).name());
        ++matches_per_rule[r];
      }
    }
    ASSERT_EQ(MatchedNames(*snapshot, facts), expected) << "op #" << i;
  }
  // Every rule must both match and miss often enough to be exercised.
  for (int r = 0; r < proto.rules_size(); ++r) {
    EXPECT_GT(matches_per_rule[r], 100) << proto.rules(r).name();
    EXPECT_LT(matches_per_rule[r], 19000) << proto.rules(r).name();
  }
}

}  // namespace
}  // namespace teplug::config
