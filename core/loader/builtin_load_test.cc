// LoadBuiltin runs a linked-in entry through the same transaction: a good
// built-in becomes a builtin Provider without a library; a throwing or
// misbehaving one is refused with one WARN and its object released.
//
// Minor ABI versions go through the same path: the host offers
// [TEPLUG_ABI_VERSION_MAJOR_FIRST, TEPLUG_ABI_VERSION_CURRENT], so a plugin
// built against 1.0 headers (which knows TeplugPluginInfo as 40 bytes and
// declares no names) still loads, a 1.1 plugin's names are read, a plugin
// whose range reaches past the host's newest minor loads, and one that needs
// a newer minor or another major is refused naming both ranges.
//
// TeplugHostApi.get_option during an entry: a provider reads the options the
// config gives it by name (the SDK's Registrar::Option and the raw call),
// within the caller's capacity and with the full length; a call before the
// provider is named, with NULL arguments or after the entry returned is
// refused with a reason.
#include <atomic>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/loader/plugin_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/implement.hpp"
#include "teplug/sdk/plugin.hpp"

namespace teplug::core {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;

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
              HasSubstr("abi_mismatch: plugin good_builtin supports ABI [1.3, 1.3] but the host "
                        "supports [2.0, 2.1]"));
  EXPECT_EQ(warnings.size(), 1u);
}

// The TeplugPluginInfo.struct_size the host passed to the last entry called.
size_t g_info_size_seen = 0;

// A plugin built against the 1.0 headers: it knows TeplugPluginInfo up to
// abi_max (40 bytes), writes only that, and declares [1.0, 1.0].
TeplugError* Abi10Entry(const TeplugHostApi* host, TeplugPluginInfo* info) {
  return sdk::Guard([&] {
    g_info_size_seen = info->struct_size;
    if (info->struct_size < TEPLUG_STRUCT_SIZE(TeplugPluginInfo, abi_max)) {
      throw sdk::Exception(TEPLUG_ABI_MISMATCH, "info predates v1.0");
    }
    info->name = "abi10";
    info->vendor = "tests";
    info->version = "1";
    info->abi_min = info->abi_max = TEPLUG_ABI_VERSION(1, 0);
    sdk::Registrar r(host);  // no info: a 1.0 plugin has no names to declare
    RegisterOne(r);
  });
}

const TeplugNamedId kKinds[] = {{1100, "gaudi"}};
const TeplugNamedId kVendors[] = {{0x1da3, "habana"}};

// A plugin built against the 1.1 headers that needs them: [1.1, 1.1], with
// the names 1.1 added.
TeplugError* Abi11Entry(const TeplugHostApi* host, TeplugPluginInfo* info) {
  return sdk::RunPluginEntry(host, info, "abi11", "tests", "1", TEPLUG_ABI_VERSION(1, 1),
                             TEPLUG_ABI_VERSION(1, 1), [](sdk::Registrar& r) {
                               if (!r.DeclareNames(kKinds, kVendors)) {
                                 throw sdk::Exception(TEPLUG_ABI_MISMATCH, "the host's info has no names");
                               }
                               RegisterOne(r);
                             });
}

// A plugin declaring [kMin, kMax] that skips its own range check, so the
// host's checks decide.
template <uint32_t kMin, uint32_t kMax>
TeplugError* EntryDeclaring(const TeplugHostApi* host, TeplugPluginInfo* info) {
  return sdk::Guard([&] {
    info->name = "ranged";
    info->vendor = "tests";
    info->version = "1";
    info->abi_min = kMin;
    info->abi_max = kMax;
    sdk::Registrar r(host, info);
    RegisterOne(r);
  });
}

absl::StatusOr<LoadedProvider> Load(TeplugPluginEntryFn entry, const LoadPolicy& policy = LoadPolicy{}) {
  std::vector<std::string> warnings;
  return LoadBuiltin({"under_test", entry}, policy, ProviderNameTaken(), Capture(&warnings));
}

TEST(BuiltinLoadTest, TheHostOffersEveryMinorOfItsMajor) {
  const LoadPolicy policy;
  EXPECT_EQ(policy.host_abi_min, TEPLUG_ABI_VERSION(1, 0));
  EXPECT_EQ(policy.host_abi_max, TEPLUG_ABI_VERSION(1, 3));
}

