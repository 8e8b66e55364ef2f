// Tests of the embedded default config and of startup loading through
// $TEPLUG_CONFIG.
#include "core/config/default_config.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "core/config/config_loader.h"
#include "core/config/config_snapshot.h"
#include "core/config/testdata_path.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace teplug::config {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  EXPECT_TRUE(file.good()) << path;
  std::stringstream contents;
  contents << file.rdbuf();
  return contents.str();
}


TEST(DefaultConfigTest, EmbeddedTextIsTheDefaultTextprotoFile) {
  const std::string file = ReadFile(testing::ConfigFilePath("default.textproto"));
  ASSERT_FALSE(file.empty());
  // The generator adds one newline after the raw-string opening.
  EXPECT_EQ(std::string(kDefaultConfigText), "\n" + file);
}

TEST(DefaultConfigTest, DefaultParsesAndIsNeutral) {
  auto config = DefaultConfig();
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->source_name, kDefaultConfigSourceName);
  EXPECT_EQ(config->proto.plugins_size(), 0);
  EXPECT_EQ(config->proto.rules_size(), 0);
  auto snapshot = ConfigSnapshot::Create(*std::move(config), 1);
  EXPECT_EQ(snapshot->log_level(), LogLevel::kWarn);
  EXPECT_FALSE(snapshot->allow_insecure_plugin_permissions());
  OpFacts facts;
  facts.interface_name = "gemm";
  facts.op = "gemm";
  EXPECT_FALSE(snapshot->IsStrict(facts));
  EXPECT_TRUE(snapshot->ProviderEnabled("cuda"));
}

TEST(DefaultConfigTest, StartupUsesTheDefaultWithoutTheVariable) {
  auto config = LoadStartupConfig(std::nullopt);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->source_name, kDefaultConfigSourceName);

  auto with_empty = LoadStartupConfig("");
  ASSERT_TRUE(with_empty.ok()) << with_empty.status();
  EXPECT_EQ(with_empty->source_name, kDefaultConfigSourceName);
}

TEST(DefaultConfigTest, StartupLoadsTheFileNamedByTheVariable) {
  const std::string path = testing::ConfigFilePath("testdata/valid.textproto");
  auto config = LoadStartupConfig(path);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->source_name, path);
  EXPECT_EQ(config->proto.rules_size(), 3);
}

TEST(DefaultConfigTest, StartupErrorNamesTheVariableAndEveryProblem) {
  const std::string path = testing::ConfigFilePath("testdata/unknown_fields.textproto");
  auto config = LoadStartupConfig(path);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(config.status().message());
  EXPECT_TRUE(absl::StartsWith(message, "config named by $TEPLUG_CONFIG is unusable:\n"))
      << message;
  EXPECT_THAT(message, ::testing::HasSubstr(path + ":1:1: "));
  EXPECT_THAT(message, ::testing::HasSubstr(path + ":4:3: "));
  EXPECT_THAT(message, ::testing::HasSubstr(path + ":9:21: "));
}

}  // namespace
}  // namespace teplug::config
