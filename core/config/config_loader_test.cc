// Tests of loading configs from text and JSON: valid files, round trips, and
// error reports that list every problem with its exact file:line:col.
#include "core/config/config_loader.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/config/canonical_names.h"
#include "core/config/config_snapshot.h"
#include "core/config/random_op_facts.h"
#include "core/config/testdata_path.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"

namespace teplug::config {
namespace {

using testing::ConfigFilePath;
using ::testing::HasSubstr;

ValidatedConfig LoadOrDie(const std::string& relative) {
  auto loaded = LoadConfigFile(ConfigFilePath(relative));
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  return loaded.ok() ? *std::move(loaded) : ValidatedConfig{};
}

// The problem lines of a failed load, with the source name removed so the
// expectations read "line:col: message".
std::vector<std::string> ProblemLines(const absl::Status& status,
                                      const std::string& source_name) {
  std::vector<std::string> lines;
  for (absl::string_view line : absl::StrSplit(status.message(), '\n')) {
    const std::string prefix = source_name + ":";
    EXPECT_TRUE(absl::StartsWith(line, prefix))
        << "problem line does not start with the source name: " << line;
    lines.emplace_back(line.substr(prefix.size()));
  }
  return lines;
}

// Everything a snapshot says about one op, as text, without file positions
// (so a text and a JSON source of the same config compare equal).
std::string Answers(const ConfigSnapshot& snapshot, const OpFacts& facts) {
  const RuleVerdicts verdicts = snapshot.Evaluate(facts);
  std::string out;
  for (const CompiledRule* rule : verdicts.matched()) {
    absl::StrAppend(&out, rule->name, "{p=", absl::StrJoin(rule->prefer, ","),
                    " d=", absl::StrJoin(rule->deny, ","),
                    " a=", absl::StrJoin(rule->allow, ","), " s=",
                    rule->strict ? (*rule->strict ? "1" : "0") : "-", "} ");
  }
  absl::StrAppend(&out, "strict=", snapshot.IsStrict(facts));
  for (const char* provider : {"cuda", "acme", "reference", "other"}) {
    const CompiledRule* denied = verdicts.DeniedBy(provider);
    const CompiledRule* not_allowed = verdicts.NotAllowedBy(provider);
    const auto rank = verdicts.PreferenceRank(provider);
    absl::StrAppend(&out, " ", provider, ":", denied ? denied->name : "-", "/",
                    not_allowed ? not_allowed->name : "-", "/",
                    rank ? absl::StrCat(*rank) : "-");
  }
  return out;
}

// Answers to provider-level questions that do not depend on an op.
std::string ProviderAnswers(const ConfigSnapshot& snapshot) {
  std::string out;
  for (const char* provider : {"cuda", "acme", "reference", "other"}) {
    absl::StrAppend(&out, provider, " enabled=", snapshot.ProviderEnabled(provider));
    for (const char* interface_name : {"", "attention", "gemm", "collective"}) {
      const auto priority = snapshot.PriorityOverride(provider, interface_name);
      absl::StrAppend(&out, " [", interface_name, "]=",
                      priority ? absl::StrCat(*priority) : "-");
    }
    out += "\n";
  }
  absl::StrAppend(&out, "log=", static_cast<int>(snapshot.log_level()),
                  " insecure=", snapshot.allow_insecure_plugin_permissions());
  return out;
}

// Checks that two configs give the same answers on many random ops.
void ExpectSameAnswers(const ValidatedConfig& a, const ValidatedConfig& b) {
  const auto snapshot_a = ConfigSnapshot::Create(a, 1);
  const auto snapshot_b = ConfigSnapshot::Create(b, 1);
  EXPECT_EQ(ProviderAnswers(*snapshot_a), ProviderAnswers(*snapshot_b));
  testing::RandomOpFacts random(20240611);
  int ops_with_a_matching_rule = 0;
  for (int i = 0; i < 3000; ++i) {
    const OpFacts facts = random.Next();
    const std::string answers = Answers(*snapshot_a, facts);
    ASSERT_EQ(answers, Answers(*snapshot_b, facts)) << "op #" << i;
    if (!snapshot_a->Evaluate(facts).matched().empty()) ++ops_with_a_matching_rule;
  }
  // The comparison is only meaningful if rules actually matched.
  EXPECT_GT(ops_with_a_matching_rule, 300);
}

TEST(ConfigLoaderTest, ValidTextLoadsEveryField) {
  const ValidatedConfig config = LoadOrDie("testdata/valid.textproto");
  EXPECT_EQ(config.source_name, ConfigFilePath("testdata/valid.textproto"));
  const Config& proto = config.proto;
  ASSERT_EQ(proto.plugins_size(), 2);
  EXPECT_EQ(proto.plugins(0).path(), "/opt/teplug/libteplug_acme.so");
  EXPECT_TRUE(proto.plugins(0).required());
  EXPECT_FALSE(proto.plugins(1).required());
  ASSERT_EQ(proto.rules_size(), 3);
  EXPECT_EQ(proto.rules(1).match().head_dim().max(), 128);
  EXPECT_FALSE(proto.rules(1).match().seq_len().has_max());
  EXPECT_EQ(proto.log_level(), "debug");
  EXPECT_TRUE(proto.allow_insecure_plugin_permissions());
}

TEST(ConfigLoaderTest, TextAndJsonOfTheSameConfigAgree) {
  const ValidatedConfig text = LoadOrDie("testdata/valid.textproto");
  const ValidatedConfig json = LoadOrDie("testdata/valid.json");
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(text.proto,
                                                                 json.proto))
      << text.proto.DebugString() << "\nvs\n" << json.proto.DebugString();
  ExpectSameAnswers(text, json);
}

TEST(ConfigLoaderTest, TextRoundTripKeepsSnapshotAnswers) {
  const ValidatedConfig original = LoadOrDie("testdata/valid.textproto");
  std::string printed;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(original.proto, &printed));
  auto reparsed = ParseConfigText(printed, "<printed>");
  ASSERT_TRUE(reparsed.ok()) << reparsed.status();
  ExpectSameAnswers(original, *reparsed);
}

