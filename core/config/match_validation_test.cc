// Tests of what a rule's match may name: facts of its interfaces only, ops
// decided per call only, values and ranges that fit the fact, and the
// warnings for rules that can never match. The vocabulary is a parameter:
// one test drives validation with a vocabulary of its own.
#include "core/config/match_validation.h"

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "core/config/config_loader.h"
#include "core/config/config_validation.h"
#include "core/config/text_field_locations.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "google/protobuf/text_format.h"

namespace teplug::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

// Every error and warning for `text` (source "t"), sorted by position.
std::vector<std::string> Lines(const std::string& text) {
  ConfigCheck check = CheckConfigText(text, "t");
  return check.problems.Lines();
}

TEST(MatchValidationTest, AFactTheRuleInterfaceLacksIsAnErrorNamingItsFacts) {
  EXPECT_THAT(
      Lines("rules { name: \"r\" deny: \"x\"\n"
            "  match { interfaces: \"gemm\" seq_len { min: 4096 } } }"),
      ElementsAre("t:2:30: rules[0].match.seq_len: \"seq_len\" is not a fact of gemm, so this rule "
                  "would never match (seq_len is a fact of attention); gemm rules may match on: "
                  "dtype, a_dtype, b_dtype, c_dtype, d_dtype, m, n, k"));
  EXPECT_THAT(Lines("rules { name: \"r\" deny: \"x\" match { interfaces: \"gemm\" head_dim { max: 64 } } }"),
              ElementsAre(HasSubstr("\"head_dim\" is not a fact of gemm")));
  EXPECT_THAT(Lines("rules { name: \"r\" deny: \"x\" match { interfaces: \"gemm\" layouts: \"bshd\" } }"),
              ElementsAre(HasSubstr("rules[0].match.layouts: \"layout\" is not a fact of gemm")));
  EXPECT_THAT(Lines("rules { name: \"r\" deny: \"x\"\n"
                    "  match { interfaces: \"quantizer\" facts { fact: \"m\" range { min: 1 } } } }"),
              ElementsAre(StartsWith("t:2:35: rules[0].match.facts[0]: \"m\" is not a fact of quantizer")));
  // Ops narrow the rule to their interfaces, so `ops: gemm` is a GEMM rule.
  EXPECT_THAT(Lines("rules { name: \"r\" deny: \"x\" match { ops: \"gemm\" seq_len { min: 1 } } }"),
              ElementsAre(HasSubstr("\"seq_len\" is not a fact of gemm")));
  // Its values are still checked: every mistake in one pass.
  EXPECT_THAT(Lines("rules { name: \"r\" deny: \"x\" match { interfaces: \"gemm\" layouts: \"bhsd\" } }"),
              ElementsAre(HasSubstr("\"layout\" is not a fact of gemm"),
                          HasSubstr("unknown layout \"bhsd\" (did you mean \"sbhd\"?)")));
}

TEST(MatchValidationTest, GemmRulesMayNameOperandDtypesAndMNK) {
  EXPECT_THAT(Lines("rules { name: \"big-fp8\" deny: \"x\" match { interfaces: \"gemm\"\n"
                    "  dtypes: \"fp8_e4m3\"\n"
                    "  facts { fact: \"b_dtype\" values: [\"fp8_e4m3\", \"fp8_e5m2\"] }\n"
                    "  facts { fact: \"m\" range { min: 1024 } }\n"
                    "  facts { fact: \"n\" range { min: 1024 max: 65536 } }\n"
                    "  facts { fact: \"k\" range { max: 8192 } }\n"
                    "} }"),
              IsEmpty());
  // Without interfaces a fact limits the rule to the interfaces that have it.
  EXPECT_THAT(Lines("rules { name: \"r\" deny: \"x\" match { facts { fact: \"m\" range { min: 1 } } } }"),
              IsEmpty());
  EXPECT_THAT(Lines("rules { name: \"r\" deny: \"x\" match { dtypes: \"bf16\" } }"), IsEmpty());
}

