// "A provider is unloaded only when no call holds a
// reference". dlopen(RTLD_NOLOAD) tells whether a plugin library is still
// mapped: it must stay mapped while a Selection, a dispatching object or a
// call in flight holds it — also after the Kernel is destroyed — and be
// unmapped as soon as the last holder lets go.
#include <dlfcn.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "core/kernel/kernel.h"
#include "core/kernel/kernel_test_support.h"
#include "gtest/gtest.h"
#include "teplug/sdk/iids.hpp"
#include "core/kernel/testing/fake_calls.h"
#include "tests/stress/gate.h"

namespace teplug::stress {

using core::testing::GemmCall;
namespace {

using core::Kernel;
using core::KernelOptions;

using core::testing::kWide;

// The canonical path of a plugin in this test's runfiles.
std::string PluginPath(const std::string& runfile) {
  const std::string path = core::testing::Runfile(runfile);
  char* real = realpath(path.c_str(), nullptr);
  if (real == nullptr) {
    ADD_FAILURE() << "cannot resolve " << path;
    return path;
  }
  std::string resolved(real);
  free(real);
  return resolved;
}
std::string Wide() { return PluginPath("core/kernel/testing/libteplug_fake_wide.so"); }
std::string Gated() { return PluginPath("tests/stress/libteplug_gated.so"); }

// Whether `path` is mapped in this process. RTLD_NOLOAD takes a reference
// when it finds the library, which we give back at once.
bool IsLoaded(const std::string& path) {
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (h == nullptr) return false;
  dlclose(h);
  return true;
}

// Each test starts a kernel with one plugin that nothing else in the process
// has loaded, and checks the plugin's library is mapped only while needed.
class ProviderUnload : public ::testing::Test {
 protected:
  // Asserts `plugin` is not mapped yet, then creates kernel_ with it.
  void Start(const std::string& plugin) {
    plugin_ = plugin;
    ASSERT_FALSE(IsLoaded(plugin_)) << "another test left " << plugin_ << " loaded";
    KernelOptions o;
    o.use_environment = false;
    o.load_builtins = false;
    o.plugin_paths = {plugin_};
    o.config_text = "log_level: \"warn\"\n";
    o.config_source_name = "unload.textproto";
    absl::StatusOr<std::unique_ptr<Kernel>> k = Kernel::Create(std::move(o));
    ASSERT_TRUE(k.ok()) << k.status();
    kernel_ = *std::move(k);
    ASSERT_TRUE(IsLoaded(plugin_));
  }
  bool PluginLoaded() const { return IsLoaded(plugin_); }

  std::string plugin_;
  std::unique_ptr<Kernel> kernel_;
};

std::string CallText(TeplugError* e) {
  if (e == nullptr) return "OK";
  std::string s = e->message != nullptr ? e->message : "(no message)";
  e->destroy(e);
  return s;
}

TEST_F(ProviderUnload, KernelAloneHoldsTheLibraryUntilDestroyed) {
  ASSERT_NO_FATAL_FAILURE(Start(Wide()));
  kernel_.reset();
  EXPECT_FALSE(PluginLoaded());
}

TEST_F(ProviderUnload, SelectionKeepsTheLibraryAfterTheKernelIsGone) {
  ASSERT_NO_FATAL_FAILURE(Start(Wide()));
  GemmCall call(1.f, 3, 4, 5, 1);
  absl::StatusOr<core::Selection> selection =
      kernel_->Select(sdk::kIidGemmV1, TEPLUG_OP_GEMM, call.args());
  ASSERT_TRUE(selection.ok()) << selection.status();

  kernel_.reset();
  ASSERT_TRUE(PluginLoaded()) << "the Selection's implementation lives in the library";
  TeplugGemmV1* gemm = selection->as<TeplugGemmV1>();
  EXPECT_EQ(CallText(gemm->vtbl->gemm(gemm, call.args())), "OK");
  EXPECT_EQ(call.OutputMarker(), kWide);

  selection = absl::CancelledError("released");  // drops the last reference
  EXPECT_FALSE(PluginLoaded());
}

TEST_F(ProviderUnload, DispatchObjectKeepsTheLibraryAfterTheKernelIsGone) {
  ASSERT_NO_FATAL_FAILURE(Start(Wide()));
  sdk::Ref<TeplugGemmV1> dispatcher = kernel_->Query<TeplugGemmV1>(sdk::kIidGemmV1);
  ASSERT_TRUE(dispatcher);

  kernel_.reset();
  ASSERT_TRUE(PluginLoaded());
  GemmCall call(1.f, 2, 6, 3, 2);
  EXPECT_EQ(CallText(dispatcher->vtbl->gemm(dispatcher.get(), call.args())), "OK");
  EXPECT_EQ(call.OutputMarker(), kWide);

  dispatcher = sdk::Ref<TeplugGemmV1>();
  EXPECT_FALSE(PluginLoaded());
}

TEST_F(ProviderUnload, RefusedDuplicateLoadLeavesNoExtraReference) {
  ASSERT_NO_FATAL_FAILURE(Start(Wide()));
  absl::Status again = kernel_->LoadPlugin(plugin_);
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists) << again;
  EXPECT_TRUE(PluginLoaded());
  kernel_.reset();
  EXPECT_FALSE(PluginLoaded()) << "the refused load kept a dlopen reference";
}

// A call in flight keeps its provider: a config reload waits for it (calls
// in flight finish on the state they started on), the kernel handle can go
// away meanwhile, and the library is unmapped only once the call has
// returned and the dispatching object is released.
TEST_F(ProviderUnload, CallInFlightKeepsTheLibraryThroughReloadAndKernelDestruction) {
  ASSERT_NO_FATAL_FAILURE(Start(Gated()));
  sdk::Ref<TeplugGemmV1> dispatcher = kernel_->Query<TeplugGemmV1>(sdk::kIidGemmV1);
  ASSERT_TRUE(dispatcher);

  std::atomic<int> gate{kGateClosed};
  GemmCall call(1.f, 2, 2, 2, 3);
  call.SetWorkspace(&gate, sizeof gate);
  std::future<std::string> in_flight = std::async(std::launch::async, [&] {
    return CallText(dispatcher->vtbl->gemm(dispatcher.get(), call.args()));
  });
  while (gate.load() != kGateEntered) std::this_thread::sleep_for(std::chrono::milliseconds(1));

  std::future<absl::Status> reload = std::async(std::launch::async, [&] {
    return kernel_->ReloadConfigText("rules { name: \"deny-gated\" deny: \"gated\" }\n",
                                     "reload.textproto");
  });
  // Not a timing assertion on our speed: the reload must not finish at all
  // while the call is inside the provider, however long we wait.
  EXPECT_EQ(reload.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout)
      << "the reload retired the state a call in flight is using";
  EXPECT_TRUE(PluginLoaded());

  gate.store(kGateOpen);
  EXPECT_EQ(in_flight.get(), "OK");
  EXPECT_EQ(call.OutputMarker(), kGatedMarker);
  EXPECT_TRUE(reload.get().ok());

  // The new config denies gated: a new call is refused, the library stays.
  GemmCall after(1.f, 2, 2, 2, 4);
  std::string refused = CallText(dispatcher->vtbl->gemm(dispatcher.get(), after.args()));
  EXPECT_NE(refused.find("deny-gated"), std::string::npos) << refused;

  kernel_.reset();
  EXPECT_TRUE(PluginLoaded()) << "the dispatching object still holds the kernel state";
  dispatcher = sdk::Ref<TeplugGemmV1>();
  EXPECT_FALSE(PluginLoaded());
}

}  // namespace
}  // namespace teplug::stress
