// Tests of the checks against the loaded providers: allow lists that leave an
// interface's ops with no provider are warnings, and the run-time warning
// list the kernel logs holds them with the config's own warnings and the
// unknown provider names.
#include "core/config/provider_validation.h"

#include <string>
#include <vector>

#include "core/config/config_loader.h"
#include "core/config/rule_vocabulary.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace teplug::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// reference serves everything; acme only attention; gloo only collectives.
const std::vector<ProviderOffer>& Providers() {
  static const auto* providers = new std::vector<ProviderOffer>{
      {"reference", {"attention", "gemm", "quantizer", "collective"}},
      {"acme", {"attention"}},
      {"gloo", {"collective"}},
  };
  return *providers;
}

std::vector<std::string> AllowWarnings(const std::string& text) {
  auto loaded = ParseConfigText(text, "t");
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  if (!loaded.ok()) return {"<invalid>"};
  ProblemList problems("t");
  CheckAllowLists(*loaded, Providers(), RuleVocabulary(), &problems);
  EXPECT_FALSE(problems.has_errors());
  return problems.Lines();
}

TEST(AllowListTest, AnAllowListOfProvidersThatDoNotImplementTheInterfaceIsAWarning) {
  EXPECT_THAT(AllowWarnings("rules { name: \"pin\"\n  match { interfaces: \"gemm\" }\n  allow: \"acme\" }"),
              ElementsAre("t:3:3: warning: rules[0].allow: rule \"pin\" leaves gemm (loaded providers "
                          "implementing it: reference) with no provider: no provider it allows is "
                          "loaded, enabled and implements the interface, so every matching op fails"));
  // Without interfaces, every interface the allow list cannot serve is named.
  EXPECT_THAT(AllowWarnings("rules { name: \"only-acme\" allow: \"acme\" }"),
              ElementsAre(HasSubstr("leaves gemm (loaded providers implementing it: reference) and "
                                    "quantizer (loaded providers implementing it: reference) and "
                                    "collective (loaded providers implementing it: reference, gloo)")));
  // A provider that is not loaded serves nothing (its name is an error of its own).
  EXPECT_THAT(AllowWarnings("rules { name: \"r\" match { interfaces: \"attention\" } allow: \"cudnn\" }"),
              ElementsAre(HasSubstr("leaves attention (loaded providers implementing it: reference, acme)")));
}

TEST(AllowListTest, DisabledProvidersDoNotCount) {
  EXPECT_THAT(AllowWarnings("providers { name: \"acme\" enabled: false }\n"
                            "rules { name: \"r\" match { interfaces: \"attention\" } allow: \"acme\" }"),
              ElementsAre(HasSubstr("rule \"r\" leaves attention")));
  EXPECT_THAT(AllowWarnings("providers { name: \"reference\" enabled: false }\n"
                            "rules { name: \"r\" match { interfaces: \"attention\" } allow: [\"acme\", "
                            "\"reference\"] }"),
              IsEmpty());  // acme still serves
}

TEST(AllowListTest, AnAllowListThatServesEveryInterfaceItAppliesToIsFine) {
  EXPECT_THAT(AllowWarnings("rules { name: \"r\" match { interfaces: \"attention\" } allow: \"acme\" }"),
              IsEmpty());
  // Facts narrow the interfaces: only attention has seq_len.
  EXPECT_THAT(AllowWarnings("rules { name: \"r\" match { seq_len { min: 8192 } } allow: \"acme\" }"),
              IsEmpty());
  EXPECT_THAT(AllowWarnings("rules { name: \"r\" match { ops: \"comm_create\" } allow: \"gloo\" }"),
              IsEmpty());
  EXPECT_THAT(AllowWarnings("rules { name: \"r\" deny: \"acme\" }"), IsEmpty());
}

TEST(RunTimeConfigWarningsTest, HoldsTheConfigWarningsUnknownNamesAndStarvedInterfaces) {
  auto loaded = ParseConfigText(
      "priorities { provider: \"refrence\" priority: 5 }\n"
      "rules { name: \"never\" deny: \"acme\" match { interfaces: [\"gemm\", \"attention\"]\n"
      "  seq_len { min: 1 } facts { fact: \"m\" range { min: 1 } } } }\n"
      "rules { name: \"pin\" match { interfaces: \"gemm\" } allow: \"acme\" }\n",
      "t");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_THAT(RunTimeConfigWarnings(*loaded, Providers()),
              ElementsAre(HasSubstr("t:2:36: warning: rules[0].match: this rule can never match"),
                          "t:1:14: priorities[0].provider: unknown provider \"refrence\" (did you mean "
                          "\"reference\"?); known providers: reference, acme, gloo",
                          HasSubstr("t:4:50: warning: rules[1].allow: rule \"pin\" leaves gemm")));
}

}  // namespace
}  // namespace teplug::config