TEST(MatchValidationTest, UnknownFactsAndValuesGetDidYouMean) {
  EXPECT_THAT(Lines("rules { name: \"r\" deny: \"x\" match { interfaces: \"attention\"\n"
                    "  facts { fact: \"seqlen\" range { min: 1 } } } }"),
              ElementsAre("t:2:3: rules[0].match.facts[0]: unknown fact \"seqlen\" (did you mean "
                          "\"seq_len\"?); expected one of: dtype, layout, mask_type, bias_type, head_dim, seq_len"));
  EXPECT_THAT(Lines("rules { name: \"r\" deny: \"x\" match { interfaces: \"gemm\"\n"
                    "  facts { fact: \"b_dtype\" values: \"fp8_e4m4\" } } }"),
              ElementsAre(StartsWith("t:2:27: rules[0].match.facts[0].values[0]: unknown b dtype "
                                     "\"fp8_e4m4\" (did you mean \"fp8_e4m3\"?); expected one of: fp32,")));
  EXPECT_THAT(Lines("rules { name: \"r\" deny: \"x\" match { interfacs: \"gemm\" } }"),
              ElementsAre(HasSubstr("has no field named \"interfacs\"; did you mean \"interfaces\"?")));
  EXPECT_THAT(Lines("rules { name: \"r\" deny: \"x\" match { interfaces: \"atention\" } }"),
              ElementsAre(HasSubstr("unknown interface \"atention\" (did you mean \"attention\"?)")));
}

TEST(MatchValidationTest, ValuesAndRangesMustFitTheFactKind) {
  EXPECT_THAT(Lines("rules { name: \"r\" deny: \"x\" match { facts { fact: \"m\" values: \"big\" } } }"),
              ElementsAre(HasSubstr("rules[0].match.facts[0].values: fact \"m\" is an integer: match "
                                    "it with a range")));
  EXPECT_THAT(Lines("rules { name: \"r\" deny: \"x\" match { facts { fact: \"b_dtype\" range { min: 1 } } } }"),
              ElementsAre(HasSubstr("rules[0].match.facts[0].range: fact \"b_dtype\" is a name: match it "
                                    "with values, not with a range")));
  EXPECT_THAT(Lines("rules { name: \"r\" deny: \"x\" match { facts { fact: \"m\" } } }"),
              ElementsAre(HasSubstr("fact \"m\": give either values (a name fact) or a range")));
  EXPECT_THAT(Lines("rules { name: \"r\" deny: \"x\" match { facts { fact: \"m\" values: \"1\" "
                    "range { min: 1 } } } }"),
              ElementsAre(HasSubstr("or a range (an integer fact), not both")));
  EXPECT_THAT(Lines("rules { name: \"r\" deny: \"x\" match { facts { range { min: 1 } } } }"),
              ElementsAre(HasSubstr("a facts entry needs a fact name")));
  EXPECT_THAT(Lines("rules { name: \"r\" deny: \"x\" match { facts { fact: \"k\" range { min: 9 max: 3 } } } }"),
              ElementsAre(HasSubstr("rules[0].match.facts[0].range: inverted range: min 9 is greater "
                                    "than max 3")));
}

TEST(MatchValidationTest, CollectiveCallsAreRefusedWithWhereCollectivesAreDecided) {
  EXPECT_THAT(Lines("rules { name: \"r\" allow: \"x\"\n"
                    "  match { interfaces: \"collective\" ops: [\"comm_create\", \"all_reduce\"] } }"),
              ElementsAre(StartsWith("t:2:36: rules[0].match.ops[1]: op \"all_reduce\" of collective is not "
                                     "decided per call: collectives are decided once per communicator, "
                                     "at comm_create")));
  EXPECT_THAT(Lines("rules { name: \"r\" deny: \"x\" match { ops: \"barrier\" } }"),
              ElementsAre(HasSubstr("match ops: \"comm_create\" (or leave ops out) instead")));
  // Where collectives are decided, rules apply, with the communicator's size.
  EXPECT_THAT(Lines("rules { name: \"r\" allow: \"x\" match { interfaces: \"collective\" ops: \"comm_create\"\n"
                    "  facts { fact: \"world_size\" range { min: 8 } } } }"),
              IsEmpty());
  EXPECT_THAT(Lines("rules { name: \"r\" allow: \"x\" match { interfaces: \"collective\" dtypes: \"bf16\" } }"),
              ElementsAre(HasSubstr("\"dtype\" is not a fact of collective")));
}

