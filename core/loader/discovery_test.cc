// DiscoverPlugins with a fake environment and real temporary files: order
// (config, api, TEPLUG_PLUGINS, TEPLUG_PLUGIN_PATH sorted, NVTE_PLUGIN when
// it names a path),
// dedupe by realpath through a symlink, required/pin merging,
// TEPLUG_PLUGINS=none, missing files and directories as refused entries,
// when and against what relative paths resolve.
#include "core/loader/discovery.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core/config/config_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace teplug::core {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string RealPath(const std::string& p) {
  char buffer[PATH_MAX];
  return ::realpath(p.c_str(), buffer) != nullptr ? buffer : "";
}

class DiscoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    root_ = RealPath(tmp != nullptr ? tmp : "/tmp") + "/" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    ::mkdir(root_.c_str(), 0755);
  }
  std::string Dir(const std::string& name) {
    std::string d = root_ + "/" + name;
    ::mkdir(d.c_str(), 0755);
    return d;
  }
  std::string File(const std::string& path) {
    std::ofstream(path) << "not really a library";
    return path;
  }
  EnvLookup Env() {
    return [this](const char* name) -> std::optional<std::string> {
      auto it = env_.find(name);
      if (it == env_.end()) return std::nullopt;
      return it->second;
    };
  }
  static std::vector<std::string> Paths(const std::vector<PluginCandidate>& c) {
    std::vector<std::string> out;
    for (const auto& x : c) out.push_back(x.path);
    return out;
  }
  static std::vector<std::string> Origins(const std::vector<PluginCandidate>& c) {
    std::vector<std::string> out;
    for (const auto& x : c) out.push_back(x.origin);
    return out;
  }

  std::string root_;
  std::map<std::string, std::string> env_;
};

TEST_F(DiscoveryTest, OrderIsConfigApiPluginsPathThenNvte) {
  const std::string d = Dir("d");
  const std::string search = Dir("search");
  const std::string a = File(d + "/libteplug_a.so");
  const std::string api = File(d + "/libteplug_api.so");
  const std::string env1 = File(d + "/libteplug_env1.so");
  const std::string env2 = File(d + "/libteplug_env2.so");
  const std::string nvte = File(d + "/nvte_plugin.so");
  const std::string z = File(search + "/libteplug_z.so");
  const std::string m = File(search + "/libteplug_m.so");
  File(search + "/libother.so");        // not libteplug_*
  File(search + "/libteplug_x.so.1");   // not *.so
  const std::string rel = File(d + "/libteplug_rel.so");

  const std::string config_path = d + "/teplug.textproto";
  std::ofstream(config_path) << "# comment\nplugins { path: \"" << a
                             << "\" required: true }\nplugins { path: \"libteplug_rel.so\" }\n";
  absl::StatusOr<config::ValidatedConfig> validated = config::LoadConfigFile(config_path);
  ASSERT_TRUE(validated.ok()) << validated.status();
  auto snapshot = config::ConfigSnapshot::Create(std::move(*validated), 1);

  env_["TEPLUG_PLUGINS"] = env2 + ":" + env1;
  env_["TEPLUG_PLUGIN_PATH"] = search;
  env_["NVTE_PLUGIN"] = nvte;
  std::vector<LoadReportEntry> refused;
  std::vector<PluginCandidate> found =
      DiscoverPlugins(snapshot.get(), {{api, ""}}, Env(), &refused);
  EXPECT_THAT(refused, IsEmpty());
  EXPECT_THAT(Paths(found), ElementsAre(a, rel, api, env2, env1, m, z, nvte));
  EXPECT_THAT(Origins(found),
              ElementsAre("config " + config_path + ":2", "config " + config_path + ":3", "api",
                          "TEPLUG_PLUGINS", "TEPLUG_PLUGINS", "TEPLUG_PLUGIN_PATH " + search,
                          "TEPLUG_PLUGIN_PATH " + search, "NVTE_PLUGIN"));
  EXPECT_TRUE(found[0].required);
  EXPECT_FALSE(found[1].required);
}

