// Tests of the semantic checks (one per kind of mistake, on small inline
// configs) and of ValidateProviderNames.
#include "core/config/config_validation.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_split.h"
#include "core/config/config_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace teplug::config {
namespace {

using ::testing::ElementsAre;

// Parses `text` (source "t") and returns its problem lines; empty when valid.
std::vector<std::string> Problems(const std::string& text) {
  auto loaded = ParseConfigText(text, "t");
  if (loaded.ok()) return {};
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  return absl::StrSplit(loaded.status().message(), '\n');
}

TEST(ConfigValidationTest, AValidRuleHasNoProblems) {
  EXPECT_THAT(Problems("rules { name: \"r\" match { layouts: \"bshd\" "
                       "head_dim { max: 0 } } deny: \"x\" }"),
              ElementsAre());
}

TEST(ConfigValidationTest, RuleNeedsANameAndAnAction) {
  EXPECT_THAT(Problems("rules {\n  match { interfaces: \"gemm\" }\n}\n"),
              ElementsAre(
                  "t:1:1: rules[0]: a rule needs a non-empty name (decision "
                  "records cite it)",
                  "t:1:1: rules[0]: rule \"\" has no action; set prefer, deny, "
                  "allow or strict"));
  // strict alone is an action (even strict: false, which relaxes).
  EXPECT_THAT(Problems("rules { name: \"r\" strict: false }"), ElementsAre());
}

TEST(ConfigValidationTest, OpsMustBelongToTheRuleInterfaces) {
  EXPECT_THAT(
      Problems("rules { name: \"r\" deny: \"x\"\n"
               "  match { interfaces: [\"gemm\", \"quantizer\"] ops: \"gemm\"\n"
               "          ops: \"dequantize\" ops: \"all_gather\" } }"),
      ElementsAre("t:3:29: rules[0].match.ops[2]: op \"all_gather\" does not "
                  "belong to the rule's interfaces (gemm, quantizer); their ops "
                  "are: gemm, quantize, dequantize"));
  // Without interfaces any known op is fine, an unknown one is not.
  EXPECT_THAT(Problems("rules { name: \"r\" deny: \"x\" match { ops: "
                       "[\"backward\", \"fwd\"] } }"),
              ElementsAre(::testing::StartsWith(
                  "t:1:37: rules[0].match.ops[1]: unknown op \"fwd\"; expected "
                  "one of: forward, backward, gemm, quantize, dequantize, ")));
}

TEST(ConfigValidationTest, RangesMustBeNonEmptyNonNegativeAndOrdered) {
  EXPECT_THAT(Problems("rules { name: \"r\" deny: \"x\" match {\n"
                       "  head_dim { min: -4 max: -8 }\n"
                       "  seq_len { min: 5 max: 5 }\n"
                       "} }"),
              ElementsAre("t:2:3: rules[0].match.head_dim: inverted range: min "
                          "-4 is greater than max -8",
                          "t:2:14: rules[0].match.head_dim.min: negative bound "
                          "-4; must be >= 0",
                          "t:2:22: rules[0].match.head_dim.max: negative bound "
                          "-8; must be >= 0"));
}

TEST(ConfigValidationTest, DeviceKindsVendorsAndProviderListsAreChecked) {
  EXPECT_THAT(
      Problems("rules { name: \"r\"\n"
               "  match { device_kinds: [\"cuda\", \"Cuda\"] vendors: \"\" }\n"
               "  allow: [\"a\", \"b\"] deny: \"b\" prefer: [\"a\", \"a\", \"\"]\n"
               "}"),
      ElementsAre(
          "t:2:11: rules[0].match.device_kinds[1]: invalid device kind \"Cuda\"; "
          "expected cpu, cuda, opencl or a vendor-defined kind spelled [a-z0-9_]+",
          "t:2:42: rules[0].match.vendors[0]: empty vendor name",
          "t:3:21: rules[0].deny[0]: provider \"b\" is both allowed and denied "
          "(allow at 3:3)",
          // List syntax: every element sits at the field name.
          "t:3:31: rules[0].prefer[2]: empty provider name",
          "t:3:31: rules[0].prefer[1]: provider \"a\" is listed twice (first at "
          "3:31)"));
}

TEST(ConfigValidationTest, TopLevelEntriesAreChecked) {
  EXPECT_THAT(
      Problems("plugins { path: \"a.so\" }\n"
               "plugins { path: \"a.so\" sha256: \"" +
               std::string(63, 'a') + "g\" }\n"
               "providers { name: \"p\" enabled: true }\n"
               "providers { name: \"p\" enabled: false }\n"
               "providers { enabled: false }\n"
               "priorities { provider: \"p\" priority: 1 }\n"
               "priorities { provider: \"p\" priority: 2 }\n"
               "priorities { interface: \"gemm\" }\n"
               "strict_interfaces: [\"gemm\", \"gemm\"]\n"),
      ElementsAre(
          "t:2:11: plugins[1].path: plugin \"a.so\" is listed twice (first at 1:1)",
          "t:2:24: plugins[1].sha256: sha256 must be 64 hex digits, got \"" +
              std::string(63, 'a') + "g\" (64 characters)",
          "t:4:13: providers[1].name: provider \"p\" is listed twice (first at 3:1)",
          "t:5:1: providers[2]: a provider entry needs a name",
          "t:7:1: priorities[1]: priority for provider \"p\" (all interfaces) is "
          "set twice (first at 6:1)",
          "t:8:1: priorities[2]: a priority entry needs a provider",
          "t:8:1: priorities[2]: a priority entry needs a priority value",
          "t:9:1: strict_interfaces[1]: interface \"gemm\" is listed twice "
          "(first at 9:1)"));
}

TEST(ConfigValidationTest, ProviderOptionsAreChecked) {
  EXPECT_THAT(Problems("providers { name: \"cpu\" options { key: \"threads\" value: \"4\" } }"), ElementsAre())
      << "options alone need no enabled";
  EXPECT_THAT(Problems("providers { name: \"cpu\" }"),
              ElementsAre("t:1:1: providers[0]: set enabled: true or enabled: false (or options)"));
  EXPECT_THAT(Problems("providers { name: \"cpu\"\n"
                       "  options { key: \"threads\" value: \"4\" }\n"
                       "  options { key: \"threads\" value: \"2\" }\n"
                       "  options { key: \"Threads!\" value: \"2\" }\n"
                       "  options { value: \"2\" } }"),
              ElementsAre("t:3:13: providers[0].options[1].key: option \"threads\" is listed twice (first at 2:3)",
                          "t:4:13: providers[0].options[2].key: option key \"Threads!\" must be 1-63 characters of "
                          "[a-z0-9_.-]",
                          "t:5:3: providers[0].options[3].key: option key \"\" must be 1-63 characters of "
                          "[a-z0-9_.-]"));
}

TEST(ConfigValidationTest, ProbeTimeoutBoundaries) {
  EXPECT_THAT(Problems("probe: true probe_timeout_ms: 1"), ElementsAre());
  EXPECT_THAT(Problems("probe_timeout_ms: 600000"), ElementsAre());
  EXPECT_THAT(Problems("probe_timeout_ms: 0"),
              ElementsAre("t:1:1: probe_timeout_ms: probe_timeout_ms must be between 1 and 600000 "
                          "(10 minutes), got 0"));
  EXPECT_THAT(Problems("\nprobe_timeout_ms: 600001"),
              ElementsAre("t:2:1: probe_timeout_ms: probe_timeout_ms must be between 1 and 600000 "
                          "(10 minutes), got 600001"));
  EXPECT_THAT(Problems("probe_timeout_ms: -5"),
              ElementsAre("t:1:1: probe_timeout_ms: probe_timeout_ms must be between 1 and 600000 "
                          "(10 minutes), got -5"));
  EXPECT_THAT(Problems("plugins { path: \"a.so\" probe: true }"), ElementsAre());
}

TEST(ValidateProviderNamesTest, ReportsEveryUnknownNameWithItsPosition) {
  auto loaded = ParseConfigText(
      "providers { name: \"cuda\" enabled: true }\n"
      "providers { name: \"acme\" enabled: false }\n"
      "priorities { provider: \"refrence\" priority: 3 }\n"
      "rules {\n"
      "  name: \"r\"\n"
      "  prefer: [\"cuda\", \"nvidia\"]\n"
      "  deny: \"acme\"\n"
      "  allow: [\"cuda\", \"reference\", \"acme2\"]\n"
      "}\n",
      "cfg.textproto");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const absl::Status status =
      ValidateProviderNames(*loaded, {"cuda", "reference", "acme"});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(status.message()),
            "cfg.textproto:3:14: priorities[0].provider: unknown provider "
            "\"refrence\" (did you mean \"reference\"?); known providers: cuda, reference, acme\n"
            "cfg.textproto:6:3: rules[0].prefer[1]: unknown provider \"nvidia\"; "
            "known providers: cuda, reference, acme\n"
            "cfg.textproto:8:3: rules[0].allow[2]: unknown provider \"acme2\" (did you mean \"acme\"?); "
            "known providers: cuda, reference, acme");
  EXPECT_TRUE(ValidateProviderNames(
                  *loaded, {"cuda", "reference", "acme", "refrence", "nvidia", "acme2"})
                  .ok());
}

TEST(ValidateProviderNamesTest, JsonPositionsPointAtEachElement) {
  auto loaded = ParseConfigJson(
      "{\"rules\": [{\"name\": \"r\",\n"
      "  \"deny\": [\"cuda\", \"ghost\"]}]}",
      "cfg.json");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(std::string(ValidateProviderNames(*loaded, {"cuda"}).message()),
            "cfg.json:2:20: rules[0].deny[1]: unknown provider \"ghost\"; known "
            "providers: cuda");
  EXPECT_EQ(std::string(ValidateProviderNames(*loaded, {}).message()),
            "cfg.json:2:12: rules[0].deny[0]: unknown provider \"cuda\"; known "
            "providers: (none loaded)\n"
            "cfg.json:2:20: rules[0].deny[1]: unknown provider \"ghost\"; known "
            "providers: (none loaded)");
}

}  // namespace
}  // namespace teplug::config
