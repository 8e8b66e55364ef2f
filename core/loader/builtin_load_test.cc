// LoadBuiltin runs a linked-in entry through the same transaction: a good
// built-in becomes a builtin Provider without a library; a throwing or
// misbehaving one is refused with one WARN and its object released.
#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/loader/plugin_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "teplug/sdk/implement.hpp"
#include "teplug/sdk/plugin.hpp"

namespace teplug::core {
namespace {

using ::testing::HasSubstr;

std::atomic<int> g_live_objects{0};

class LiveGemm : public sdk::GemmImpl {
 public:
  LiveGemm() { ++g_live_objects; }
  ~LiveGemm() override { --g_live_objects; }
  void Gemm(const TeplugGemmArgs&) override {}
};

const TeplugDeviceSupport kCpu[] = {{sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CPU, 0, 0, 0}};
TeplugGemmCaps MakeCaps() {
  TeplugGemmCaps c = sdk::Versioned<TeplugGemmCaps>();
  c.devices = kCpu;
  c.num_devices = 1;
  c.a_dtypes = c.b_dtypes = c.d_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
  return c;
}
const TeplugGemmCaps kCaps = MakeCaps();

void RegisterOne(sdk::Registrar& r) {
  r.Register(sdk::kIidGemmV1, sdk::MakeGemm(std::make_unique<LiveGemm>()), &kCaps, "bf16", 42);
}
void RegisterThenThrow(sdk::Registrar& r) {
  RegisterOne(r);
  throw std::runtime_error("builtin gave up");
}

TeplugError* GoodEntry(const TeplugHostApi* host, TeplugPluginInfo* info) {
  if (host->plugin_path == nullptr || std::string(host->plugin_path) != "built-in") {
    return teplug_error_create(TEPLUG_INTERNAL, "built-ins get plugin_path \"built-in\"");
  }
  return sdk::RunPluginEntry(host, info, "good_builtin", "tests", "1", TEPLUG_ABI_VERSION_CURRENT,
                             TEPLUG_ABI_VERSION_CURRENT, RegisterOne);
}
TeplugError* ThrowingEntry(const TeplugHostApi* host, TeplugPluginInfo* info) {
  return sdk::RunPluginEntry(host, info, "throwing_builtin", "tests", "1",
                             TEPLUG_ABI_VERSION_CURRENT, TEPLUG_ABI_VERSION_CURRENT,
                             RegisterThenThrow);
}

std::shared_ptr<Logger> Capture(std::vector<std::string>* lines) {
  return std::make_shared<Logger>(LogLevel::kDebug, [lines](LogLevel level, absl::string_view l) {
    if (level == LogLevel::kWarn) lines->emplace_back(l);
  });
}

TEST(BuiltinLoadTest, GoodBuiltinLoadsWithoutLibrary) {
  std::vector<std::string> warnings;
  {
    absl::StatusOr<LoadedProvider> loaded = LoadBuiltin(
        {"good", &GoodEntry}, LoadPolicy{}, ProviderNameTaken(),
        Capture(&warnings));
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_TRUE(loaded->provider->builtin);
    EXPECT_EQ(loaded->provider->source, "built-in");
    EXPECT_EQ(loaded->provider->library, nullptr);
    EXPECT_EQ(loaded->provider->name, "good_builtin");
    ASSERT_EQ(loaded->implementations.size(), 1u);
    EXPECT_EQ(loaded->implementations[0]->default_priority, 42);
    EXPECT_EQ(g_live_objects.load(), 1);
    LoadReportEntry e = LoadedReportEntry(BuiltinCandidate({"good", &GoodEntry}), *loaded);
    EXPECT_EQ(e.path, "built-in");
    EXPECT_EQ(e.origin, "built-in good");
  }
  EXPECT_EQ(g_live_objects.load(), 0) << "the host's reference is released with the provider";
  EXPECT_TRUE(warnings.empty());
}

TEST(BuiltinLoadTest, ThrowingBuiltinIsRefusedAndRolledBack) {
  std::vector<std::string> warnings;
  absl::StatusOr<LoadedProvider> loaded =
      LoadBuiltin({"thrower", &ThrowingEntry}, LoadPolicy{},
                  ProviderNameTaken(), Capture(&warnings));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            "built-in provider thrower refused: teplug_plugin_entry returned internal: builtin "
            "gave up");
  EXPECT_EQ(g_live_objects.load(), 0);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "teplug WARN: " + std::string(loaded.status().message()));
}

TEST(BuiltinLoadTest, HostAbiRangeIsOfferedAndChecked) {
  std::vector<std::string> warnings;
  LoadPolicy newer_host;
  newer_host.host_abi_min = TEPLUG_ABI_VERSION(2, 0);
  newer_host.host_abi_max = TEPLUG_ABI_VERSION(2, 1);
  absl::StatusOr<LoadedProvider> loaded = LoadBuiltin(
      {"good", &GoodEntry}, newer_host, ProviderNameTaken(), Capture(&warnings));
  ASSERT_FALSE(loaded.ok());
  // The SDK plugin refuses itself, naming both ranges.
  EXPECT_THAT(std::string(loaded.status().message()),
              HasSubstr("abi_mismatch: plugin good_builtin supports ABI [1.0, 1.0] but the host "
                        "supports [2.0, 2.1]"));
  EXPECT_EQ(warnings.size(), 1u);
}

TEST(BuiltinLoadTest, NullEntryIsRefused) {
  std::vector<std::string> warnings;
  absl::StatusOr<LoadedProvider> loaded = LoadBuiltin(
      {"nothing", nullptr}, LoadPolicy{}, nullptr, Capture(&warnings));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(), "built-in provider nothing refused: its entry function is NULL");
  EXPECT_EQ(warnings.size(), 1u);
}

// The load report takes the bare reason from the refusal itself, not by
// searching its message, which holds a name or path that may contain
// anything (here the text the old parsing looked for).
TEST(BuiltinLoadTest, ReportKeepsTheReasonWhateverTheNameHolds) {
  std::vector<std::string> warnings;
  absl::StatusOr<LoadedProvider> loaded =
      LoadBuiltin({"odd refused: name", nullptr}, LoadPolicy{}, nullptr, Capture(&warnings));
  ASSERT_FALSE(loaded.ok());
  const LoadReportEntry e = RefusedReportEntry({"built-in", "built-in odd"}, loaded.status());
  EXPECT_EQ(e.reason, "its entry function is NULL");
  EXPECT_FALSE(e.loaded);
  EXPECT_EQ(e.origin, "built-in odd");
}

}  // namespace
}  // namespace teplug::core