// TransformerEngine reads NVTE_PLUGIN as a Python module name: a value that
// names no path (no '/', no .so suffix) is not a library for teplug, and is
// skipped with one DEBUG line instead of becoming a refused plugin.
TEST_F(DiscoveryTest, NvtePluginIsALibraryOnlyWhenItNamesAPath) {
  const std::string d = Dir("d");
  const std::string lib = File(d + "/nvte_plugin.so");
  auto sink = std::make_shared<std::vector<std::string>>();
  auto logger = std::make_shared<Logger>(
      LogLevel::kDebug, [sink](LogLevel, absl::string_view line) { sink->emplace_back(line); });
  std::vector<LoadReportEntry> refused;

  env_["NVTE_PLUGIN"] = "some_module";
  EXPECT_THAT(Paths(DiscoverPlugins(nullptr, {}, Env(), &refused, logger)), IsEmpty());
  EXPECT_THAT(refused, IsEmpty());
  EXPECT_THAT(*sink, ElementsAre("teplug DEBUG: NVTE_PLUGIN=some_module is not a library path (no "
                                 "'/' and no .so suffix); left to TransformerEngine's Python loader"));

  // A relative file name with the .so suffix, and a path with a '/', are
  // libraries (the first is resolved against the working directory).
  sink->clear();
  char previous[PATH_MAX];
  ASSERT_NE(::getcwd(previous, sizeof previous), nullptr);
  ASSERT_EQ(::chdir(d.c_str()), 0);
  env_["NVTE_PLUGIN"] = "nvte_plugin.so";
  const std::vector<PluginCandidate> relative = DiscoverPlugins(nullptr, {}, Env(), &refused, logger);
  ASSERT_EQ(::chdir(previous), 0);
  EXPECT_THAT(Paths(relative), ElementsAre(lib));
  env_["NVTE_PLUGIN"] = d + "/../d/nvte_plugin.so";
  EXPECT_THAT(Paths(DiscoverPlugins(nullptr, {}, Env(), &refused, logger)), ElementsAre(lib));
  // A missing path is still a refused plugin, not a skipped module name.
  env_["NVTE_PLUGIN"] = "./missing_module";
  EXPECT_THAT(Paths(DiscoverPlugins(nullptr, {}, Env(), &refused, logger)), IsEmpty());
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].origin, "NVTE_PLUGIN");
  EXPECT_THAT(*sink, ::testing::Each(::testing::Not(HasSubstr("DEBUG"))));
}

// What interfaces/README.md promises about relative paths: resolved during
// discovery against the working directory of that moment; a config entry
// first joined to the directory part of the config's name as given (itself
// relative here), or left alone when the name has none.
TEST_F(DiscoveryTest, RelativePathsResolveAgainstTheWorkingDirectoryAtDiscovery) {
  const std::string work = Dir("work");
  Dir("work/conf");
  Dir("work/conf/p");
  const std::string in_conf = File(work + "/conf/p/libteplug_c.so");
  const std::string in_work = File(work + "/libteplug_w.so");

  char previous[PATH_MAX];
  ASSERT_NE(::getcwd(previous, sizeof previous), nullptr);
  ASSERT_EQ(::chdir(work.c_str()), 0);
  std::ofstream("conf/t.textproto") << "plugins { path: \"p/libteplug_c.so\" }\n";
  std::ofstream("bare.textproto") << "plugins { path: \"libteplug_w.so\" }\n";
  absl::StatusOr<config::ValidatedConfig> in_dir = config::LoadConfigFile("conf/t.textproto");
  absl::StatusOr<config::ValidatedConfig> bare = config::LoadConfigFile("bare.textproto");
  std::vector<LoadReportEntry> refused;
  std::vector<PluginCandidate> from_config_dir, from_bare_name;
  if (in_dir.ok() && bare.ok()) {
    auto in_dir_snapshot = config::ConfigSnapshot::Create(std::move(*in_dir), 1);
    auto bare_snapshot = config::ConfigSnapshot::Create(std::move(*bare), 1);
    from_config_dir =
        DiscoverPlugins(in_dir_snapshot.get(), {{"libteplug_w.so", ""}}, Env(), &refused);
    from_bare_name = DiscoverPlugins(bare_snapshot.get(), {}, Env(), &refused);
  }
  ASSERT_EQ(::chdir(previous), 0);

  ASSERT_TRUE(in_dir.ok()) << in_dir.status();
  ASSERT_TRUE(bare.ok()) << bare.status();
  EXPECT_THAT(refused, IsEmpty());
  // Absolute: nothing depends on the working directory after discovery.
  EXPECT_THAT(Paths(from_config_dir), ElementsAre(in_conf, in_work));
  EXPECT_THAT(Paths(from_bare_name), ElementsAre(in_work));
}

