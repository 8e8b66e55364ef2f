// Shared helpers for kernel tests: plugin paths, a log capture and isolated
// kernel options. The op argument builders are in testing/fake_calls.h.
#ifndef TEPLUG_CORE_KERNEL_KERNEL_TEST_SUPPORT_H_
#define TEPLUG_CORE_KERNEL_KERNEL_TEST_SUPPORT_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/kernel/kernel.h"
#include "core/kernel/testing/fake_calls.h"
#include "gtest/gtest.h"
#include "teplug/sdk/struct_io.hpp"
#include "tools/cpp/runfiles/runfiles.h"

namespace teplug::core::testing {

// Where a file of this test's runfiles (a plugin in `data`) is on disk;
// `path` is relative to the workspace root. Fails the running test (and
// returns "") when the runfiles cannot be found.
inline std::string Runfile(const std::string& path) {
  std::string error;
  std::unique_ptr<bazel::tools::cpp::runfiles::Runfiles> r(
      bazel::tools::cpp::runfiles::Runfiles::CreateForTest(&error));
  if (r == nullptr) {
    ADD_FAILURE() << "cannot find the runfiles for " << path << ": " << error;
    return "";
  }
  return r->Rlocation("teplug/" + path);
}
inline std::string FakePlugin(const std::string& name) {
  return Runfile("core/kernel/testing/libteplug_fake_" + name + ".so");
}

// Collects log lines; thread-safe.
class LogCapture {
 public:
  Logger::Sink sink() {
    return [this](LogLevel, absl::string_view line) {
      std::lock_guard<std::mutex> l(mu_);
      lines_.emplace_back(line);
    };
  }
  int Count(const std::string& needle) const {
    std::lock_guard<std::mutex> l(mu_);
    int n = 0;
    for (const auto& s : lines_) n += s.find(needle) != std::string::npos;
    return n;
  }
  std::string All() const {
    std::lock_guard<std::mutex> l(mu_);
    std::string out;
    for (const auto& s : lines_) out += s + "\n";
    return out;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> lines_;
};

inline KernelOptions IsolatedOptions(std::vector<std::string> plugins, std::string config = "") {
  KernelOptions o;
  o.use_environment = false;
  o.load_builtins = false;
  o.plugin_paths = std::move(plugins);
  o.config_text = config.empty() ? "log_level: \"warn\"\n" : std::move(config);
  o.config_source_name = "test.textproto";
  return o;
}

}  // namespace teplug::core::testing

#endif  // TEPLUG_CORE_KERNEL_KERNEL_TEST_SUPPORT_H_
