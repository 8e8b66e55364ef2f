// Where a file of this test's runfiles (a plugin in `data`) is on disk.
#ifndef TEPLUG_TESTS_STRESS_RUNFILE_PATH_H_
#define TEPLUG_TESTS_STRESS_RUNFILE_PATH_H_

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "tools/cpp/runfiles/runfiles.h"

namespace teplug::stress {

// `path` is relative to the workspace root, e.g.
// "core/kernel/testing/libteplug_fake_wide.so". Fails the running test (and
// returns "") when the runfiles cannot be found.
inline std::string RunfilePath(const std::string& path) {
  std::string error;
  std::unique_ptr<bazel::tools::cpp::runfiles::Runfiles> r(
      bazel::tools::cpp::runfiles::Runfiles::CreateForTest(&error));
  if (r == nullptr) {
    ADD_FAILURE() << "cannot find the runfiles for " << path << ": " << error;
    return "";
  }
  return r->Rlocation("teplug/" + path);
}

}  // namespace teplug::stress

#endif  // TEPLUG_TESTS_STRESS_RUNFILE_PATH_H_
