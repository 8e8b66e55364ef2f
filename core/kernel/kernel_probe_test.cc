// The pre-flight probe wired into the kernel: the config's `probe: true` and
// probe_timeout_ms, a plugin entry's own `probe: true`, KernelOptions and
// TEPLUG_PLUGIN_PROBE=1 each make the kernel refuse plugins that crash or
// hang (//tests/hostile:crashing_plugins) with the probe's reason, load the
// good ones, and go on serving GEMM.
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "core/kernel/kernel.h"
#include "core/kernel/kernel_test_support.h"
#include "core/loader/load_report.h"
#include "gtest/gtest.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"

namespace teplug::core {
namespace {

using testing::FakePlugin;
using testing::GemmCall;
using testing::IsolatedOptions;
using testing::LogCapture;
using testing::Runfile;

std::string Crashing(const std::string& name) {
  return Runfile("tests/hostile/libteplug_crashing_" + name + ".so");
}

// GEMM through the kernel's dispatching object reaches the fake "fast"
// provider (its marker is 1).
void ExpectServesGemm(const Kernel& kernel) {
  GemmCall c;
  auto gemm = kernel.Query<TeplugGemmV1>(sdk::kIidGemmV1);
  ASSERT_TRUE(gemm);
  ASSERT_TRUE(sdk::OwnedError(gemm->vtbl->gemm(gemm.get(), c.args())).ok());
  EXPECT_EQ(c.OutputMarker(), 1.f);
}

// The report entry for `path`'s file name; fails the test when there is none.
LoadReportEntry EntryFor(const Kernel& kernel, const std::string& path) {
  const std::string file = path.substr(path.find_last_of('/') + 1);
  for (const LoadReportEntry& e : kernel.LoadReport()) {
    if (e.path.size() >= file.size() && e.path.compare(e.path.size() - file.size(), file.size(), file) == 0) {
      return e;
    }
  }
  ADD_FAILURE() << "no load report entry for " << path;
  return {};
}

// ThreadSanitizer's allocator does not detect a double free: under it the
// heap-corruption plugin passes the probe and would corrupt this process.
#if defined(__SANITIZE_THREAD__)
constexpr bool kAllocatorDetectsDoubleFree = false;
#else
constexpr bool kAllocatorDetectsDoubleFree = true;
#endif

TEST(KernelProbeTest, ConfigProbeRefusesCrashingPluginsAndKeepsServing) {
  LogCapture log;
  std::vector<std::string> crashing = {Crashing("exit_in_constructor"), Crashing("segfault_in_entry"),
                                       Crashing("abort_in_entry"), Crashing("spin_in_entry")};
  if (kAllocatorDetectsDoubleFree) crashing.push_back(Crashing("heap_corruption_in_entry"));
  std::vector<std::string> plugins = crashing;
  plugins.push_back(FakePlugin("fast"));
  KernelOptions opts = IsolatedOptions(plugins, "probe: true\nprobe_timeout_ms: 1000\n");
  opts.log_sink = log.sink();
  auto k = Kernel::Create(std::move(opts));
  ASSERT_TRUE(k.ok()) << k.status();
  for (const std::string& path : crashing) {
    SCOPED_TRACE(path);
    const LoadReportEntry e = EntryFor(**k, path);
    EXPECT_FALSE(e.loaded);
    EXPECT_EQ(e.reason.rfind("pre-flight probe: ", 0), 0u) << e.reason;
  }
  EXPECT_EQ(EntryFor(**k, Crashing("spin_in_entry")).reason,
            "pre-flight probe: no answer within 1000 ms (during teplug_plugin_entry); the child was killed");
  EXPECT_TRUE(EntryFor(**k, FakePlugin("fast")).loaded);
  EXPECT_EQ(log.Count("refused: pre-flight probe: "), static_cast<int>(crashing.size())) << log.All();
  ExpectServesGemm(**k);
}

TEST(KernelProbeTest, APluginEntryAsksForTheProbeAlone) {
  LogCapture log;
  KernelOptions opts = IsolatedOptions(
      {FakePlugin("fast")}, "plugins { path: \"" + Crashing("abort_in_entry") + "\" probe: true }\n");
  opts.log_sink = log.sink();
  auto k = Kernel::Create(std::move(opts));
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(EntryFor(**k, Crashing("abort_in_entry")).reason,
            "pre-flight probe: killed by SIGABRT during teplug_plugin_entry");
  ExpectServesGemm(**k);
}

TEST(KernelProbeTest, OptionProbesPluginsLoadedAtRunTime) {
  KernelOptions opts = IsolatedOptions({FakePlugin("fast")});
  opts.probe_plugins = true;
  opts.probe_timeout = absl::Milliseconds(200);
  auto k = Kernel::Create(std::move(opts));
  ASSERT_TRUE(k.ok()) << k.status();
  absl::Status st = (*k)->LoadPlugin(Crashing("spin_in_entry"));
  EXPECT_EQ(st.code(), absl::StatusCode::kDeadlineExceeded) << st;
  EXPECT_NE(std::string(st.message()).find("no answer within 200 ms"), std::string::npos) << st;
  ExpectServesGemm(**k);
}

// Environment lookup for the tests: TEPLUG_PLUGIN_PROBE as given, discovery off.
EnvLookup ProbeEnv(std::string value) {
  return [value](const char* name) -> std::optional<std::string> {
    if (std::string(name) == "TEPLUG_PLUGIN_PROBE") return value;
    if (std::string(name) == "TEPLUG_PLUGINS") return std::string("none");
    return std::nullopt;
  };
}

TEST(KernelProbeTest, EnvironmentTurnsTheProbeOn) {
  KernelOptions opts = IsolatedOptions({FakePlugin("fast")});
  opts.use_environment = true;
  opts.env = ProbeEnv("1");
  auto k = Kernel::Create(std::move(opts));
  ASSERT_TRUE(k.ok()) << k.status();
  absl::Status st = (*k)->LoadPlugin(Crashing("segfault_in_entry"));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("refused: pre-flight probe: "), std::string::npos) << st;
  ExpectServesGemm(**k);
}

TEST(KernelProbeTest, UnknownEnvironmentValueIsAWarning) {
  LogCapture log;
  KernelOptions opts = IsolatedOptions({FakePlugin("fast")});
  opts.use_environment = true;
  opts.env = ProbeEnv("yes\n");
  opts.log_sink = log.sink();
  auto k = Kernel::Create(std::move(opts));
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(log.Count("TEPLUG_PLUGIN_PROBE=yes\\x0a is neither 1 nor 0"), 1) << log.All();
}

}  // namespace
}  // namespace teplug::core