TEST_F(DiscoveryTest, DuplicatesThroughSymlinkAreMerged) {
  const std::string d = Dir("d");
  const std::string real = File(d + "/libteplug_a.so");
  const std::string link = d + "/libteplug_link.so";
  ASSERT_EQ(::symlink(real.c_str(), link.c_str()), 0);
  const std::string pin(64, 'a');
  env_["TEPLUG_PLUGINS"] = link;
  env_["NVTE_PLUGIN"] = real;
  std::vector<LoadReportEntry> refused;
  std::vector<PluginCandidate> found = DiscoverPlugins(
      nullptr, {{link, "api"}, {real, "api2", /*required=*/true, pin}}, Env(), &refused);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].path, real);
  EXPECT_EQ(found[0].origin, "api") << "the first occurrence wins";
  EXPECT_TRUE(found[0].required) << "required if any duplicate is";
  EXPECT_EQ(found[0].sha256, pin) << "a later pin applies when the first had none";
  EXPECT_THAT(refused, IsEmpty());
}

TEST_F(DiscoveryTest, ConflictingPinsRefuseTheFile) {
  const std::string real = File(Dir("d") + "/libteplug_a.so");
  std::vector<LoadReportEntry> refused;
  std::vector<PluginCandidate> found = DiscoverPlugins(
      nullptr, {{real, "api", false, std::string(64, 'a')}, {real, "api", false, std::string(64, 'b')}},
      Env(), &refused);
  EXPECT_THAT(found, IsEmpty());
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_THAT(refused[0].reason, HasSubstr("different sha256 pins"));
}

TEST_F(DiscoveryTest, NoneDisablesEnvironmentDiscoveryOnly) {
  const std::string d = Dir("d");
  const std::string api = File(d + "/libteplug_api.so");
  File(d + "/libteplug_env.so");
  env_["TEPLUG_PLUGINS"] = "none";
  env_["TEPLUG_PLUGIN_PATH"] = d;
  env_["NVTE_PLUGIN"] = d + "/libteplug_env.so";
  std::vector<LoadReportEntry> refused;
  std::vector<PluginCandidate> found = DiscoverPlugins(nullptr, {{api, "api"}}, Env(), &refused);
  EXPECT_THAT(Paths(found), ElementsAre(api));
  EXPECT_THAT(refused, IsEmpty());
}

