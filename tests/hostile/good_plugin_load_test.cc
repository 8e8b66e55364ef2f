// Well-behaved plugins load: the README's example plugins (C99 and C++ SDK)
// and the counted hostile_good. Checks the Provider, each Implementation
// (kind, name, priority, copied capability, supports hook, usable object),
// plugin log lines, the references held while loaded and their release.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "core/ops/attention.h"
#include "core/ops/collective.h"
#include "core/ops/gemm.h"
#include "core/ops/modules.h"
#include "core/ops/quantizer.h"
#include "gtest/gtest.h"
#include "core/loader/plugin_loader.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "tests/hostile/hostile_test_support.h"

namespace teplug::core {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using teplug::testing::IsLoaded;
using teplug::testing::LogCapture;
using teplug::testing::PluginPath;
using teplug::testing::RealPath;
using teplug::testing::RefCounts;

using teplug::testing::kNoneTaken;

class ExamplePluginTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ExamplePluginTest, LoadsWithItsGemm) {
  const std::string path = RealPath(PluginPath("interfaces/examples", GetParam()));
  LogCapture log;
  absl::StatusOr<LoadedProvider> loaded =
      LoadPluginFile({path, "api"}, LoadPolicy{}, kNoneTaken, log.logger());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const Provider& p = *loaded->provider;
  EXPECT_EQ(p.name, GetParam());
  EXPECT_EQ(p.vendor, "teplug examples");
  EXPECT_EQ(p.version, "1.0.0");
  EXPECT_EQ(p.abi_min, TEPLUG_ABI_VERSION_MAJOR_FIRST);
  EXPECT_FALSE(p.builtin);
  EXPECT_EQ(p.source, path);
  ASSERT_NE(p.library, nullptr);
  EXPECT_EQ(p.library->path(), path);
  ASSERT_EQ(loaded->implementations.size(), 1u);
  const Implementation& impl = *loaded->implementations[0];
  EXPECT_EQ(impl.module, &GemmModule());
  EXPECT_EQ(impl.name, "naive-fp32");
  EXPECT_EQ(impl.QualifiedName(), GetParam() + "/naive-fp32");
  EXPECT_EQ(impl.default_priority, 10);
  EXPECT_EQ(impl.capability.As<TeplugGemmCaps>().a_dtypes, TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32));
  EXPECT_EQ(impl.capability.As<TeplugGemmCaps>().alignment, 4);
  ASSERT_EQ(impl.capability.devices.size(), 1u);
  EXPECT_EQ(impl.capability.devices[0].kind, TEPLUG_DEVICE_CPU);
  ASSERT_NE(impl.supports, nullptr);
  // The hook works through the loaded object: GELU is declined with a reason.
  TeplugGemmArgs args = sdk::Versioned<TeplugGemmArgs>();
  args.epilogue = TEPLUG_EPILOGUE_GELU;
  char reason[128] = {};
  EXPECT_EQ(impl.supports(impl.object.get(), TEPLUG_OP_GEMM, &args, reason, sizeof reason), 0);
  EXPECT_THAT(std::string(reason), HasSubstr("epilogue"));
  // The plugin's DEBUG line went through our logger, prefixed with the plugin.
  EXPECT_THAT(log.Lines(LogLevel::kDebug),
              ElementsAre("teplug DEBUG: plugin libteplug_" + GetParam() + ".so: " + GetParam() +
                          ": registering IGemm/1"));
  EXPECT_TRUE(log.Lines(LogLevel::kWarn).empty());

  LoadReportEntry entry = LoadedReportEntry({path, "api"}, *loaded);
  EXPECT_TRUE(entry.loaded);
  EXPECT_EQ(entry.provider, GetParam());
  EXPECT_THAT(entry.implementations, ElementsAre("gemm/naive-fp32"));
}

INSTANTIATE_TEST_SUITE_P(Examples, ExamplePluginTest,
                         ::testing::Values("minimal_c", "minimal_cpp"));

// Legal extremes: priorities INT32_MIN/MAX and struct sizes SIZE_MAX load as
// they are; log calls with a NULL message, out-of-range levels and a 1 MiB
// message are clamped and bounded like any plugin text.
TEST(GoodPluginTest, ExtremeValuesLoadAndOddLogCallsAreBounded) {
  const std::string path = RealPath(PluginPath("tests/hostile", "hostile_extreme_values"));
  LogCapture log;
  absl::StatusOr<LoadedProvider> loaded = LoadPluginFile({path, "api"}, LoadPolicy{}, kNoneTaken, log.logger());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->implementations.size(), 2u);
  EXPECT_EQ(loaded->implementations[0]->default_priority, INT32_MAX);
  EXPECT_EQ(loaded->implementations[1]->default_priority, INT32_MIN);
  const std::string prefix = "plugin libteplug_hostile_extreme_values.so: ";
  EXPECT_THAT(log.Lines(LogLevel::kError),
              ElementsAre("teplug ERROR: " + prefix + "(null)", "teplug ERROR: " + prefix + "level INT32_MIN"));
  const std::vector<std::string> warnings = log.Lines(LogLevel::kWarn);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "teplug WARN: " + prefix + std::string(4096, 'x') + "...");
}