TEST(BuiltinLoadTest, APluginBuiltAgainstAbi10LoadsAndDeclaresNoNames) {
  g_info_size_seen = 0;
  absl::StatusOr<LoadedProvider> loaded = Load(&Abi10Entry);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(g_info_size_seen, sizeof(TeplugPluginInfo)) << "the host passes the info it knows";
  EXPECT_EQ(loaded->provider->abi_min, TEPLUG_ABI_VERSION(1, 0));
  EXPECT_EQ(loaded->provider->abi_max, TEPLUG_ABI_VERSION(1, 0));
  EXPECT_THAT(loaded->provider->device_kind_names, IsEmpty());
  EXPECT_THAT(loaded->provider->vendor_names, IsEmpty());
  EXPECT_EQ(loaded->implementations.size(), 1u);
}

TEST(BuiltinLoadTest, AnAbi11PluginsNamesAreRead) {
  absl::StatusOr<LoadedProvider> loaded = Load(&Abi11Entry);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->provider->abi_min, TEPLUG_ABI_VERSION(1, 1));
  EXPECT_THAT(loaded->provider->device_kind_names, ElementsAre(Pair(1100, "gaudi")));
  EXPECT_THAT(loaded->provider->vendor_names, ElementsAre(Pair(0x1da3u, "habana")));
}

// A host offering only [1.0, 1.0] and a plugin declaring the range the SDK's
// TEPLUG_SDK_PLUGIN declares, [1.0, current]: the ranges meet at 1.0.
TEST(BuiltinLoadTest, APluginDeclaringEveryMinorOfItsMajorLoadsOnA10Host) {
  LoadPolicy host10;
  host10.host_abi_max = TEPLUG_ABI_VERSION(1, 0);
  absl::StatusOr<LoadedProvider> loaded = Load(
      [](const TeplugHostApi* host, TeplugPluginInfo* info) {
        return sdk::RunPluginEntry(host, info, "sdk", "tests", "1", TEPLUG_ABI_VERSION_MAJOR_FIRST,
                                   TEPLUG_ABI_VERSION_CURRENT, &RegisterOne);
      },
      host10);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->provider->abi_min, TEPLUG_ABI_VERSION(1, 0));
  EXPECT_EQ(loaded->provider->abi_max, TEPLUG_ABI_VERSION(1, 3));
}

TEST(BuiltinLoadTest, APluginWhoseRangeReachesANewerMinorLoads) {
  absl::StatusOr<LoadedProvider> loaded =
      Load(&EntryDeclaring<TEPLUG_ABI_VERSION(1, 0), TEPLUG_ABI_VERSION(1, 7)>);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->provider->abi_max, TEPLUG_ABI_VERSION(1, 7));
}

TEST(BuiltinLoadTest, APluginThatNeedsANewerMinorIsRefusedNamingBothRanges) {
  absl::StatusOr<LoadedProvider> loaded =
      Load(&EntryDeclaring<TEPLUG_ABI_VERSION(1, 4), TEPLUG_ABI_VERSION(1, 5)>);
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr("[1.0, 1.3]"));
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr("[1.4, 1.5]"));
}

TEST(BuiltinLoadTest, ANewerMajorIsRefusedNamingBothRanges) {
  absl::StatusOr<LoadedProvider> loaded =
      Load(&EntryDeclaring<TEPLUG_ABI_VERSION(2, 0), TEPLUG_ABI_VERSION(2, 0)>);
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr("[1.0, 1.3]"));
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr("[2.0, 2.0]"));
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

// What the entry under test saw.
struct Seen {
  std::optional<std::string> greeting, absent;
  int32_t before_name = TEPLUG_OK, null_key = TEPLUG_OK;
  std::string before_name_message;
  std::string small;    // the value read with a 4-byte buffer
  size_t small_length = 0;
  const TeplugHostApi* kept = nullptr;
};
Seen g_seen;

int32_t ErrorCode(TeplugError* e, std::string* message = nullptr) {
  if (e == nullptr) return TEPLUG_OK;
  const int32_t code = e->code;
  if (message != nullptr) *message = e->message;
  e->destroy(e);
  return code;
}

