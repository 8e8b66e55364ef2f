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
#include "core/config/rule_vocabulary.h"
#include "core/config/testdata_path.h"
#include "core/config/vocabulary_lookup.h"
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

// Replaces the fact named `value.name` (which `facts` must have) by `value`.
void Replace(OpFacts& facts, const OpFacts::Value& value) {
  for (int i = 0; i < facts.num_facts; ++i) {
    if (facts.facts[i].name == value.name) {
      facts.facts[i] = value;
      return;
    }
  }
  ADD_FAILURE() << "no fact " << value.name;
}

void SetName(OpFacts& facts, absl::string_view name, absl::string_view text) {
  Replace(facts, OpFacts::Value{name, text, -1, !text.empty()});
}

void SetNumber(OpFacts& facts, absl::string_view name, int64_t number) {
  Replace(facts, OpFacts::Value{name, {}, number, number >= 0});
}

// A fully described attention forward op; tests change one field at a time.
OpFacts AttentionOp() {
  OpFacts facts;
  facts.interface_name = "attention";
  facts.op = "forward";
  facts.device_kind = "cuda";
  facts.vendor = "NVIDIA";
  facts.AddName("dtype", "bf16");
  facts.AddName("layout", "bshd_bshd_bshd");
  facts.AddName("mask_type", "causal");
  facts.AddInteger("head_dim", 128);
  facts.AddInteger("seq_len", 4096);
  return facts;
}

