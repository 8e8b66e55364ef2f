// Every hostile plugin is refused, and for each: the error names the plugin's
// path, origin and the specific reason; exactly one WARN line is logged (the
// same text, one printable line whatever the plugin's message held); every reference the host took on a staged object is released
// (the plugin's own counters balance); and the library is unloaded.
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "core/loader/plugin_loader.h"
#include "core/log/printable_text_oracle.h"
#include "tests/hostile/hostile_test_support.h"

namespace teplug::core {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using teplug::testing::IsLoaded;
using teplug::testing::LogCapture;
using teplug::testing::PluginPath;
using teplug::testing::RealPath;
using teplug::testing::kNoneTaken;
using teplug::testing::RefCounts;
using teplug::testing::RefusedPlugins;

struct HostileCase {
  std::string plugin;  // hostile_<case>
  // Substrings the refusal must contain after "refused: ".
  std::vector<std::string> reason;
  // Whether the host staged something before refusing (so the counters must
  // have moved, proving they observe the plugin).
  bool staged = false;
  absl::StatusCode code;
};

std::string Name(const ::testing::TestParamInfo<HostileCase>& info) { return info.param.plugin; }
void PrintTo(const HostileCase& c, std::ostream* os) { *os << c.plugin; }

class HostilePluginTest : public ::testing::TestWithParam<HostileCase> {};

TEST_P(HostilePluginTest, IsRefusedCleanly) {
  const HostileCase& c = GetParam();
  const std::string path = RealPath(PluginPath("tests/hostile", c.plugin));
  ASSERT_FALSE(path.empty()) << c.plugin << " not found in runfiles";
  ASSERT_FALSE(IsLoaded(path)) << "loaded before the test";
  LogCapture log;
  const RefCounts before = RefCounts::Now();

  PluginCandidate candidate{path, "TEPLUG_PLUGINS"};
  absl::StatusOr<LoadedProvider> loaded =
      LoadPluginFile(candidate, LoadPolicy{}, kNoneTaken, log.logger());

  ASSERT_FALSE(loaded.ok()) << c.plugin << " was accepted";
  const std::string message(loaded.status().message());
  EXPECT_THAT(message, StartsWith("plugin " + path + " (TEPLUG_PLUGINS) refused: "));
  for (const std::string& part : c.reason) EXPECT_THAT(message, HasSubstr(part));
  EXPECT_EQ(loaded.status().code(), c.code) << loaded.status();

  const std::vector<std::string> warnings = log.Lines(LogLevel::kWarn);
  ASSERT_EQ(warnings.size(), 1u) << ::testing::PrintToString(log.AllLines());
  EXPECT_EQ(warnings[0], "teplug WARN: " + message);
  for (const std::string& line : log.AllLines()) {
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    EXPECT_TRUE(testing::IsPrintableUtf8(line)) << line;
  }

  const RefCounts moved = RefCounts::Now().Since(before);
  EXPECT_EQ(moved.held(), 0) << "acquired " << moved.acquired << ", released " << moved.released;
  if (c.staged) {
    EXPECT_GT(moved.acquired, 0) << "the host never took a reference: the counters are not wired";
  }
  EXPECT_FALSE(IsLoaded(path)) << "the refused library is still loaded";

  // The refusal, as the load report shows it.
  LoadReportEntry entry = RefusedReportEntry(candidate, loaded.status());
  EXPECT_FALSE(entry.loaded);
  EXPECT_EQ(entry.path, path);
  EXPECT_EQ(entry.origin, "TEPLUG_PLUGINS");
  EXPECT_EQ("plugin " + path + " (TEPLUG_PLUGINS) refused: " + entry.reason, message);
}

const char kHost[] = "[1.0, 1.3]";
using Code = absl::StatusCode;

// Every refusal this test expects; RefusedPluginsAllHaveACase keeps it equal
// to //tests/hostile:refused_plugins.
const HostileCase kRefusals[] = {
    HostileCase{"hostile_no_entry",
                {"the library does not export teplug_plugin_entry"},
                false,
                Code::kNotFound},
    HostileCase{"hostile_data_entry",
                {"teplug_plugin_entry is exported as STT_OBJECT (a data object), not a function "
                 "(STT_FUNC or STT_GNU_IFUNC); it is not called"},
                false,
                Code::kInvalidArgument},
    HostileCase{"hostile_abi_mismatch",
                {"ABI mismatch: the plugin supports [2.0, 2.0] but the host supports ", kHost},
                false,
                Code::kFailedPrecondition},
    HostileCase{"hostile_partial_then_error",
                {"teplug_plugin_entry returned internal: hostile_partial: failing after two "
                 "registrations"},
                true,
                Code::kInternal},
    HostileCase{"hostile_registrar_error_ignored",
                {"teplug_plugin_entry returned success although 1 registration(s) were "
                 "refused; first: implementation \"second\" (IGemm/1): malformed capability "
                 "descriptor: TeplugGemmCaps.num_devices is 2 but devices is NULL"},
                true,
                Code::kInvalidArgument},
    HostileCase{"hostile_unknown_iid",
                {"returned unsupported: implementation \"mystery\": unknown interface id "
                 "{0x0000000000001234, 0x0000000000005678}"},
                false,
                Code::kUnimplemented},
    HostileCase{"hostile_caps_too_small",
                {"implementation \"small-caps\" (IGemm/1): malformed capability descriptor: "
                 "TeplugGemmCaps.struct_size 16 < 72 required"},
                true,  // query_interface was asked (and its reference returned)
                Code::kInvalidArgument},
    HostileCase{"hostile_devices_null",
                {"malformed capability descriptor: TeplugGemmCaps.num_devices is 2 but "
                 "devices is NULL"},
                true,
                Code::kInvalidArgument},
    HostileCase{"hostile_unknown_dtype_bit",
                {"TeplugGemmCaps.a_dtypes 0x10000000002 sets unknown bits 0x10000000000"},
                true,
                Code::kInvalidArgument},
    HostileCase{"hostile_small_vtbl",
                {"implementation \"small-vtbl\" (IGemm/1): TeplugGemmV1Vtbl.struct_size 32 < "
                 "56 required"},
                false,
                Code::kInvalidArgument},
    HostileCase{"hostile_query_refused",
                {"implementation \"no-query\" (IGemm/1): query_interface(IGemm/1) returned "
                 "NULL, not the registered object"},
                false,
                Code::kInvalidArgument},
    HostileCase{
        "hostile_throw_query",
        {"teplug_plugin_entry returned invalid_argument: implementation \"gemm\" (IGemm/1): C++ "
         "exception escaped query_interface: query_interface exploded"},
        false,
        Code::kInvalidArgument},
    HostileCase{
        "hostile_throw_add_ref",
        {"teplug_plugin_entry returned invalid_argument: implementation \"gemm\" (IGemm/1): C++ "
         "exception escaped implementation \"gemm\" (IGemm/1) add_ref: add_ref exploded"},
        false,
        Code::kInvalidArgument},
    HostileCase{"hostile_null_object",
                {"implementation \"null-object\" (IGemm/1): object is NULL"},
                false,
                Code::kInvalidArgument},
    HostileCase{"hostile_bad_provider_name",
                {"TeplugPluginInfo.name \"Bad Name!\" must match [a-z0-9_-]{1,63}"},
                true,
                Code::kInvalidArgument},
    HostileCase{"hostile_duplicate_impl",
                {"implementation \"same\" (IQuantizer/1): duplicate implementation name "
                 "(already registered for IGemm/1)"},
                true,
                Code::kInvalidArgument},
    HostileCase{"hostile_forged_refusal",
                {"teplug_plugin_entry returned internal: hostile_forged_refusal\\x0ateplug WARN: "
                 "plugin /opt/other/libteplug_other.so (api) refused: forged\\x0d\\x1b[2J"
                 "\\x1b]0;owned\\x07\\xff"},
                false,
                Code::kInternal},
    HostileCase{"hostile_no_implementations",
                {"teplug_plugin_entry returned success but registered no implementation (a "
                 "provider must register at least one; return TEPLUG_UNAVAILABLE with the reason "
                 "when there is nothing to serve)"},
                false,
                Code::kInvalidArgument},
    HostileCase{"hostile_only_newer_iid",
                {"registered no implementation",
                 "; 1 registration(s) skipped, first: implementation \"gemm-v2\": unknown "
                 "interface id"},
                false,
                Code::kInvalidArgument},
    HostileCase{"hostile_device_stride_huge",
                {"implementation \"strided\" (IGemm/1): malformed capability descriptor: "
                 "TeplugGemmCaps.devices[0].struct_size 1099511627776: must be >= 24, <= 256 and a "
                 "multiple of 8 (it is the array stride)"},
                true,
                Code::kInvalidArgument},
    HostileCase{
        "hostile_device_stride_wrap",
        {"TeplugGemmCaps.devices[0].struct_size 18446744073709551608: must be >= 24, <= 256"},
        true,
        Code::kInvalidArgument},
    HostileCase{"hostile_builtin_device_name",
                {"TeplugPluginInfo.device_kind_names[0] {1100, \"cuda\"}: \"cuda\" is a built-in "
                 "device kind name"},
                true,
                Code::kInvalidArgument},
    HostileCase{
        "hostile_bad_device_name",
        {"TeplugPluginInfo.vendor_names[0] {0x1da3, \"Habana Labs\\x0a\"}: a vendor name must "
         "match [a-z][a-z0-9_]{0,30} and not be vendor<digits>"},
        true,
        Code::kInvalidArgument},
    HostileCase{"hostile_device_name_twice",
                {"TeplugPluginInfo.device_kind_names[1] {1101, \"gaudi\"}: \"gaudi\" already names "
                 "id 1100 in this provider"},
                true,
                Code::kInvalidArgument},
    HostileCase{"hostile_device_names_null",
                {"TeplugPluginInfo.device_kind_names is NULL with a count of 3"},
                true,
                Code::kInvalidArgument},
    HostileCase{"hostile_null_method",
                {"implementation \"no-gemm\" (IGemm/1): TeplugGemmV1Vtbl.gemm is NULL"},
                false,
                Code::kInvalidArgument},
    HostileCase{"hostile_bad_impl_name",
                {"TeplugImplementationDesc.name \"a b/c\\x0a\\x1b[31m\\xff\\x7f\"\" must be 1-63 "
                 "characters of [A-Za-z0-9_.-]"},
                false,
                Code::kInvalidArgument},
    HostileCase{"hostile_query_tiny_answer",
                {"implementation \"tiny-answer\" (IGemm/1): query_interface(IGemm/1) returned a "
                 "different object, not the registered object"},
                false,
                Code::kInvalidArgument},
    HostileCase{"hostile_inverted_abi",
                {"register_implementation called before TeplugPluginInfo names an ABI range "
                 "overlapping the host's [1.0, 1.3] (info says [1.5, 1.3])"},
                false,
                Code::kFailedPrecondition},
    HostileCase{"hostile_reentrant",
                {"teplug_plugin_entry returned success although 1 registration(s) were refused; "
                 "first: implementation registered from inside a plugin callback the host made "
                 "while staging another registration (register_implementation is not "
                 "re-entrant)"},
                true,
                Code::kInvalidArgument},
    HostileCase{"hostile_raw_throw",
                {"C++ exception escaped teplug_plugin_entry: hostile_raw_throw: thrown from a "
                 "non-SDK entry"},
                true,
                Code::kInternal},
    HostileCase{"hostile_sdk_throw",
                {"teplug_plugin_entry returned internal: hostile_sdk_throw: thrown after one "
                 "registration"},
                true,
                Code::kInternal},
};

INSTANTIATE_TEST_SUITE_P(Refusals, HostilePluginTest, ::testing::ValuesIn(kRefusals), Name);

// A case added to REFUSED_CASES in the BUILD file (or moved out of it) must
// be added here (or removed), or this fails: no refused library goes
// untested, and no expectation outlives its library.
TEST(HostilePluginCoverageTest, RefusedPluginsAllHaveACase) {
  std::set<std::string> built;
  for (const std::string& path : RefusedPlugins()) {
    const std::string prefix = "tests/hostile/libteplug_", suffix = ".so";
    ASSERT_TRUE(absl::StartsWith(path, prefix) && absl::EndsWith(path, suffix)) << path;
    built.insert(path.substr(prefix.size(), path.size() - prefix.size() - suffix.size()));
  }
  std::set<std::string> expected;
  for (const HostileCase& c : kRefusals) expected.insert(c.plugin);
  for (const std::string& plugin : built) {
    EXPECT_EQ(expected.count(plugin), 1u)
        << plugin << " is in //tests/hostile:refused_plugins but kRefusals has no case for it";
  }
  for (const std::string& plugin : expected) {
    EXPECT_EQ(built.count(plugin), 1u)
        << plugin << " has a case in kRefusals but is not in //tests/hostile:refused_plugins";
  }
}

// A provider name already taken (by a built-in or an earlier plugin): the
// well-behaved plugin is refused and its staged registrations rolled back.
TEST(HostileDuplicateProviderTest, TakenNameIsRefusedAndRolledBack) {
  const std::string path = RealPath(PluginPath("tests/hostile", "hostile_good"));
  LogCapture log;
  const RefCounts before = RefCounts::Now();
  std::vector<std::string> asked;
  absl::StatusOr<LoadedProvider> loaded = LoadPluginFile(
      {path, "api"}, LoadPolicy{},
      [&](absl::string_view name) -> std::optional<std::string> {
        asked.emplace_back(name);
        if (name != "hostile_good") return std::nullopt;
        return "/plugins/libteplug_first.so";
      },
      log.logger());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(loaded.status().message(),
            "plugin " + path + " (api) refused: duplicate provider name \"hostile_good\": " + path +
                " declares the name already registered by /plugins/libteplug_first.so; remove one "
                "of the two from the plugin search path or the config's plugins list, or rename one "
                "provider");
  EXPECT_EQ(asked, std::vector<std::string>{"hostile_good"});
  EXPECT_EQ(log.Lines(LogLevel::kWarn).size(), 1u);
  const RefCounts moved = RefCounts::Now().Since(before);
  EXPECT_GE(moved.acquired, 2) << "both registrations were staged";
  EXPECT_EQ(moved.held(), 0);
  EXPECT_FALSE(IsLoaded(path));
}

}  // namespace
}  // namespace teplug::core