// A plugin built against newer headers that writes past the struct_size of
// the TeplugPluginInfo the host allocated (64 bytes here) writes into room
// the host left for it, not into the host's stack (AddressSanitizer: a
// stack-buffer-overflow otherwise).
TEST(GoodPluginTest, WritesPastTheInfoStructSizeLandInRoomTheHostLeft) {
  const std::string path = RealPath(PluginPath("tests/hostile", "hostile_info_overrun"));
  LogCapture log;
  absl::StatusOr<LoadedProvider> loaded = LoadPluginFile({path, "api"}, LoadPolicy{}, kNoneTaken, log.logger());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->provider->name, "hostile_info_overrun");
  ASSERT_EQ(loaded->implementations.size(), 1u);
}

TEST(GoodPluginTest, HoldsOneReferencePerImplementationUntilReleased) {
  const std::string path = RealPath(PluginPath("tests/hostile", "hostile_good"));
  LogCapture log;
  const RefCounts before = RefCounts::Now();
  {
    absl::StatusOr<LoadedProvider> loaded =
        LoadPluginFile({path, "TEPLUG_PLUGIN_PATH /x"}, LoadPolicy{}, kNoneTaken, log.logger());
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ(loaded->provider->name, "hostile_good");
    ASSERT_EQ(loaded->implementations.size(), 2u);
    EXPECT_EQ(loaded->implementations[0]->module, &GemmModule());
    EXPECT_EQ(loaded->implementations[0]->name, "counted-gemm");
    EXPECT_EQ(loaded->implementations[1]->module, &QuantizerModule());
    EXPECT_EQ(loaded->implementations[1]->name, "counted-quantizer");
    EXPECT_EQ(loaded->implementations[1]->default_priority, 7);
    EXPECT_EQ(loaded->implementations[1]->capability.As<TeplugQuantizerCaps>().scaling_modes,
              TEPLUG_SCALING_BIT(TEPLUG_SCALING_PER_TENSOR));
    EXPECT_EQ(loaded->implementations[1]->supports, nullptr);
    EXPECT_EQ(RefCounts::Now().Since(before).held(), 2) << "one host reference per implementation";
    EXPECT_TRUE(IsLoaded(path));
    // After the commit, plugin log lines carry the provider name.
    EXPECT_THAT(log.Lines(LogLevel::kInfo),
                ElementsAre("teplug INFO: plugin libteplug_hostile_good.so: registering 2 "
                            "implementations"));
    // Implementations keep the provider (and the library) alive on their own.
    std::shared_ptr<const Implementation> kept = loaded->implementations[0];
    loaded = absl::UnknownError("dropped");
    EXPECT_TRUE(IsLoaded(path));
    EXPECT_EQ(RefCounts::Now().Since(before).held(), 1);
    EXPECT_EQ(kept->provider->name, "hostile_good");
  }
  EXPECT_EQ(RefCounts::Now().Since(before).held(), 0);
  EXPECT_FALSE(IsLoaded(path)) << "the last reference closes the library";
}

TEST(GoodPluginTest, RefusalOfALaterPluginKeepsEarlierProviders) {
  const std::string good = RealPath(PluginPath("tests/hostile", "hostile_good"));
  const std::string bad = RealPath(PluginPath("tests/hostile", "hostile_partial_then_error"));
  LogCapture log;
  absl::StatusOr<LoadedProvider> first =
      LoadPluginFile({good, "api"}, LoadPolicy{}, kNoneTaken, log.logger());
  ASSERT_TRUE(first.ok()) << first.status();
  const RefCounts before = RefCounts::Now();
  absl::StatusOr<LoadedProvider> second =
      LoadPluginFile({bad, "api"}, LoadPolicy{}, kNoneTaken, log.logger());
  ASSERT_FALSE(second.ok());
  // Every reference the refused load took came back; the earlier provider
  // still holds its two (checked by hostile_good's objects answering).
  EXPECT_EQ(RefCounts::Now().Since(before).held(), 0);
  EXPECT_TRUE(IsLoaded(good));
  EXPECT_FALSE(IsLoaded(bad));
  ASSERT_EQ(first->implementations.size(), 2u);
  EXPECT_EQ(first->implementations[0]->object->vtbl->query_interface(
                first->implementations[0]->object.get(), &sdk::kIidGemmV1),
            first->implementations[0]->object.get());
  first->implementations[0]->object->vtbl->release(first->implementations[0]->object.get());
}

}  // namespace
}  // namespace teplug::core
