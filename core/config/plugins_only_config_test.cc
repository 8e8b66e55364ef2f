// Tests of the plugins-only config `teplug validate` loads plugins with.
#include "core/config/plugins_only_config.h"

#include <string>

#include "core/config/config_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace teplug::config {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(PluginsOnlyConfigTest, KeepsEachPluginOnItsLineAndDropsTheRest) {
  const std::string pin(64, 'a');
  ConfigCheck check = CheckConfigText(
      "log_level: \"loud\"\n"                                               // 1: an error
      "plugins { path: \"a.so\" required: true }\n"                         // 2
      "rules { name: \"r\" match { interfaces: \"gemm\" seq_len { min: 1 } } deny: \"x\" }\n"
      "\n"
      "plugins { path: \"b\\n.so\" sha256: \"" + pin + "\" probe: true }\n"  // 5
      "plugins { path: \"\" }\n"                                            // 6: refused
      "plugins { path: \"c.so\" sha256: \"xyz\" }\n"                        // 7: refused
      "plugins { path: \"a.so\" }\n"                                        // 8: repeated
      "probe: true probe_timeout_ms: 5000 allow_insecure_plugin_permissions: true\n",
      "cfg.textproto");
  ASSERT_TRUE(check.problems.has_errors());
  ASSERT_TRUE(check.parsed.has_value());
  const std::string text = PluginsOnlyConfigText(*check.parsed);
  absl::StatusOr<ValidatedConfig> reparsed = ParseConfigText(text, "cfg.textproto");
  ASSERT_TRUE(reparsed.ok()) << reparsed.status() << "\n" << text;
  const Config& plugins_only = reparsed->proto;
  ASSERT_EQ(plugins_only.plugins_size(), 2) << text;
  EXPECT_EQ(plugins_only.plugins(0).path(), "a.so");
  EXPECT_FALSE(plugins_only.plugins(0).required());  // refused or not, the others still load
  EXPECT_EQ(plugins_only.plugins(1).path(), "b\n.so");
  EXPECT_EQ(plugins_only.plugins(1).sha256(), pin);
  EXPECT_TRUE(plugins_only.plugins(1).probe());
  EXPECT_EQ(reparsed->locations.FindNearest("plugins[0]").line, 2);
  EXPECT_EQ(reparsed->locations.FindNearest("plugins[1]").line, 5);
  EXPECT_TRUE(plugins_only.probe());
  EXPECT_EQ(plugins_only.probe_timeout_ms(), 5000);
  EXPECT_TRUE(plugins_only.allow_insecure_plugin_permissions());
  EXPECT_EQ(plugins_only.rules_size(), 0);
  EXPECT_THAT(text, Not(HasSubstr("log_level")));
}

TEST(PluginsOnlyConfigTest, AConfigWithoutPluginsGivesAnEmptyConfig) {
  absl::StatusOr<ValidatedConfig> loaded = ParseConfigText("strict: true", "t");
  ASSERT_TRUE(loaded.ok());
  absl::StatusOr<ValidatedConfig> reparsed = ParseConfigText(PluginsOnlyConfigText(*loaded), "t");
  ASSERT_TRUE(reparsed.ok());
  EXPECT_EQ(reparsed->proto.ByteSizeLong(), 0u);
}

}  // namespace
}  // namespace teplug::config