TeplugError* OptionsEntry(const TeplugHostApi* host, TeplugPluginInfo* info) {
  g_seen = Seen{};
  g_seen.kept = host;
  if (!TEPLUG_HAS_FIELD(host, TeplugHostApi, options_ctx) || host->get_option == nullptr) {
    return teplug_error_create(TEPLUG_ABI_MISMATCH, "the host has no get_option");
  }
  size_t length = 0;
  g_seen.before_name = ErrorCode(host->get_option(host->options_ctx, "greeting", nullptr, 0, &length),
                              &g_seen.before_name_message);
  g_seen.null_key = ErrorCode(host->get_option(host->options_ctx, nullptr, nullptr, 0, &length));
  return sdk::RunPluginEntry(host, info, "optioned", "tests", "1", TEPLUG_ABI_VERSION_MAJOR_FIRST,
                             TEPLUG_ABI_VERSION_CURRENT, [host](sdk::Registrar& r) {
                               g_seen.greeting = r.Option("greeting");
                               g_seen.absent = r.Option("absent");
                               char small[4] = "xxx";  // left alone when the option is not found
                               ErrorCode(host->get_option(host->options_ctx, "greeting", small, sizeof small,
                                                          &g_seen.small_length));
                               g_seen.small = std::string(small, strnlen(small, sizeof small));
                               RegisterOne(r);
                             });
}

LoadPolicy WithOptions(ProviderOptions options) {
  LoadPolicy policy;
  policy.provider_options = std::make_shared<const ProviderOptions>(std::move(options));
  return policy;
}

TEST(BuiltinLoadTest, GetOptionAnswersTheProvidersOwnOptionsByName) {
  ProviderOptions options;
  options["optioned"]["greeting"] = "hello, world";
  options["other"]["absent"] = "not for optioned";
  std::vector<std::string> warnings;
  absl::StatusOr<LoadedProvider> loaded =
      LoadBuiltin({"optioned", &OptionsEntry}, WithOptions(options), ProviderNameTaken(), Capture(&warnings));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(g_seen.greeting, "hello, world");
  EXPECT_EQ(g_seen.absent, std::nullopt) << "another provider's option is not this one's";
  EXPECT_EQ(g_seen.small, "hel") << "at most capacity bytes, NUL included";
  EXPECT_EQ(g_seen.small_length, 12u) << "the full length, to size a second call";
}

TEST(BuiltinLoadTest, GetOptionRefusesWhatItCannotAnswerWithAReason) {
  ProviderOptions options;
  options["optioned"]["greeting"] = "hi";
  std::vector<std::string> warnings;
  absl::StatusOr<LoadedProvider> loaded =
      LoadBuiltin({"optioned", &OptionsEntry}, WithOptions(options), ProviderNameTaken(), Capture(&warnings));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(g_seen.before_name, TEPLUG_FAILED_PRECONDITION);
  EXPECT_EQ(g_seen.before_name_message,
            "get_option: set TeplugPluginInfo.name first (options are given to a provider by its name)");
  EXPECT_EQ(g_seen.null_key, TEPLUG_INVALID_ARGUMENT);
  // The host API block outlives the entry (a plugin may keep it): a late
  // call is refused, not answered from a dead frame.
  size_t length = 0;
  std::string message;
  EXPECT_EQ(ErrorCode(g_seen.kept->get_option(g_seen.kept->options_ctx, "greeting", nullptr, 0, &length), &message),
            TEPLUG_FAILED_PRECONDITION);
  EXPECT_EQ(message, "get_option: called after the entry returned; a provider reads its options while it loads");
}

TEST(BuiltinLoadTest, WithoutOptionsGetOptionFindsNothing) {
  std::vector<std::string> warnings;
  absl::StatusOr<LoadedProvider> loaded =
      LoadBuiltin({"optioned", &OptionsEntry}, LoadPolicy{}, ProviderNameTaken(), Capture(&warnings));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(g_seen.greeting, std::nullopt);
  EXPECT_EQ(g_seen.small_length, 0u);
  EXPECT_EQ(g_seen.small, "xxx") << "nothing written when nothing is found";
}

}  // namespace
}  // namespace teplug::core
