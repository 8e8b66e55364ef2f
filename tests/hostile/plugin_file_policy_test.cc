// File-level policy on a real plugin: copies of hostile_good in $TEST_TMPDIR
// with insecure permissions are refused (file 0666, directory 0777) unless
// the policy allows them, which logs exactly one WARN saying so; sha256 pins
// are verified.
#include <sys/stat.h>

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "absl/strings/ascii.h"
#include "core/loader/plugin_loader.h"
#include "core/loader/sha256.h"
#include "tests/hostile/hostile_test_support.h"

namespace teplug::core {
namespace {

using ::testing::HasSubstr;
using teplug::testing::CopyFile;
using teplug::testing::IsLoaded;
using teplug::testing::LogCapture;
using teplug::testing::MakeTempDir;
using teplug::testing::PluginPath;
using teplug::testing::RealPath;

using teplug::testing::kNoneTaken;

std::string GoodPlugin() { return RealPath(PluginPath("tests/hostile", "hostile_good")); }

TEST(PluginFilePolicyTest, WorldWritableFileIsRefused) {
  const std::string dir = RealPath(MakeTempDir("ww_file"));
  const std::string copy = dir + "/libteplug_hostile_good.so";
  CopyFile(GoodPlugin(), copy, 0666);
  LogCapture log;
  absl::StatusOr<LoadedProvider> loaded =
      LoadPluginFile({copy, "TEPLUG_PLUGINS"}, LoadPolicy{}, kNoneTaken, log.logger());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(loaded.status().message()),
              HasSubstr("plugin " + copy + " (TEPLUG_PLUGINS) refused: plugin file " + copy +
                        " is writable by group or others (mode 0666, owner uid "));
  // The refusal says how to fix it, and the documented way to load it anyway.
  EXPECT_THAT(std::string(loaded.status().message()),
              ::testing::EndsWith("); fix: chmod go-w " + copy +
                                  " (to load it anyway: allow_insecure_plugin_permissions: true in "
                                  "the config, or KernelOptions::allow_insecure_plugin_permissions)"));
  EXPECT_EQ(log.Lines(LogLevel::kWarn).size(), 1u);
  EXPECT_FALSE(IsLoaded(copy)) << "refused before dlopen";
}

TEST(PluginFilePolicyTest, GroupWritableDirectoryIsRefused) {
  const std::string dir = RealPath(MakeTempDir("ww_dir"));
  const std::string copy = dir + "/libteplug_hostile_good.so";
  CopyFile(GoodPlugin(), copy, 0755);
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  LogCapture log;
  absl::StatusOr<LoadedProvider> loaded =
      LoadPluginFile({copy, "api"}, LoadPolicy{}, kNoneTaken, log.logger());
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(std::string(loaded.status().message()),
              HasSubstr("refused: plugin directory " + dir +
                        " is writable by group or others (mode 0777"));
  ::chmod(dir.c_str(), 0755);
}

TEST(PluginFilePolicyTest, PolicyAllowsInsecureFileAndSaysSoOnce) {
  const std::string dir = RealPath(MakeTempDir("ww_allowed"));
  const std::string copy = dir + "/libteplug_hostile_good.so";
  CopyFile(GoodPlugin(), copy, 0666);
  LogCapture log;
  LoadPolicy policy;
  policy.allow_insecure_permissions = true;
  absl::StatusOr<LoadedProvider> loaded =
      LoadPluginFile({copy, "api"}, policy, kNoneTaken, log.logger());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->provider->source, copy);
  const auto warnings = log.Lines(LogLevel::kWarn);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("plugin " + copy + " (api): loading despite failed security "
                                     "check because allow_insecure_plugin_permissions is set: "
                                     "plugin file " + copy + " is writable by group or others "
                                     "(mode 0666"));
}

TEST(PluginFilePolicyTest, Sha256PinIsVerified) {
  const std::string path = GoodPlugin();
  absl::StatusOr<std::string> digest = Sha256OfFile(path);
  ASSERT_TRUE(digest.ok()) << digest.status();
  LogCapture log;

  PluginCandidate pinned{path, "config t.textproto:3", true, absl::AsciiStrToUpper(*digest)};
  absl::StatusOr<LoadedProvider> ok = LoadPluginFile(pinned, LoadPolicy{}, kNoneTaken, log.logger());
  EXPECT_TRUE(ok.ok()) << ok.status();
  ok = absl::UnknownError("released");

  std::string wrong = *digest;
  wrong[10] = wrong[10] == '0' ? '1' : '0';
  pinned.sha256 = wrong;
  absl::StatusOr<LoadedProvider> mismatch =
      LoadPluginFile(pinned, LoadPolicy{}, kNoneTaken, log.logger());
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(mismatch.status().message(),
            "plugin " + path + " (config t.textproto:3) refused: sha256 mismatch: the file's "
            "digest is " + *digest + " but the pin is " + wrong);
  EXPECT_FALSE(IsLoaded(path));

  pinned.sha256 = "xyz";
  absl::StatusOr<LoadedProvider> malformed =
      LoadPluginFile(pinned, LoadPolicy{}, kNoneTaken, log.logger());
  ASSERT_FALSE(malformed.ok());
  EXPECT_THAT(std::string(malformed.status().message()),
              HasSubstr("sha256 pin \"xyz\" is not 64 hex digits"));
  EXPECT_EQ(log.Lines(LogLevel::kWarn).size(), 2u) << "one per refusal";
}

TEST(PluginFilePolicyTest, MissingFileIsRefusedNotACrash) {
  LogCapture log;
  absl::StatusOr<LoadedProvider> loaded = LoadPluginFile(
      {"/nonexistent/libteplug_x.so", "NVTE_PLUGIN"}, LoadPolicy{}, kNoneTaken, log.logger());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            "plugin /nonexistent/libteplug_x.so (NVTE_PLUGIN) refused: cannot resolve the path: "
            "No such file or directory");
  EXPECT_EQ(log.Lines(LogLevel::kWarn).size(), 1u);
}

}  // namespace
}  // namespace teplug::core