TEST(ConfigLoaderTest, JsonRoundTripKeepsSnapshotAnswers) {
  const ValidatedConfig original = LoadOrDie("testdata/valid.json");
  std::string printed;
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  ASSERT_TRUE(google::protobuf::util::MessageToJsonString(original.proto, &printed,
                                                          options)
                  .ok());
  auto reparsed = ParseConfigJson(printed, "<printed.json>");
  ASSERT_TRUE(reparsed.ok()) << reparsed.status();
  ExpectSameAnswers(original, *reparsed);
}

TEST(ConfigLoaderTest, SeveralTextErrorsAreAllReportedWithExactPositions) {
  const std::string path = ConfigFilePath("testdata/several_errors.textproto");
  auto loaded = LoadConfigFile(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  const std::vector<std::string> lines = ProblemLines(loaded.status(), path);
  std::vector<std::string> positions;
  for (const std::string& line : lines) {
    // "2:1: plugins[0]: ..." -> "2:1: plugins[0]"
    positions.push_back(line.substr(0, line.find(':', line.find(": ") + 2)));
  }
  EXPECT_THAT(positions,
              ::testing::ElementsAre(
                  "2:1: plugins[0]", "3:34: plugins[1].sha256", "4:1: providers[0]",
                  "5:31: priorities[0].interface", "7:3: rules[0].name",
                  "10:5: rules[0].match.ops[0]", "11:5: rules[0].match.dtypes[0]",
                  "12:5: rules[0].match.layouts[0]",
                  "13:5: rules[0].match.mask_types[0]", "14:5: rules[0].match.head_dim",
                  "15:5: rules[0].match.seq_len", "18:3: rules[0].deny[0]",
                  "20:1: rules[1]", "21:3: rules[1].name", "24:1: log_level",
                  "25:1: strict_interfaces[0]"));
  const std::string& all = std::string(loaded.status().message());
  EXPECT_THAT(all, HasSubstr("unknown dtype \"fp9\" (did you mean \"fp32\"?); expected one of: fp32, fp16"));
  EXPECT_THAT(all, HasSubstr("unknown layout \"bhsd\" (did you mean \"sbhd\"?); expected one of: sbhd, bshd, "
                             "thd, sb3hd,"));
  EXPECT_THAT(all, HasSubstr("op \"gemm\" does not belong to the rule's interfaces (attention); their ops "
                             "are: forward, backward"));
  EXPECT_THAT(all, HasSubstr("inverted range: min 128 is greater than max 64"));
  EXPECT_THAT(all, HasSubstr("empty range"));
  EXPECT_THAT(all, HasSubstr("duplicate rule name \"dup\" (also at 21:3)"));
  EXPECT_THAT(all, HasSubstr("duplicate rule name \"dup\" (also at 7:3)"));
  EXPECT_THAT(all, HasSubstr("provider \"cuda\" is both preferred and denied (prefer at 17:3)"));
  EXPECT_THAT(all, HasSubstr("rule \"dup\" has no action"));
  EXPECT_THAT(all, HasSubstr("sha256 must be 64 hex digits, got \"abc123\""));
  EXPECT_THAT(all, HasSubstr("unknown log level \"verbose\"; expected one of: error, warn, info, debug"));
}

TEST(ConfigLoaderTest, UnknownTextFieldsAreAllReportedAlongWithSemanticErrors) {
  const std::string path = ConfigFilePath("testdata/unknown_fields.textproto");
  auto loaded = LoadConfigFile(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(ProblemLines(loaded.status(), path),
              ::testing::ElementsAre(
                  "1:1: syntax error: Message type \"teplug.config.Config\" has no "
                  "field named \"log_levle\"; did you mean \"log_level\"?",
                  "4:3: syntax error: Message type \"teplug.config.Rule\" has no "
                  "field named \"matches\"; did you mean \"match\"?",
                  "9:21: rules[1].match.seq_len.min: negative bound -1; must be >= 0"));
}

TEST(ConfigLoaderTest, TextSyntaxErrorNamesItsPosition) {
  const std::string path = ConfigFilePath("testdata/syntax_error.textproto");
  auto loaded = LoadConfigFile(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(ProblemLines(loaded.status(), path),
              ::testing::ElementsAre(
                  "3:22: syntax error: String literals cannot cross line boundaries."));
}

TEST(ConfigLoaderTest, TextSyntaxErrorAfterUnknownFieldKeepsBoth) {
  auto loaded = ParseConfigText("bogus: 1\nstrict: maybe\n", "inline");
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(ProblemLines(loaded.status(), "inline"),
              ::testing::ElementsAre(
                  "1:1: syntax error: Message type \"teplug.config.Config\" has no "
                  "field named \"bogus\".",
                  // protobuf notices a bad value only at the next token, here
                  // the end of the text on line 3, and reports that position.
                  "3:1: syntax error: Invalid value for boolean field "
                  "\"strict\". Value: \"maybe\"."));
}

TEST(ConfigLoaderTest, SeveralJsonErrorsAreAllReportedWithExactPositions) {
  const std::string path = ConfigFilePath("testdata/several_errors.json");
  auto loaded = LoadConfigFile(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(
      ProblemLines(loaded.status(), path),
      ::testing::ElementsAre(
          "2:32: plugins[0].sha256: sha256 must be 64 hex digits, got \"xyz\" (3 "
          "characters)",
          "4:6: rules[0].name: duplicate rule name \"a\" (also at 5:6)",
          "4:40: rules[0].match.dtypes[0]: unknown dtype \"fp9\" (did you mean \"fp32\"?); expected one of: "
          "fp32, fp16, bf16, fp8_e4m3, fp8_e5m2, e8m0, fp4_e2m1, int8, int32, "
          "int64, uint8",
          "4:48: rules[0].match.head_dim: inverted range: min 10 is greater than "
          "max 2",
          "5:6: rules[1].name: duplicate rule name \"a\" (also at 4:6)",
          "5:19: unknown field \"colour\" in rules[1] (a Rule)",
          "7:3: log_level: unknown log level \"loud\"; expected one of: error, "
          "warn, info, debug"));
}

TEST(ConfigLoaderTest, JsonValuesOfTheWrongKindAreLocated) {
  const std::string path = ConfigFilePath("testdata/wrong_kinds.json");
  auto loaded = LoadConfigFile(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(ProblemLines(loaded.status(), path),
              ::testing::ElementsAre(
                  "2:16: providers: expects a list, got a string",
                  "3:13: strict: expects true or false, got a string",
                  "4:22: rules[0].name: expects a string, got a number",
                  "4:39: rules[0].deny[1]: expects a string, got a number"));
}

TEST(ConfigLoaderTest, JsonSyntaxErrorNamesItsPosition) {
  const std::string path = ConfigFilePath("testdata/syntax_error.json");
  auto loaded = LoadConfigFile(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(ProblemLines(loaded.status(), path),
              ::testing::ElementsAre(
                  "4:18: JSON syntax error: expected ',' or '}' after a field"));
}

TEST(ConfigLoaderTest, JsonSchemaErrorsProtobufFindsAreReportedWithoutPosition) {
  // 2^40 is valid JSON of the right kind, but does not fit an int32; only
  // protobuf's parser notices, and it gives no position.
  auto loaded = ParseConfigJson(
      R"({"priorities": [{"provider": "p", "priority": 1099511627776}]})", "x.json");
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(std::string(loaded.status().message()),
              ::testing::StartsWith("x.json: JSON does not fit the config schema: "));
}

TEST(ConfigLoaderTest, FileFormatIsChosenByExtensionOrContent) {
  const ValidatedConfig text = LoadOrDie("testdata/minimal.textproto");
  EXPECT_EQ(text.proto.log_level(), "info");
  // No extension, but the content starts with '{': parsed as JSON.
  const ValidatedConfig sniffed = LoadOrDie("testdata/minimal_without_extension");
  EXPECT_EQ(sniffed.proto.log_level(), "error");
}

TEST(ConfigLoaderTest, MissingFileIsNotFoundAndNamesThePath) {
  auto loaded = LoadConfigFile("/nonexistent/teplug.textproto");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(loaded.status().message()),
              HasSubstr("\"/nonexistent/teplug.textproto\""));
}

TEST(ConfigLoaderTest, EmptyTextIsAValidEmptyConfig) {
  auto loaded = ParseConfigText("", "<empty>");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->proto.rules_size(), 0);
  EXPECT_EQ(loaded->source_name, "<empty>");
}

}  // namespace
}  // namespace teplug::config
