// Discovery runs at every kernel start and reload: scanning a plugin
// directory must leave nothing open behind it (each leaked directory handle
// is a file descriptor the process never gets back).
#include <dirent.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "core/loader/discovery.h"
#include "gtest/gtest.h"

namespace teplug::core {
namespace {

// Open file descriptors of this process (the count's own handle excluded).
int OpenDescriptors() {
  DIR* d = ::opendir("/proc/self/fd");
  if (d == nullptr) return -1;
  int n = 0;
  while (const dirent* e = ::readdir(d)) n += e->d_name[0] != '.';
  ::closedir(d);
  return n - 1;
}

TEST(DiscoveryResourcesTest, ScanningPluginDirectoriesLeavesNoDescriptorOpen) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/discovery_resources";
  ::mkdir(dir.c_str(), 0755);
  std::ofstream(dir + "/libteplug_a.so") << "not a library";
  const EnvLookup env = [&](const char* name) -> std::optional<std::string> {
    if (std::string(name) == "TEPLUG_PLUGIN_PATH") return dir + ":" + dir + "/missing";
    return std::nullopt;
  };
  const int before = OpenDescriptors();
  ASSERT_GT(before, 0) << "/proc/self/fd is not readable";
  for (int i = 0; i < 20; ++i) {
    std::vector<LoadReportEntry> refused;
    std::vector<PluginCandidate> found = DiscoverPlugins(nullptr, {}, env, &refused);
    ASSERT_EQ(found.size(), 1u);
    ASSERT_EQ(refused.size(), 1u);  // the missing directory
  }
  EXPECT_EQ(OpenDescriptors(), before);
}

}  // namespace
}  // namespace teplug::core