// A fully described GEMM: fp8 A and B, bf16 D, no C, M=2048 N=512 K=4096.
OpFacts GemmOp() {
  OpFacts facts;
  facts.interface_name = "gemm";
  facts.op = "gemm";
  facts.device_kind = "cuda";
  facts.vendor = "NVIDIA";
  facts.AddName("dtype", "fp8_e4m3");
  facts.AddName("a_dtype", "fp8_e4m3");
  facts.AddName("b_dtype", "fp8_e5m2");
  facts.AddName("c_dtype", "");
  facts.AddName("d_dtype", "bf16");
  facts.AddInteger("m", 2048);
  facts.AddInteger("n", 512);
  facts.AddInteger("k", 4096);
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
      {"dtypes: [\"fp16\", \"bf16\"]", [](OpFacts& f) { SetName(f, "dtype", "fp32"); }},
      {"layouts: \"bshd_bshd_bshd\"", [](OpFacts& f) { SetName(f, "layout", "bshd_bs2hd"); }},
      {"mask_types: \"causal\"", [](OpFacts& f) { SetName(f, "mask_type", "padding_causal"); }},
      {"dtypes: \"bf16\"", [](OpFacts& f) { SetName(f, "dtype", ""); }},  // unknown never matches
      {"mask_types: \"causal\"", [](OpFacts& f) { SetName(f, "mask_type", ""); }},
      {"facts { fact: \"mask_type\" values: \"causal\" }",
       [](OpFacts& f) { SetName(f, "mask_type", "none"); }},
      {"facts { fact: \"head_dim\" range { min: 128 } }",
       [](OpFacts& f) { SetNumber(f, "head_dim", 64); }},
      // An op without the fact at all never matches a rule that names it.
      {"dtypes: \"bf16\"", [](OpFacts& f) { f = OpFacts{}; }},
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

TEST(ConfigSnapshotTest, GemmRulesMatchEachOperandDtypeAndMNKRanges) {
  struct Case {
    const char* match;
    void (*change)(OpFacts&);  // Makes GemmOp() stop matching.
  };
  const Case cases[] = {
      // `dtypes` on a GEMM is A's dtype.
      {"dtypes: \"fp8_e4m3\"", [](OpFacts& f) { SetName(f, "dtype", "bf16"); }},
      {"facts { fact: \"a_dtype\" values: \"fp8_e4m3\" }",
       [](OpFacts& f) { SetName(f, "a_dtype", "bf16"); }},
      {"facts { fact: \"b_dtype\" values: [\"fp8_e4m3\", \"fp8_e5m2\"] }",
       [](OpFacts& f) { SetName(f, "b_dtype", "bf16"); }},
      {"facts { fact: \"d_dtype\" values: \"bf16\" }",
       [](OpFacts& f) { SetName(f, "d_dtype", "fp32"); }},
      {"facts { fact: \"c_dtype\" values: \"bf16\" }", nullptr},  // no C: never matches
      {"facts { fact: \"m\" range { min: 1024 } }", [](OpFacts& f) { SetNumber(f, "m", 1023); }},
      {"facts { fact: \"n\" range { max: 512 } }", [](OpFacts& f) { SetNumber(f, "n", 513); }},
      {"facts { fact: \"k\" range { min: 4096 max: 4096 } }",
       [](OpFacts& f) { SetNumber(f, "k", 4097); }},
      {"facts { fact: \"m\" range { min: 0 } }", [](OpFacts& f) { SetNumber(f, "m", -1); }},
      {"facts { fact: \"m\" range { min: 1024 } } facts { fact: \"b_dtype\" values: \"fp8_e5m2\" }",
       [](OpFacts& f) { SetName(f, "b_dtype", "fp8_e4m3"); }},
  };
  for (const Case& c : cases) {
    auto snapshot = SnapshotOf(std::string("rules { name: \"r\" deny: \"x\" match { interfaces: "
                                           "\"gemm\" ") + c.match + " } }");
    ASSERT_NE(snapshot, nullptr) << c.match;
    OpFacts facts = GemmOp();
    if (c.change == nullptr) {
      EXPECT_THAT(MatchedNames(*snapshot, facts), ElementsAre()) << c.match;
      continue;
    }
    EXPECT_THAT(MatchedNames(*snapshot, facts), ElementsAre("r")) << c.match;
    c.change(facts);
    EXPECT_THAT(MatchedNames(*snapshot, facts), ElementsAre()) << c.match;
  }
}

TEST(ConfigSnapshotTest, AFormatMatchesExactlyItsFiveLayouts) {
  const FactSpec* layout_fact = FindFact(*FindInterface(RuleVocabulary(), "attention"), "layout");
  ASSERT_NE(layout_fact, nullptr);
  for (absl::string_view format : {"sbhd", "bshd", "thd"}) {
    auto snapshot = SnapshotOf(std::string("rules { name: \"r\" deny: \"x\" match { "
                                           "layouts: \"") +
                               std::string(format) + "\" } }");
    int matched = 0;
    for (const std::string& layout : layout_fact->values) {
      OpFacts facts = AttentionOp();
      SetName(facts, "layout", layout);
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
    SetName(facts, "layout", format);
    EXPECT_TRUE(snapshot->Evaluate(facts).matched().empty());
  }
}

TEST(ConfigSnapshotTest, RangesAreInclusiveAndNeedAKnownValue) {
  auto snapshot = SnapshotOf(
      "rules { name: \"hd\" deny: \"x\" match { head_dim { min: 64 max: 128 } } }\n"
      "rules { name: \"sl\" deny: \"x\" match { seq_len { min: 4096 } } }\n"
      "rules { name: \"small\" deny: \"x\" match { seq_len { max: 0 } } }");
  struct Case {
    int64_t head_dim;
    int64_t seq_len;
    std::vector<std::string> expected;
  };
  const Case cases[] = {
      {64, 4096, {"hd", "sl"}},  {128, int64_t{1} << 40, {"hd", "sl"}},
      {63, 4095, {}},            {129, 4096, {"sl"}},
      {-1, -1, {}},              {100, 0, {"hd", "small"}},
  };
  for (const Case& c : cases) {
    OpFacts facts = AttentionOp();
    SetNumber(facts, "head_dim", c.head_dim);
    SetNumber(facts, "seq_len", c.seq_len);
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
  SetName(facts, "dtype", "fp8_e4m3");
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
  OpFacts gemm = GemmOp();
  SetName(gemm, "dtype", "bf16");
  EXPECT_TRUE(lenient_global->IsStrict(gemm));  // Interface list.
  SetName(gemm, "dtype", "fp32");
  EXPECT_FALSE(lenient_global->IsStrict(gemm));  // Rule overrides interface.
  OpFacts attention = AttentionOp();
  EXPECT_FALSE(lenient_global->IsStrict(attention));  // Global default.
  attention.op = "backward";
  EXPECT_TRUE(lenient_global->IsStrict(attention));  // Rule.

  auto strict_global = SnapshotOf(
      "strict: true\n"
      "rules { name: \"relax\" match { interfaces: \"collective\" } strict: false }");
  EXPECT_TRUE(strict_global->IsStrict(AttentionOp()));
  OpFacts comm_create;
  comm_create.interface_name = "collective";
  comm_create.op = "comm_create";
  EXPECT_FALSE(strict_global->IsStrict(comm_create));
  EXPECT_FALSE(strict_global->IsStrict(strict_global->Evaluate(comm_create),
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
// test below (no compiled rules, no group expansion tables).
bool OracleMatches(const Rule& rule, const OpFacts& facts) {
  const Match& m = rule.match();
  auto listed = [](const auto& list, absl::string_view value) {
    if (list.empty()) return true;
    for (const std::string& entry : list) {
      if (entry == value) return true;
    }
    return false;
  };
  auto known = [&](absl::string_view fact) -> const OpFacts::Value* {
    for (int i = 0; i < facts.num_facts; ++i) {
      if (facts.facts[i].name == fact && facts.facts[i].known) return &facts.facts[i];
    }
    return nullptr;
  };
  auto name_ok = [&](absl::string_view fact, const auto& values) {
    if (values.empty()) return true;
    const OpFacts::Value* value = known(fact);
    return value != nullptr && listed(values, value->text);
  };
  auto in_range = [&](absl::string_view fact, bool present, const Range& range) {
    if (!present) return true;
    const OpFacts::Value* value = known(fact);
    if (value == nullptr) return false;
    return (!range.has_min() || value->number >= range.min()) &&
           (!range.has_max() || value->number <= range.max());
  };
  bool layout_ok = m.layouts().empty();
  const OpFacts::Value* layout_value = known("layout");
  for (const std::string& entry : m.layouts()) {
    if (layout_value == nullptr) break;
    const std::string layout(layout_value->text);
    const bool is_format = entry == "bshd" || entry == "sbhd" || entry == "thd";
    if (!is_format && entry == layout) layout_ok = true;
    if (is_format &&
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
  bool facts_ok = true;
  for (const FactMatch& entry : m.facts()) {
    facts_ok = facts_ok && name_ok(entry.fact(), entry.values()) &&
               in_range(entry.fact(), entry.has_range(), entry.range());
  }
  return listed(m.interfaces(), facts.interface_name) && listed(m.ops(), facts.op) &&
         listed(m.device_kinds(), facts.device_kind) && vendor_ok &&
         name_ok("dtype", m.dtypes()) && layout_ok && name_ok("mask_type", m.mask_types()) &&
         in_range("head_dim", m.has_head_dim(), m.head_dim()) &&
         in_range("seq_len", m.has_seq_len(), m.seq_len()) && facts_ok;
}

TEST(ConfigSnapshotTest, EvaluateAgreesWithAnIndependentMatcherOnRandomOps) {
  auto loaded = ParseConfigText(
      "rules { name: \"a\" deny: \"x\" match { interfaces: \"attention\" layouts: "
      "[\"thd\", \"bs3hd\"] head_dim { min: 64 max: 128 } } }\n"
      "rules { name: \"b\" deny: \"x\" match { dtypes: [\"fp8_e4m3\", \"fp8_e5m2\", "
      "\"bf16\"] device_kinds: [\"cuda\", \"acme_npu\"] } }\n"
      "rules { name: \"c\" deny: \"x\" match { mask_types: [\"causal\", "
      "\"padding_causal_bottom_right\"] seq_len { min: 4096 } vendors: \"nvidia\" } }\n"
      "rules { name: \"d\" deny: \"x\" match { ops: [\"comm_create\", \"gemm\", "
      "\"backward\"] layouts: \"sbhd\" } }\n"
      "rules { name: \"e\" deny: \"x\" match { seq_len { max: 4095 } interfaces: "
      "[\"attention\", \"quantizer\"] } }\n"
      "rules { name: \"f\" deny: \"x\" match { facts { fact: \"m\" range { min: 1024 } } "
      "facts { fact: \"b_dtype\" values: [\"fp8_e4m3\", \"bf16\", \"fp32\", \"fp16\"] } } }\n"
      "rules { name: \"g\" deny: \"x\" match { interfaces: \"quantizer\" facts { fact: "
      "\"scaling_mode\" values: [\"mxfp8_1d32\", \"per_tensor\"] } } }\n"
      "rules { name: \"h\" deny: \"x\" match { facts { fact: \"world_size\" range { max: 64 } } } }\n",
      "prop");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const Config proto = loaded->proto;
  auto snapshot = ConfigSnapshot::Create(*std::move(loaded), 1);
  testing::RandomOpFacts random(7);
  std::vector<int> matches_per_rule(proto.rules_size(), 0);
  constexpr int kOps = 30000;
  for (int i = 0; i < kOps; ++i) {
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
    EXPECT_LT(matches_per_rule[r], kOps * 19 / 20) << proto.rules(r).name();
  }
}

}  // namespace
}  // namespace teplug::config
