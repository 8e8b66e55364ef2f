// Locates files the config tests read (testdata/, default.textproto).
#ifndef TEPLUG_CORE_CONFIG_TESTDATA_PATH_H_
#define TEPLUG_CORE_CONFIG_TESTDATA_PATH_H_

#include <cstdlib>
#include <string>

namespace teplug::config::testing {

// The path of `relative` (e.g. "testdata/valid.textproto") inside
// core/config, under Bazel's runfiles when run by `bazel test`, else relative
// to the current directory (the repository root).
inline std::string ConfigFilePath(const std::string& relative) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir != nullptr && workspace != nullptr) {
    return std::string(srcdir) + "/" + workspace + "/core/config/" + relative;
  }
  return "core/config/" + relative;
}

}  // namespace teplug::config::testing

#endif  // TEPLUG_CORE_CONFIG_TESTDATA_PATH_H_
