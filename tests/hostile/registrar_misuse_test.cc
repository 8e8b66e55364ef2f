// Registrar misuse that must neither corrupt the host nor let a registration
// through: a plugin that keeps the registrar and calls it after its entry
// returned (at op time, from the op's thread and from a thread it started),
// and a plugin that registers from several threads during its entry; and
// the same for the log function: a plugin that keeps host->log and calls it
// from its own thread after it was unloaded. Run
// under --config=asan and --config=tsan as well: nothing may touch the
// loader's dead stack frames or race on its staging state.
#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "core/kernel/kernel.h"
#include "core/kernel/kernel_test_support.h"
#include "core/loader/plugin_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "tests/hostile/hostile_test_support.h"
#include "tests/hostile/ref_counters.h"

// Stack-use-after-return is what a registrar on the loader's stack produced;
// AddressSanitizer reports it only with this option.
extern "C" const char* __asan_default_options() { return "detect_stack_use_after_return=1"; }

namespace teplug::core {
namespace {

using teplug::testing::kNoneTaken;
using teplug::testing::RefCounts;
using ::testing::HasSubstr;

constexpr char kLate[] = "register_implementation called after teplug_plugin_entry returned";

// Fills the stack below the caller with a pattern, so that a pointer into
// the loader's dead frames reads garbage even in a build without
// AddressSanitizer.
ABSL_ATTRIBUTE_NOINLINE void ScrubStack() {
  volatile unsigned char junk[256 * 1024];
  for (size_t i = 0; i < sizeof junk; ++i) junk[i] = 0xA5;
}

std::unique_ptr<Kernel> KernelWith(const std::string& plugin) {
  auto k = Kernel::Create(testing::IsolatedOptions({testing::Runfile(plugin)}));
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *std::move(k) : nullptr;
}

std::vector<std::string> ImplementationNames(const Kernel& kernel) {
  std::vector<std::string> names;
  for (const ProviderListing& p : kernel.ListProviders()) {
    for (const ImplementationListing& i : p.implementations) names.push_back(i.name);
  }
  return names;
}

// The late call the plugin's gemm makes for `alpha` (1: from the calling
// thread, 2: from the plugin's own thread), as the caller sees it.
sdk::OwnedError LateCall(const Kernel& kernel, float alpha) {
  testing::GemmCall call(alpha);
  auto gemm = kernel.Query<TeplugGemmV1>(sdk::kIidGemmV1);
  EXPECT_NE(gemm.get(), nullptr);
  if (gemm.get() == nullptr) return sdk::OwnedError();
  ScrubStack();
  return sdk::OwnedError(gemm->vtbl->gemm(gemm.get(), call.args()));
}

// Where the plugin makes its late call: the gemm's alpha selects it.
struct LateCaller {
  const char* name;
  float alpha;
};
std::string CallerName(const ::testing::TestParamInfo<LateCaller>& info) { return info.param.name; }

class LateRegistrarTest : public ::testing::TestWithParam<LateCaller> {};

TEST_P(LateRegistrarTest, IsRefusedAndRegistersNothing) {
  std::unique_ptr<Kernel> kernel = KernelWith("tests/hostile/libteplug_hostile_late.so");
  ASSERT_NE(kernel, nullptr);
  for (int attempt = 0; attempt < 2; ++attempt) {
    sdk::OwnedError late = LateCall(*kernel, GetParam().alpha);
    EXPECT_EQ(late.code(), TEPLUG_FAILED_PRECONDITION) << late.message();
    EXPECT_THAT(late.message(), HasSubstr(kLate));
  }
  EXPECT_EQ(ImplementationNames(*kernel), std::vector<std::string>{"hostile_late/keeps-registrar"});
}

INSTANTIATE_TEST_SUITE_P(Callers, LateRegistrarTest,
                         ::testing::Values(LateCaller{"FromTheOpsThread", 1.f},
                                           LateCaller{"FromAThreadThatOutlivedTheEntry", 2.f}),
                         CallerName);

// Three kernels load the plugin (one library instance, three entry calls):
// its late calls go to all three registrars, after later loads reused the
// stack and the heap, and each refuses.
TEST(LateRegistrarsTest, EveryEarlierLoadsRegistrarStaysRefusing) {
  std::vector<std::unique_ptr<Kernel>> kernels;
  for (int i = 0; i < 3; ++i) {
    kernels.push_back(KernelWith("tests/hostile/libteplug_hostile_late.so"));
    ASSERT_NE(kernels.back(), nullptr);
  }
  for (const auto& kernel : kernels) {
    EXPECT_EQ(LateCall(*kernel, 1.f).code(), TEPLUG_FAILED_PRECONDITION);
    EXPECT_EQ(LateCall(*kernel, 2.f).code(), TEPLUG_FAILED_PRECONDITION);
  }
}

TEST(ThreadedRegistrationTest, EveryRegistrationFromEightThreadsLandsExactlyOnce) {
  const std::string path =
      teplug::testing::RealPath(teplug::testing::PluginPath("tests/hostile", "hostile_threaded"));
  const RefCounts before = RefCounts::Now();
  {
    absl::StatusOr<LoadedProvider> loaded = LoadPluginFile(
        {path, "api"}, LoadPolicy{}, kNoneTaken, nullptr);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    std::multiset<std::string> names;
    for (const auto& impl : loaded->implementations) names.insert(impl->name);
    std::multiset<std::string> expected;
    for (int t = 0; t < 8; ++t) {
      for (int i = 0; i < 32; ++i) expected.insert(absl::StrCat("t", t, "-", i));
    }
    EXPECT_EQ(names, expected);
    EXPECT_EQ(RefCounts::Now().Since(before).held(), 256) << "one host reference per registration";
  }
  EXPECT_EQ(RefCounts::Now().Since(before).held(), 0);
}

// The same plugin through a kernel, several times over: each load commits
// all 256 registrations.
TEST(ThreadedRegistrationTest, LoadsCompletelyIntoAKernelEveryTime) {
  for (int round = 0; round < 5; ++round) {
    std::unique_ptr<Kernel> kernel = KernelWith("tests/hostile/libteplug_hostile_threaded.so");
    ASSERT_NE(kernel, nullptr);
    const std::vector<std::string> names = ImplementationNames(*kernel);
    EXPECT_EQ(names.size(), 256u);
    EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), 256u);
  }
}

