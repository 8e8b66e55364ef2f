// "After each bad plugin the kernel's registry, decisions and load report are
// exactly as they were plus one refusal": every refused hostile plugin of
// //tests/hostile (its refused_plugins list), a world-writable copy of a good
// plugin, and a second library claiming an existing provider name, loaded into
// a running kernel.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/kernel/kernel.h"
#include "core/kernel/kernel_test_support.h"
#include "core/loader/load_report.h"
#include "gtest/gtest.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"

namespace teplug::core {
namespace {

using AttentionCall = testing::AttentionForwardCall;
using testing::FakePlugin;
using testing::GemmCall;
using testing::IsolatedOptions;
using testing::LogCapture;
using testing::Runfile;

// Everything observable about the kernel's registry and decisions.
struct Observed {
  std::string providers;
  std::string gemm_record;
  std::string attention_record;
  std::vector<std::string> report;
};

Observed Observe(const Kernel& k) {
  Observed o;
  for (const ProviderListing& p : k.ListProviders()) {
    o.providers += p.name + " " + p.source + ":";
    for (const auto& i : p.implementations) o.providers += " " + i.name + "=" + i.capability_summary;
    o.providers += "\n";
  }
  GemmCall g;
  AttentionCall a(192);
  o.gemm_record = k.Explain(sdk::kIidGemmV1, TEPLUG_OP_GEMM, g.args())->Format();
  o.attention_record = k.Explain(sdk::kIidAttentionV1, TEPLUG_OP_ATTENTION_FORWARD, a.args())->Format();
  for (const LoadReportEntry& e : k.LoadReport()) {
    o.report.push_back(FormatLoadReport({e}));
  }
  return o;
}

std::string TempCopy(const std::string& from, const std::string& name, mode_t mode) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::filesystem::path d = std::filesystem::path(dir != nullptr ? dir : "/tmp") / ("copy_" + name);
  std::filesystem::create_directories(d);
  std::filesystem::permissions(d, std::filesystem::perms(0755));
  std::filesystem::path to = d / ("libteplug_" + name + ".so");
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
  chmod(to.c_str(), mode);
  return to.string();
}

// Every library of //tests/hostile:refused_plugins, as listed in the
// refused_plugins.txt that //tests/hostile:plugins carries (so a refused case
// added there is loaded here with no change to this test or its BUILD rule).
std::vector<std::string> HostileRefusedPlugins() {
  const std::string list = Runfile("tests/hostile/refused_plugins.txt");
  std::ifstream in(list);
  EXPECT_TRUE(in.good()) << "cannot read " << list;
  std::vector<std::string> paths;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) paths.push_back(Runfile(line));
  }
  EXPECT_FALSE(paths.empty()) << list << " lists no plugin";
  return paths;
}

std::vector<std::string> BadPlugins() {
  std::vector<std::string> bad = HostileRefusedPlugins();
  bad.push_back(TempCopy(Runfile("tests/hostile/libteplug_hostile_good.so"), "world_writable", 0666));
  // A different file whose provider name ("fast") is already registered.
  bad.push_back(TempCopy(FakePlugin("fast"), "fast_again", 0755));
  bad.push_back("/nonexistent/libteplug_missing.so");
  return bad;
}

TEST(KernelRefusalTest, EachBadPluginChangesNothingButAddsOneRefusal) {
  LogCapture log;
  KernelOptions opts = IsolatedOptions({FakePlugin("fast"), FakePlugin("wide")});
  opts.log_sink = log.sink();
  auto k = Kernel::Create(std::move(opts));
  ASSERT_TRUE(k.ok()) << k.status();
  Kernel& kernel = **k;
  for (const std::string& path : BadPlugins()) {
    SCOPED_TRACE(path);
    const Observed before = Observe(kernel);
    const int warns_before = log.Count("WARN");
    absl::Status st = kernel.LoadPlugin(path);
    ASSERT_FALSE(st.ok()) << "must be refused";
    const Observed after = Observe(kernel);
    EXPECT_EQ(after.providers, before.providers);
    EXPECT_EQ(after.gemm_record, before.gemm_record);
    EXPECT_EQ(after.attention_record, before.attention_record);
    ASSERT_EQ(after.report.size(), before.report.size() + 1);
    for (size_t i = 0; i < before.report.size(); ++i) EXPECT_EQ(after.report[i], before.report[i]);
    const LoadReportEntry last = kernel.LoadReport().back();
    EXPECT_FALSE(last.loaded);
    EXPECT_FALSE(last.reason.empty());
    EXPECT_NE(std::string(st.message()).find("refused"), std::string::npos) << st;
    EXPECT_EQ(log.Count("WARN"), warns_before + 1) << "exactly one warning per refusal:\n" << log.All();
    // The kernel still serves.
    GemmCall c;
    auto gemm = kernel.Query<TeplugGemmV1>(sdk::kIidGemmV1);
    ASSERT_TRUE(sdk::OwnedError(gemm->vtbl->gemm(gemm.get(), c.args())).ok());
    EXPECT_EQ(c.OutputMarker(), 1.f);
  }
}