TEST(MatchValidationTest, RulesThatCanNeverMatchAreWarnings) {
  // Each fact exists in one listed interface, but none has both.
  const std::string both = "rules { name: \"r\" deny: \"x\" match { interfaces: [\"gemm\", \"attention\"]\n"
                           "  seq_len { min: 1 } facts { fact: \"m\" range { min: 1 } } } }";
  EXPECT_THAT(Lines(both),
              ElementsAre("t:1:29: warning: rules[0].match: this rule can never match: no interface it "
                          "applies to has every fact it names (gemm has no fact seq_len; attention has "
                          "no fact m)"));
  EXPECT_THAT(Lines("rules { name: \"r\" deny: \"x\" match { dtypes: \"bf16\"\n"
                    "  facts { fact: \"dtype\" values: [\"fp16\", \"fp32\"] } } }"),
              ElementsAre(StartsWith("t:2:25: warning: rules[0].match.facts[0].values: this rule can "
                                     "never match: no value of dtype is both one of these and one of "
                                     "those at 1:37")));
  EXPECT_THAT(Lines("rules { name: \"r\" deny: \"x\" match { head_dim { max: 64 }\n"
                    "  facts { fact: \"head_dim\" range { min: 128 } } } }"),
              ElementsAre(HasSubstr("warning: rules[0].match.facts[0].range: this rule can never match: "
                                    "this range of head_dim and the one at 1:37 have no value in common")));
  // A format and one of its layouts overlap: no warning.
  EXPECT_THAT(Lines("rules { name: \"r\" deny: \"x\" match { layouts: \"thd\"\n"
                    "  facts { fact: \"layout\" values: \"thd_t2hd\" } } }"),
              IsEmpty());
  // A warning does not make the config invalid; it is kept for the kernel to log.
  auto loaded = ParseConfigText(both, "t");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_THAT(loaded->warnings, ElementsAre(HasSubstr("t:1:29: warning: rules[0].match: this rule "
                                                      "can never match")));
}

TEST(MatchValidationTest, ValidationFollowsTheVocabularyItIsGiven) {
  InterfaceVocabulary norm;
  norm.name = "norm";
  norm.display_name = "INorm/1";
  norm.ops = {"forward"};
  FactSpec hidden;
  hidden.name = "hidden_size";
  hidden.kind = FactKind::kInteger;
  hidden.doc = "the normalized dimension";
  norm.facts = {hidden};
  const Vocabulary vocabulary = {norm};

  Config config;
  const std::string text =
      "rules { name: \"r\" deny: \"x\" match { interfaces: \"norm\" ops: \"forward\"\n"
      "  facts { fact: \"hidden_size\" range { min: 1024 } } } }\n"
      "rules { name: \"s\" deny: \"x\" match { interfaces: \"gemm\" } }\n";
  google::protobuf::TextFormat::Parser parser;
  google::protobuf::TextFormat::ParseInfoTree tree;
  parser.WriteLocationsTo(&tree);
  ASSERT_TRUE(parser.ParseFromString(text, &config));
  ProblemList problems("t");
  ValidateConfigSemantics(config, IndexTextFieldLocations(config, tree), vocabulary, &problems);
  EXPECT_THAT(problems.Lines(),
              ElementsAre("t:3:37: rules[1].match.interfaces[0]: unknown interface \"gemm\"; expected "
                          "one of: norm"));
}

}  // namespace
}  // namespace teplug::config