// A plugin thread that keeps calling its kept registrar must not hang the
// pre-flight probe of another plugin: the forked child has only the forking
// thread, so a lock the hammering thread held at the fork would never be
// released there, and the probe would refuse the good plugin by its timeout.
TEST(LateRegistrarsTest, AKeptRegistrarHammeredFromThreadsDoesNotHangTheProbe) {
  std::unique_ptr<Kernel> kernel = KernelWith("tests/hostile/libteplug_hostile_late.so");
  ASSERT_NE(kernel, nullptr);
  auto gemm = kernel->Query<TeplugGemmV1>(sdk::kIidGemmV1);
  ASSERT_NE(gemm.get(), nullptr);
  std::atomic<bool> stop{false};
  std::vector<std::thread> hammers;
  for (int t = 0; t < 4; ++t) {
    hammers.emplace_back([&] {
      testing::GemmCall call(1.f);
      while (!stop.load(std::memory_order_relaxed)) sdk::OwnedError(gemm->vtbl->gemm(gemm.get(), call.args()));
    });
  }
  const std::string good =
      teplug::testing::RealPath(teplug::testing::PluginPath("tests/hostile", "hostile_good"));
  LoadPolicy policy;
  policy.probe = true;
  policy.probe_timeout = absl::Seconds(5);  // a busy machine may be slow; a deadlocked child is never done
  int refused = 0;
  std::string first;
  for (int i = 0; i < 40; ++i) {
    absl::StatusOr<LoadedProvider> loaded =
        LoadPluginFile({good, "api"}, policy, kNoneTaken, std::make_shared<Logger>(LogLevel::kError, [](LogLevel, absl::string_view) {}));
    if (!loaded.ok() && refused++ == 0) first = std::string(loaded.status().message());
  }
  stop = true;
  for (std::thread& t : hammers) t.join();
  EXPECT_EQ(refused, 0) << "first: " << first;
}

// Makes hostile_late_log's thread call its kept host->log once, and waits
// until the call returned (false after 10 s).
bool LateLogOnce() {
  const int64_t calls = __atomic_load_n(&teplug_hostile_late_log_calls, __ATOMIC_ACQUIRE);
  __atomic_add_fetch(&teplug_hostile_late_log_requests, 1, __ATOMIC_RELEASE);
  for (int i = 0; i < 10000; ++i) {
    if (__atomic_load_n(&teplug_hostile_late_log_calls, __ATOMIC_ACQUIRE) > calls) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

TEST(LateLogTest, ALogCallAfterUnloadIsDroppedAndReportedOnce) {
  const std::string path =
      teplug::testing::RealPath(teplug::testing::PluginPath("tests/hostile", "hostile_late_log"));
  teplug::testing::LogCapture log;
  {
    absl::StatusOr<LoadedProvider> loaded =
        LoadPluginFile({path, "api"}, LoadPolicy{}, kNoneTaken, log.logger());
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    // While loaded, a line from the plugin's own thread reaches the logger.
    ASSERT_TRUE(LateLogOnce());
    EXPECT_THAT(log.Lines(LogLevel::kWarn),
                ::testing::ElementsAre(
                    "teplug WARN: plugin hostile_late_log: hostile_late_log: logging after my unload"));
  }  // unloaded: the provider and its log context are gone; the code stays mapped
  ASSERT_TRUE(teplug::testing::IsLoaded(path)) << "linked with -z nodelete, it must stay mapped";
  const size_t lines = log.AllLines().size();
  ::testing::internal::CaptureStderr();
  const bool first = LateLogOnce();
  const bool second = LateLogOnce();
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(first && second);
  EXPECT_EQ(log.AllLines().size(), lines) << "a line logged after the unload reached the logger";
  EXPECT_EQ(err,
            "teplug ERROR: plugin hostile_late_log called host->log after it was refused or unloaded; "
            "this line and every later one are dropped\n");
}

}  // namespace
}  // namespace teplug::core