TEST(KernelRefusalTest, RefusalsAtStartUpLeaveTheGoodProviders) {
  std::vector<std::string> paths = BadPlugins();
  // Good ones first, so the copy claiming the name "fast" is the refused one.
  paths.insert(paths.begin(), {FakePlugin("wide"), FakePlugin("fast")});
  auto k = Kernel::Create(IsolatedOptions(paths));
  ASSERT_TRUE(k.ok()) << k.status();
  auto providers = (*k)->ListProviders();
  ASSERT_EQ(providers.size(), 2u);
  EXPECT_EQ(providers[0].name, "fast");
  EXPECT_EQ(providers[1].name, "wide");
  int refused = 0;
  for (const auto& e : (*k)->LoadReport()) refused += !e.loaded;
  EXPECT_EQ(refused, static_cast<int>(BadPlugins().size()));
}

// A second file declaring a registered provider name: the refusal names
// both files and says how to resolve it, at start-up and through LoadPlugin.
TEST(KernelRefusalTest, DuplicateProviderNameNamesBothFilesAndTheFix) {
  const std::string first = std::filesystem::canonical(FakePlugin("fast")).string();
  const std::string again = TempCopy(FakePlugin("fast"), "fast_twice", 0755);
  const std::string expected = "duplicate provider name \"fast\": " + again +
                               " declares the name already registered by " + first +
                               "; remove one of the two from the plugin search path or the "
                               "config's plugins list, or rename one provider";
  auto created = Kernel::Create(IsolatedOptions({first, again}));
  ASSERT_TRUE(created.ok()) << created.status();
  const LoadReportEntry at_start = (*created)->LoadReport().back();
  EXPECT_FALSE(at_start.loaded);
  EXPECT_EQ(at_start.reason, expected);

  auto k = Kernel::Create(IsolatedOptions({first}));
  ASSERT_TRUE(k.ok()) << k.status();
  const absl::Status st = (*k)->LoadPlugin(again);
  EXPECT_EQ(st.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(st.message(), "plugin " + again + " (api) refused: " + expected);
}

// Forward compatibility: an unknown interface id is skipped, not fatal, when
// the plugin accepts the host's UNSUPPORTED answer.
TEST(KernelRefusalTest, APluginOfferingANewerInterfaceStillLoadsItsKnownOnes) {
  LogCapture log;
  KernelOptions opts = IsolatedOptions({Runfile("tests/hostile/libteplug_hostile_newer_iid_ignored.so")},
                                       "log_level: \"info\"\n");
  opts.log_sink = log.sink();
  auto k = Kernel::Create(std::move(opts));
  ASSERT_TRUE(k.ok()) << k.status();
  auto providers = (*k)->ListProviders();
  ASSERT_EQ(providers.size(), 1u);
  ASSERT_EQ(providers[0].implementations.size(), 1u);
  EXPECT_EQ(providers[0].implementations[0].name, "hostile_newer_iid_ignored/counted-gemm");
  const LoadReportEntry e = (*k)->LoadReport().at(0);
  EXPECT_TRUE(e.loaded);
  ASSERT_EQ(e.skipped.size(), 1u);
  EXPECT_NE(e.skipped[0].find("\"gemm-v2\": unknown interface id"), std::string::npos) << e.skipped[0];
  EXPECT_NE(FormatLoadReport({e}).find("skipped: "), std::string::npos);
  EXPECT_EQ(log.Count("INFO: plugin"), 1) << log.All();
  EXPECT_EQ(log.Count("WARN"), 0) << log.All();
}

TEST(KernelRefusalTest, InsecureFilesLoadOnlyWhenTheOperatorSaysSoAndItIsLogged) {
  const std::string loose = TempCopy(FakePlugin("wide"), "loose", 0666);
  LogCapture log;
  KernelOptions opts = IsolatedOptions({loose}, "allow_insecure_plugin_permissions: true\n");
  opts.log_sink = log.sink();
  auto k = Kernel::Create(std::move(opts));
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ((*k)->ListProviders().size(), 1u);
  EXPECT_GE(log.Count("WARN"), 1) << log.All();
}

}  // namespace
}  // namespace teplug::core