TEST_F(DiscoveryTest, MissingFilesAndDirectoriesBecomeRefusedEntries) {
  const std::string d = Dir("d");
  const std::string present = File(d + "/libteplug_ok.so");
  env_["TEPLUG_PLUGINS"] = d + "/libteplug_gone.so::" + present;  // empty element skipped
  env_["TEPLUG_PLUGIN_PATH"] = d + "/no_such_dir";
  std::vector<LoadReportEntry> refused;
  auto sink = std::make_shared<std::vector<std::string>>();
  auto logger = std::make_shared<Logger>(
      LogLevel::kWarn, [sink](LogLevel, absl::string_view line) { sink->emplace_back(line); });
  std::vector<PluginCandidate> found = DiscoverPlugins(
      nullptr, {{d + "/libteplug_required.so", "api", /*required=*/true}}, Env(), &refused, logger);
  EXPECT_THAT(Paths(found), ElementsAre(present));
  ASSERT_EQ(refused.size(), 3u);
  // The API entry is listed first (discovery order), then the environment.
  EXPECT_EQ(refused[0].path, d + "/libteplug_required.so");
  EXPECT_EQ(refused[0].origin, "api");
  EXPECT_TRUE(refused[0].required);
  EXPECT_EQ(refused[0].reason,
            "cannot resolve " + d + "/libteplug_required.so: No such file or directory");
  EXPECT_EQ(refused[1].path, d + "/libteplug_gone.so");
  EXPECT_EQ(refused[1].origin, "TEPLUG_PLUGINS");
  EXPECT_FALSE(refused[1].loaded);
  EXPECT_EQ(refused[2].origin, "TEPLUG_PLUGIN_PATH " + d + "/no_such_dir");
  EXPECT_THAT(refused[2].reason, HasSubstr("cannot read plugin directory"));
  ASSERT_EQ(sink->size(), 3u) << "one WARN per refused entry";
  EXPECT_EQ((*sink)[1], "teplug WARN: plugin " + d + "/libteplug_gone.so (TEPLUG_PLUGINS) refused: "
                        "cannot resolve " + d + "/libteplug_gone.so: No such file or directory");
}

// Paths may hold any byte: a candidate keeps its raw path (it is opened by
// it), a refused entry and its WARN line show it escaped, on one line.
TEST_F(DiscoveryTest, RefusedPathsAreEscapedAndFoundPathsKeptRaw) {
  // No ':' in the name: TEPLUG_PLUGINS and TEPLUG_PLUGIN_PATH are ':' lists.
  const std::string d = Dir("d\nteplug WARN \x1b[2J\xff");
  const std::string present = File(d + "/libteplug_ok.so");
  const std::string shown = root_ + "/d\\x0ateplug WARN \\x1b[2J\\xff";
  env_["TEPLUG_PLUGINS"] = d + "/libteplug_gone.so:" + present;
  env_["TEPLUG_PLUGIN_PATH"] = d + "/no_such_dir";
  std::vector<LoadReportEntry> refused;
  auto sink = std::make_shared<std::vector<std::string>>();
  auto logger = std::make_shared<Logger>(
      LogLevel::kWarn, [sink](LogLevel, absl::string_view line) { sink->emplace_back(line); });
  std::vector<PluginCandidate> found = DiscoverPlugins(nullptr, {}, Env(), &refused, logger);
  EXPECT_THAT(Paths(found), ElementsAre(present));
  ASSERT_EQ(refused.size(), 2u);
  EXPECT_EQ(refused[0].path, shown + "/libteplug_gone.so");
  EXPECT_EQ(refused[0].reason,
            "cannot resolve " + shown + "/libteplug_gone.so: No such file or directory");
  EXPECT_EQ(refused[1].origin, "TEPLUG_PLUGIN_PATH " + shown + "/no_such_dir");
  EXPECT_EQ(refused[1].path, shown + "/no_such_dir");
  EXPECT_THAT(refused[1].reason, HasSubstr("cannot read plugin directory " + shown + "/no_such_dir"));
  ASSERT_EQ(sink->size(), 2u);
  EXPECT_EQ((*sink)[0], "teplug WARN: plugin " + shown + "/libteplug_gone.so (TEPLUG_PLUGINS) "
                        "refused: cannot resolve " + shown + "/libteplug_gone.so: No such file or "
                        "directory");
}

TEST_F(DiscoveryTest, SecureEnvReadsTheProcessEnvironment) {
  ASSERT_EQ(::setenv("TEPLUG_DISCOVERY_TEST_VAR", "value1", 1), 0);
  EnvLookup env = SecureEnv();
  EXPECT_EQ(env("TEPLUG_DISCOVERY_TEST_VAR"), std::optional<std::string>("value1"));
  ::unsetenv("TEPLUG_DISCOVERY_TEST_VAR");
  EXPECT_EQ(env("TEPLUG_DISCOVERY_TEST_VAR"), std::nullopt);
}

}  // namespace
}  // namespace teplug::core
