// Shared by the plugin-loading tests: where the built plugins are, whether a
// library is still mapped, a logger that records lines, and the hostile
// plugins' reference counters.
#ifndef TEPLUG_TESTS_HOSTILE_HOSTILE_TEST_SUPPORT_H_
#define TEPLUG_TESTS_HOSTILE_HOSTILE_TEST_SUPPORT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "core/loader/plugin_loader.h"
#include "core/log/logger.h"

namespace teplug::testing {

// For loads outside a kernel: no provider name is taken yet.
inline const core::ProviderNameTaken kNoneTaken = [](absl::string_view) -> std::optional<std::string> {
  return std::nullopt;
};

// The runfiles path of a plugin built in this repository, e.g.
// PluginPath("tests/hostile", "hostile_good") or ("interfaces/examples", "minimal_c").
std::string PluginPath(const std::string& package, const std::string& name);

// The runfiles paths listed in tests/hostile/refused_plugins.txt, i.e. every
// library of //tests/hostile:refused_plugins, e.g.
// "tests/hostile/libteplug_hostile_abi_mismatch.so". Fails the running test
// (and returns what it read) when the list is missing or empty.
std::vector<std::string> RefusedPlugins();

// realpath(path), or "" when it does not resolve.
std::string RealPath(const std::string& path);

// True when the library at `path` is currently loaded in this process
// (dlopen with RTLD_NOLOAD; the probe's reference is dropped again).
bool IsLoaded(const std::string& path);

// A fresh directory under $TEST_TMPDIR with mode 0755.
std::string MakeTempDir(const std::string& name);
// Copies `from` to `to` and sets `mode`.
void CopyFile(const std::string& from, const std::string& to, unsigned mode);

// Records every line a Logger writes (level kDebug: everything).
class LogCapture {
 public:
  LogCapture();
  std::shared_ptr<core::Logger> logger() const { return logger_; }
  // The lines at exactly `level`.
  std::vector<std::string> Lines(core::LogLevel level) const;
  std::vector<std::string> AllLines() const;

 private:
  struct Shared {
    mutable absl::Mutex mutex;
    std::vector<std::pair<core::LogLevel, std::string>> lines;
  };
  std::shared_ptr<Shared> shared_;
  std::shared_ptr<core::Logger> logger_;
};

// The hostile plugins' counters (ref_counters.h) at one moment.
struct RefCounts {
  int64_t acquired = 0;
  int64_t released = 0;
  static RefCounts Now();
  RefCounts Since(const RefCounts& before) const {
    return {acquired - before.acquired, released - before.released};
  }
  int64_t held() const { return acquired - released; }
};

}  // namespace teplug::testing

#endif  // TEPLUG_TESTS_HOSTILE_HOSTILE_TEST_SUPPORT_H_
