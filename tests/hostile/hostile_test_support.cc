#include "tests/hostile/hostile_test_support.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

#include "gtest/gtest.h"
#include "tests/hostile/ref_counters.h"
#include "tools/cpp/runfiles/runfiles.h"

namespace teplug::testing {

using bazel::tools::cpp::runfiles::Runfiles;

std::string PluginPath(const std::string& package, const std::string& name) {
  std::string error;
  std::unique_ptr<Runfiles> runfiles(Runfiles::CreateForTest(&error));
  EXPECT_NE(runfiles, nullptr) << error;
  if (runfiles == nullptr) return "";
  return runfiles->Rlocation("teplug/" + package + "/libteplug_" + name + ".so");
}

std::vector<std::string> RefusedPlugins() {
  std::string error;
  std::unique_ptr<Runfiles> runfiles(Runfiles::CreateForTest(&error));
  EXPECT_NE(runfiles, nullptr) << error;
  if (runfiles == nullptr) return {};
  const std::string list = runfiles->Rlocation("teplug/tests/hostile/refused_plugins.txt");
  std::ifstream in(list);
  EXPECT_TRUE(in.good()) << "cannot read " << list;
  std::vector<std::string> paths;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) paths.push_back(line);
  }
  EXPECT_FALSE(paths.empty()) << list << " lists no plugin";
  return paths;
}

std::string RealPath(const std::string& path) {
  char buffer[PATH_MAX];
  return ::realpath(path.c_str(), buffer) != nullptr ? std::string(buffer) : std::string();
}

bool IsLoaded(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  dlclose(handle);
  return true;
}

std::string MakeTempDir(const std::string& name) {
  const char* root = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(root != nullptr ? root : "/tmp") + "/" + name;
  ::mkdir(dir.c_str(), 0755);
  EXPECT_EQ(::chmod(dir.c_str(), 0755), 0) << dir;
  return dir;
}

void CopyFile(const std::string& from, const std::string& to, unsigned mode) {
  {
    std::ifstream in(from, std::ios::binary);
    ASSERT_TRUE(in.good()) << "cannot read " << from;
    std::ofstream out(to, std::ios::binary | std::ios::trunc);
    out << in.rdbuf();
    ASSERT_TRUE(out.good()) << "cannot write " << to;
  }
  ASSERT_EQ(::chmod(to.c_str(), mode), 0) << to;
}

LogCapture::LogCapture() : shared_(std::make_shared<Shared>()) {
  std::shared_ptr<Shared> shared = shared_;
  logger_ = std::make_shared<core::Logger>(
      core::LogLevel::kDebug, [shared](core::LogLevel level, absl::string_view line) {
        absl::MutexLock lock(&shared->mutex);
        shared->lines.emplace_back(level, std::string(line));
      });
}

std::vector<std::string> LogCapture::Lines(core::LogLevel level) const {
  absl::MutexLock lock(&shared_->mutex);
  std::vector<std::string> out;
  for (const auto& [l, line] : shared_->lines) {
    if (l == level) out.push_back(line);
  }
  return out;
}

std::vector<std::string> LogCapture::AllLines() const {
  absl::MutexLock lock(&shared_->mutex);
  std::vector<std::string> out;
  for (const auto& entry : shared_->lines) out.push_back(entry.second);
  return out;
}

RefCounts RefCounts::Now() {
  return {__atomic_load_n(&teplug_hostile_acquired, __ATOMIC_SEQ_CST),
          __atomic_load_n(&teplug_hostile_released, __ATOMIC_SEQ_CST)};
}

}  // namespace teplug::testing
