// The kernel's selection rules end to end, with real plugin .so files (the
// fake providers in testing/): priority, config overrides, prefer/deny/allow
// rules with file:line, static capability and supports() rejections with
// their values, call-time fallback (never silent) and strict mode, the named
// provider escape hatch, cache invalidation on reload, deterministic ties,
// and the C API.
#include "core/kernel/kernel.h"

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include "core/kernel/kernel_test_support.h"
#include "core/kernel/teplug_kernel.h"
#include "gtest/gtest.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"

namespace teplug::core {
namespace {

using AttentionCall = testing::AttentionForwardCall;
using testing::FakePlugin;
using testing::GemmCall;
using testing::IsolatedOptions;
using testing::kFast;
using testing::kTwin;
using testing::kWide;
using testing::LogCapture;

std::unique_ptr<Kernel> MakeKernel(std::vector<std::string> plugins, std::string config = "",
                                   LogCapture* log = nullptr) {
  KernelOptions o = IsolatedOptions(std::move(plugins), std::move(config));
  if (log != nullptr) o.log_sink = log->sink();
  auto k = Kernel::Create(std::move(o));
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *std::move(k) : nullptr;
}

sdk::OwnedError CallGemm(const Kernel& k, GemmCall& c) {
  auto gemm = k.Query<TeplugGemmV1>(sdk::kIidGemmV1);
  EXPECT_TRUE(gemm);
  return sdk::OwnedError(gemm->vtbl->gemm(gemm.get(), c.args()));
}

sdk::OwnedError CallAttention(const Kernel& k, AttentionCall& c) {
  auto attn = k.Query<TeplugAttentionV1>(sdk::kIidAttentionV1);
  EXPECT_TRUE(attn);
  return sdk::OwnedError(attn->vtbl->forward(attn.get(), c.args()));
}

const CandidateVerdict* Find(const DecisionRecord& r, const std::string& impl) {
  for (const auto& c : r.candidates) {
    if (c.implementation() == impl) return &c;
  }
  return nullptr;
}

TEST(KernelTest, HighestDefaultPriorityServesAndTheRecordSaysWhy) {
  auto k = MakeKernel({FakePlugin("wide"), FakePlugin("fast")});
  ASSERT_TRUE(k);
  GemmCall c;
  auto err = CallGemm(*k, c);
  ASSERT_TRUE(err.ok()) << err.message();
  EXPECT_EQ(c.OutputMarker(), kFast);
  auto rec = k->Explain(sdk::kIidGemmV1, TEPLUG_OP_GEMM, c.args());
  ASSERT_TRUE(rec.ok()) << rec.status();
  ASSERT_TRUE(rec->served());
  EXPECT_EQ(rec->chosen()->implementation(), "fast/gemm");
  EXPECT_EQ(rec->Reason(*rec->chosen()), "priority 200");
  const CandidateVerdict* wide = Find(*rec, "wide/gemm");
  ASSERT_NE(wide, nullptr);
  EXPECT_EQ(wide->verdict, Verdict::kOutranked);
  EXPECT_EQ(rec->Reason(*wide), "outranked by fast/gemm (priority 200 > 100)");
  EXPECT_NE(rec->Format().find("fast/gemm"), std::string::npos);
}

TEST(KernelTest, ConfigPriorityOverridePerInterfaceBeatsPerProvider) {
  auto k = MakeKernel({FakePlugin("wide"), FakePlugin("fast")},
                      "priorities { provider: \"wide\" priority: 500 }\n"
                      "priorities { provider: \"wide\" interface: \"attention\" priority: 50 }\n");
  ASSERT_TRUE(k);
  GemmCall g;
  ASSERT_TRUE(CallGemm(*k, g).ok());
  EXPECT_EQ(g.OutputMarker(), kWide) << "provider-wide override 500 beats fast's 200";
  AttentionCall a;
  ASSERT_TRUE(CallAttention(*k, a).ok());
  EXPECT_EQ(a.OutputMarker(), kFast) << "per-interface override 50 applies to attention";
  auto rec = k->Explain(sdk::kIidGemmV1, TEPLUG_OP_GEMM, g.args());
  EXPECT_EQ(rec->Reason(*rec->chosen()), "priority 500 (config override)");
}

TEST(KernelTest, DenyRuleRejectsWithRuleNameAndLocation) {
  const std::string cfg =
      "log_level: \"warn\"\n"
      "rules {\n"
      "  name: \"no-fast-gemm\"\n"
      "  match { interfaces: \"gemm\" }\n"
      "  deny: \"fast\"\n"
      "}\n";
  auto k = MakeKernel({FakePlugin("wide"), FakePlugin("fast")}, cfg);
  ASSERT_TRUE(k);
  GemmCall g;
  ASSERT_TRUE(CallGemm(*k, g).ok());
  EXPECT_EQ(g.OutputMarker(), kWide);
  auto rec = k->Explain(sdk::kIidGemmV1, TEPLUG_OP_GEMM, g.args());
  const CandidateVerdict* fast = Find(*rec, "fast/gemm");
  ASSERT_NE(fast, nullptr);
  EXPECT_EQ(fast->verdict, Verdict::kRejected);
  EXPECT_EQ(fast->stage, Stage::kConfig);
  EXPECT_EQ(rec->Rule(*fast), "config rule \"no-fast-gemm\" (test.textproto:2)");
  EXPECT_NE(rec->Format().find("no-fast-gemm"), std::string::npos);
  AttentionCall a;
  ASSERT_TRUE(CallAttention(*k, a).ok());
  EXPECT_EQ(a.OutputMarker(), kFast) << "the rule matches gemm only";
}

TEST(KernelTest, PreferAndAllowRulesWithMatchOnHeadDimRange) {
  const std::string cfg =
      "rules { name: \"big-heads\" match { interfaces: \"attention\" head_dim { min: 100 } } prefer: \"wide\" }\n"
      "rules { name: \"only-twin-gemm\" match { interfaces: \"gemm\" } allow: \"twin\" }\n";
  auto k = MakeKernel({FakePlugin("wide"), FakePlugin("fast"), FakePlugin("twin")}, cfg);
  ASSERT_TRUE(k);
  AttentionCall small(64), big(128);
  ASSERT_TRUE(CallAttention(*k, small).ok());
  EXPECT_EQ(small.OutputMarker(), kFast);
  ASSERT_TRUE(CallAttention(*k, big).ok());
  EXPECT_EQ(big.OutputMarker(), kWide);
  auto rec = k->Explain(sdk::kIidAttentionV1, TEPLUG_OP_ATTENTION_FORWARD, big.args());
  EXPECT_NE(rec->Reason(*rec->chosen()).find("preferred (#1) by config rule \"big-heads\""), std::string::npos)
      << rec->Format();
  EXPECT_EQ(rec->Reason(*Find(*rec, "fast/attn")),
            "outranked by wide/attn (preferred by config rule \"big-heads\" (test.textproto:1))");
  GemmCall g;
  ASSERT_TRUE(CallGemm(*k, g).ok());
  EXPECT_EQ(g.OutputMarker(), kTwin);
  auto grec = k->Explain(sdk::kIidGemmV1, TEPLUG_OP_GEMM, g.args());
  EXPECT_EQ(grec->Reason(*Find(*grec, "fast/gemm")), "not in the allow list");
}

TEST(KernelTest, StaticCapabilityAndSupportsRejectionsCarryTheirValues) {
  auto k = MakeKernel({FakePlugin("wide"), FakePlugin("fast")});
  ASSERT_TRUE(k);
  AttentionCall big(192);
  ASSERT_TRUE(CallAttention(*k, big).ok());
  EXPECT_EQ(big.OutputMarker(), kWide);
  auto rec = k->Explain(sdk::kIidAttentionV1, TEPLUG_OP_ATTENTION_FORWARD, big.args());
  const CandidateVerdict* fast = Find(*rec, "fast/attn");
  EXPECT_EQ(fast->stage, Stage::kCapability);
  EXPECT_EQ(rec->Reason(*fast), "head_dim_qk 192 > max 128");

  AttentionCall odd(96);
  ASSERT_TRUE(CallAttention(*k, odd).ok());
  EXPECT_EQ(odd.OutputMarker(), kWide);
  rec = k->Explain(sdk::kIidAttentionV1, TEPLUG_OP_ATTENTION_FORWARD, odd.args());
  fast = Find(*rec, "fast/attn");
  EXPECT_EQ(fast->stage, Stage::kSupports);
  EXPECT_EQ(rec->Reason(*fast), "head_dim_qk 96 has no tuned kernel (test)");

  AttentionCall fp8(64);
  fp8.q().dtype = fp8.k().dtype = fp8.v().dtype = TEPLUG_DTYPE_FP8_E4M3;
  rec = k->Explain(sdk::kIidAttentionV1, TEPLUG_OP_ATTENTION_FORWARD, fp8.args());
  EXPECT_FALSE(rec->served());
  EXPECT_EQ(rec->Reason(*Find(*rec, "wide/attn")), "q dtype fp8_e4m3 not in {fp32, bf16}");
  auto err = CallAttention(*k, fp8);
  EXPECT_EQ(err.code(), TEPLUG_UNSUPPORTED);
  EXPECT_NE(err.message().find("no provider can serve attention forward fp8_e4m3"), std::string::npos)
      << err.message();

  TeplugDevice cuda{sizeof(TeplugDevice), TEPLUG_DEVICE_CUDA, TEPLUG_VENDOR_NVIDIA, 0, 90};
  AttentionCall on_gpu(64);
  on_gpu.q().device = on_gpu.k().device = on_gpu.v().device = on_gpu.o().device = &cuda;
  rec = k->Explain(sdk::kIidAttentionV1, TEPLUG_OP_ATTENTION_FORWARD, on_gpu.args());
  EXPECT_EQ(Find(*rec, "fast/attn")->stage, Stage::kDevice);
  EXPECT_EQ(rec->Reason(*Find(*rec, "fast/attn")), "device cuda:0 (nvidia, arch 90) not in {cpu}");
}

TEST(KernelTest, FallbackOnUnavailableIsLoggedOncePerSignature) {
  LogCapture log;
  auto k = MakeKernel({FakePlugin("wide"), FakePlugin("fast")}, "", &log);
  ASSERT_TRUE(k);
  for (int i = 0; i < 3; ++i) {
    GemmCall c(13.f);
    auto err = CallGemm(*k, c);
    ASSERT_TRUE(err.ok()) << err.message();
    EXPECT_EQ(c.OutputMarker(), kWide);
  }
  EXPECT_EQ(log.Count("fast/gemm returned unavailable"), 1) << log.All();
  EXPECT_EQ(log.Count("falling back to wide/gemm"), 1) << log.All();
  EXPECT_EQ(log.Count("fast: device busy (test)"), 1) << "the original error text is kept";
  // Another signature (another shape) is warned about once more: once per
  // signature, not once per kernel.
  for (int i = 0; i < 2; ++i) {
    GemmCall c(13.f, 8, 8, 8);
    auto err = CallGemm(*k, c);
    ASSERT_TRUE(err.ok()) << err.message();
    EXPECT_EQ(c.OutputMarker(), kWide);
  }
  EXPECT_EQ(log.Count("fast/gemm returned unavailable"), 2) << log.All();
}

TEST(KernelTest, DispatcherSupportsAndWorkspaceAnswerForTheWholeKernel) {
  auto k = MakeKernel({FakePlugin("wide"), FakePlugin("fast")});
  auto attn = k->Query<TeplugAttentionV1>(sdk::kIidAttentionV1);
  auto* self = reinterpret_cast<TeplugObject*>(attn.get());
  char reason[512] = "unset";
  AttentionCall ok(192);  // only "wide" serves it: still served
  EXPECT_EQ(attn->vtbl->supports(self, TEPLUG_OP_ATTENTION_FORWARD, ok.args(), reason, sizeof reason), 1);
  AttentionCall fp8(64);
  fp8.q().dtype = fp8.k().dtype = fp8.v().dtype = TEPLUG_DTYPE_FP8_E4M3;
  EXPECT_EQ(attn->vtbl->supports(self, TEPLUG_OP_ATTENTION_FORWARD, fp8.args(), reason, sizeof reason), 0);
  EXPECT_NE(std::string(reason).find("no provider can serve it"), std::string::npos) << reason;
  EXPECT_NE(std::string(reason).find("q dtype fp8_e4m3 not in {fp32, bf16}"), std::string::npos) << reason;
  // Workspace is the most any ranked candidate needs, so a fallback never
  // lacks it: "fast" (8192 bytes) is refused at head_dim 192, "wide" needs
  // 4096; at head_dim 64 both rank.
  size_t bytes = 99;
  EXPECT_TRUE(sdk::OwnedError(attn->vtbl->workspace_size(attn.get(), TEPLUG_OP_ATTENTION_FORWARD, ok.args(),
                                                         &bytes)).ok());
  EXPECT_EQ(bytes, 4096u);
  AttentionCall both(64);
  EXPECT_TRUE(sdk::OwnedError(attn->vtbl->workspace_size(attn.get(), TEPLUG_OP_ATTENTION_FORWARD, both.args(),
                                                         &bytes)).ok());
  EXPECT_EQ(bytes, 8192u);
  ok.mutable_args()->q = nullptr;
  sdk::OwnedError bad(attn->vtbl->workspace_size(attn.get(), TEPLUG_OP_ATTENTION_FORWARD, ok.args(), &bytes));
  EXPECT_EQ(bad.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(bad.message(), "TeplugAttentionFwdArgs.q is NULL");
}

// The caller gets a host-made copy: the plugin's code and message, naming
// the implementation and method that returned it.
TEST(KernelTest, OtherErrorsReachTheCallerWithTheirCodeAndMessage) {
  auto k = MakeKernel({FakePlugin("wide"), FakePlugin("fast")});
  GemmCall c(14.f);
  auto err = CallGemm(*k, c);
  EXPECT_EQ(err.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(err.message(), "fast/gemm returned invalid_argument from gemm: fast: alpha 14 is invalid (test)");
  EXPECT_NE(c.OutputMarker(), kWide) << "no fallback on invalid_argument";
}

TEST(KernelTest, StrictModeReturnsTheErrorWithTheDecisionRecord) {
  for (const std::string& cfg : {std::string("strict: true\n"), std::string("strict_interfaces: \"gemm\"\n"),
                                std::string("rules { name: \"strict-gemm\" match { interfaces: \"gemm\" } "
                                            "strict: true }\n")}) {
    auto k = MakeKernel({FakePlugin("wide"), FakePlugin("fast")}, cfg);
    ASSERT_TRUE(k) << cfg;
    GemmCall c(13.f);
    auto err = CallGemm(*k, c);
    EXPECT_EQ(err.code(), TEPLUG_UNAVAILABLE) << cfg;
    EXPECT_NE(err.message().find("strict mode"), std::string::npos) << err.message();
    EXPECT_NE(err.message().find("wide/gemm"), std::string::npos) << "record attached: " << err.message();
    EXPECT_NE(c.OutputMarker(), kWide);
  }
  KernelOptions o = IsolatedOptions({FakePlugin("wide"), FakePlugin("fast")});
  o.strict = true;
  auto k = Kernel::Create(std::move(o));
  ASSERT_TRUE(k.ok());
  GemmCall c(13.f);
  EXPECT_EQ(CallGemm(**k, c).code(), TEPLUG_UNAVAILABLE);
}

TEST(KernelTest, LastCandidateFailingReportsEveryThingTried) {
  auto k = MakeKernel({FakePlugin("fast")});
  GemmCall c(13.f);
  auto err = CallGemm(*k, c);
  EXPECT_EQ(err.code(), TEPLUG_UNAVAILABLE);
  EXPECT_NE(err.message().find("no further candidate"), std::string::npos) << err.message();
}

TEST(KernelTest, SelectByProviderReachesALosingProvider) {
  auto k = MakeKernel({FakePlugin("wide"), FakePlugin("fast")});
  GemmCall c;
  auto best = k->Select(sdk::kIidGemmV1, TEPLUG_OP_GEMM, c.args());
  ASSERT_TRUE(best.ok());
  EXPECT_EQ(best->implementation->QualifiedName(), "fast/gemm");
  auto wide = k->Select(sdk::kIidGemmV1, TEPLUG_OP_GEMM, c.args(), "wide");
  ASSERT_TRUE(wide.ok()) << wide.status();
  EXPECT_EQ(wide->implementation->QualifiedName(), "wide/gemm");
  TeplugGemmV1* g = wide->as<TeplugGemmV1>();
  ASSERT_TRUE(sdk::OwnedError(g->vtbl->gemm(g, c.args())).ok());
  EXPECT_EQ(c.OutputMarker(), kWide);
  auto none = k->Select(sdk::kIidGemmV1, TEPLUG_OP_GEMM, c.args(), "native");
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(none.status().message().find("not the requested provider \"native\""), std::string::npos)
      << none.status();
}

TEST(KernelTest, ReloadInvalidatesCachedDecisionsAndBadConfigKeepsTheOldOne) {
  LogCapture log;
  auto k = MakeKernel({FakePlugin("wide"), FakePlugin("fast")}, "", &log);
  GemmCall c1;
  ASSERT_TRUE(CallGemm(*k, c1).ok());
  EXPECT_EQ(c1.OutputMarker(), kFast);
  ASSERT_TRUE(k->ReloadConfigText("providers { name: \"fast\" enabled: false }\n", "reload.textproto").ok());
  GemmCall c2;
  ASSERT_TRUE(CallGemm(*k, c2).ok());
  EXPECT_EQ(c2.OutputMarker(), kWide) << "same signature, new config: the cached decision must not be reused";
  absl::Status bad = k->ReloadConfigText("rules { name: \"x\" match { head_dim { min: 9 max: 3 } } deny: \"a\" }",
                                         "bad.textproto");
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("bad.textproto:1:"), std::string::npos) << bad;
  GemmCall c3;
  ASSERT_TRUE(CallGemm(*k, c3).ok());
  EXPECT_EQ(c3.OutputMarker(), kWide) << "a rejected reload leaves the running config";
}

TEST(KernelTest, FirstServingOfASignatureIsLoggedOnceAtInfo) {
  LogCapture log;
  auto k = MakeKernel({FakePlugin("fast")}, "log_level: \"info\"\n", &log);
  for (int i = 0; i < 5; ++i) {
    GemmCall c;
    ASSERT_TRUE(CallGemm(*k, c).ok());
  }
  EXPECT_EQ(log.Count("INFO: serving gemm"), 1) << log.All();
  EXPECT_EQ(log.Count("-> fast/gemm: priority 200"), 1) << log.All();
  GemmCall other(1.f, 8, 8, 8);
  ASSERT_TRUE(CallGemm(*k, other).ok());
  EXPECT_EQ(log.Count("INFO: serving gemm"), 2) << "a new signature is a new line";
}

TEST(KernelTest, RejectionsAreLoggedAtDebug) {
  LogCapture log;
  auto k = MakeKernel({FakePlugin("wide"), FakePlugin("fast")}, "log_level: \"debug\"\n", &log);
  AttentionCall big(192);
  ASSERT_TRUE(CallAttention(*k, big).ok());
  EXPECT_EQ(log.Count("DEBUG: attention forward"), 1) << log.All();
  EXPECT_EQ(log.Count("fast/attn rejected [capability] head_dim_qk 192 > max 128"), 1) << log.All();
}

TEST(KernelTest, TiesBreakByNameWhateverTheLoadOrder) {
  for (auto order : {std::vector<std::string>{FakePlugin("twin"), FakePlugin("wide")},
                     std::vector<std::string>{FakePlugin("wide"), FakePlugin("twin")}}) {
    auto k = MakeKernel(order);
    GemmCall c;
    ASSERT_TRUE(CallGemm(*k, c).ok());
    EXPECT_EQ(c.OutputMarker(), kTwin) << "twin < wide by name at equal priority";
    auto rec = k->Explain(sdk::kIidGemmV1, TEPLUG_OP_GEMM, c.args());
    EXPECT_EQ(rec->Reason(*Find(*rec, "wide/gemm")), "outranked by twin/gemm (same priority 100, name order)");
  }
}

TEST(KernelTest, MalformedArgsAreInvalidArgumentNamingTheField) {
  auto k = MakeKernel({FakePlugin("fast")});
  GemmCall c;
  c.mutable_args()->b = nullptr;
  auto err = CallGemm(*k, c);
  EXPECT_EQ(err.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(err.message(), "TeplugGemmArgs.b is NULL");
  GemmCall short_args;
  short_args.mutable_args()->struct_size = 16;
  EXPECT_EQ(CallGemm(*k, short_args).code(), TEPLUG_INVALID_ARGUMENT);
}

TEST(KernelTest, ListingAndLoadReportDescribeEveryProvider) {
  auto k = MakeKernel({FakePlugin("wide"), FakePlugin("fast"), "/nonexistent/libteplug_ghost.so"});
  auto providers = k->ListProviders();
  ASSERT_EQ(providers.size(), 2u);
  EXPECT_EQ(providers[0].name, "fast");
  EXPECT_EQ(providers[0].vendor, "teplug tests");
  ASSERT_EQ(providers[0].implementations.size(), 2u);
  EXPECT_NE(providers[0].implementations[0].capability_summary.find("devices {cpu}"), std::string::npos);
  auto report = k->LoadReport();
  int loaded = 0, refused = 0;
  for (const auto& e : report) {
    (e.loaded ? loaded : refused)++;
    if (!e.loaded) {
      EXPECT_NE(e.path.find("ghost"), std::string::npos) << e.reason;
    }
  }
  EXPECT_EQ(loaded, 2);
  EXPECT_EQ(refused, 1);
}

TEST(KernelTest, UnknownProviderNamesInConfigAreReportedWithLocation) {
  auto k = MakeKernel({FakePlugin("fast")}, "priorities { provider: \"nvidia-native\" priority: 5 }\n");
  ASSERT_TRUE(k);
  auto warnings = k->ConfigWarnings();
  ASSERT_FALSE(warnings.empty());
  std::string all;
  for (const auto& w : warnings) all += w + "\n";
  EXPECT_NE(all.find("test.textproto:1:"), std::string::npos) << all;
  EXPECT_NE(all.find("nvidia-native"), std::string::npos) << all;
}

TEST(KernelTest, ConfigWarningsAreLoggedAtStartAndOnReload) {
  LogCapture log;
  // fast implements no quantizer: an allow list naming only fast leaves
  // quantize and dequantize with no provider.
  auto k = MakeKernel({FakePlugin("fast")},
                      "rules { name: \"only-fast\" match { interfaces: \"quantizer\" } allow: \"fast\" }\n",
                      &log);
  ASSERT_TRUE(k);
  EXPECT_EQ(log.Count("test.textproto:1:61: warning: rules[0].allow: rule \"only-fast\" leaves quantizer"), 1)
      << log.All();
  ASSERT_TRUE(k->ReloadConfigText("rules { name: \"never\" deny: \"fast\"\n"
                                  "  match { interfaces: [\"gemm\", \"attention\"] seq_len { min: 1 }\n"
                                  "          facts { fact: \"m\" range { min: 1 } } } }\n",
                                  "reload.textproto")
                  .ok());
  EXPECT_EQ(log.Count("reload.textproto:2:3: warning: rules[0].match: this rule can never match"), 1)
      << log.All();
  const std::vector<std::string> warnings = k->ConfigWarnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("this rule can never match"), std::string::npos) << warnings[0];
}

// A loaded provider took its options when it loaded: a reload that changes
// them says that it does not reach the provider, once per reload and
// provider; unchanged options and providers that are not loaded say nothing.
TEST(KernelTest, AReloadThatChangesALoadedProvidersOptionsSaysItDoesNotReachIt) {
  LogCapture log;
  auto k = MakeKernel({FakePlugin("fast")}, "providers { name: \"fast\" options { key: \"x\" value: \"1\" } }\n",
                      &log);
  ASSERT_TRUE(k);
  const std::string changed =
      "the options of provider \"fast\" changed; a provider reads its options when it loads, so fast keeps the "
      "ones it loaded with until the process restarts";
  ASSERT_TRUE(k->ReloadConfigText("providers { name: \"fast\" options { key: \"x\" value: \"1\" } }\n"
                                  "providers { name: \"ghost\" options { key: \"x\" value: \"1\" } }\n",
                                  "same.textproto")
                  .ok());
  EXPECT_EQ(log.Count(changed), 0) << log.All();
  ASSERT_TRUE(
      k->ReloadConfigText("providers { name: \"fast\" options { key: \"x\" value: \"2\" } }\n", "two.textproto")
          .ok());
  EXPECT_EQ(log.Count("two.textproto: " + changed), 1) << log.All();
  ASSERT_TRUE(k->ReloadConfigText("log_level: \"warn\"\n", "none.textproto").ok());
  EXPECT_EQ(log.Count("none.textproto: " + changed), 1) << "removing the options is a change too\n" << log.All();
  EXPECT_EQ(log.Count("ghost\" changed"), 0) << log.All();
}

TEST(KernelTest, InvalidConfigFailsCreationWithEveryProblem) {
  KernelOptions o = IsolatedOptions({}, "rules { name: \"a\" deny: \"x\" }\nrules { name: \"a\" deny: \"y\" }\n"
                                        "log_level: \"loud\"\n");
  auto k = Kernel::Create(std::move(o));
  ASSERT_FALSE(k.ok());
  const std::string msg(k.status().message());
  EXPECT_NE(msg.find("test.textproto:2:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("test.textproto:3:"), std::string::npos) << msg;
}

TEST(KernelTest, EnvironmentDiscoveryIncludingNvtePlugin) {
  KernelOptions o;
  o.load_builtins = false;
  o.config_text = "log_level: \"warn\"\n";
  const std::string fast = FakePlugin("fast"), wide = FakePlugin("wide");
  o.env = [&](const char* name) -> std::optional<std::string> {
    if (std::string(name) == "TEPLUG_PLUGINS") return fast;
    if (std::string(name) == "NVTE_PLUGIN") return wide;
    return std::nullopt;
  };
  auto k = Kernel::Create(std::move(o));
  ASSERT_TRUE(k.ok()) << k.status();
  auto providers = (*k)->ListProviders();
  ASSERT_EQ(providers.size(), 2u);
  bool saw_nvte = false;
  for (const auto& e : (*k)->LoadReport()) saw_nvte |= e.origin == "NVTE_PLUGIN" && e.loaded;
  EXPECT_TRUE(saw_nvte);
}

// Writes `text` to a file in the test's scratch directory and returns its path.
std::string ScratchFile(const std::string& name, const std::string& text) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// $TEPLUG_CONFIG (read through the kernel's environment lookup) names the
// startup config when the API gives none; a file that cannot be used fails
// creation with the variable and the problem's file:line.
TEST(KernelTest, TeplugConfigNamesTheStartupConfig) {
  const std::string good = ScratchFile("env_config.textproto",
                                       "log_level: \"warn\"\n"
                                       "rules { name: \"no-fast\" match { interfaces: \"gemm\" } deny: \"fast\" }\n");
  const std::string bad = ScratchFile("env_config_bad.textproto", "log_level: \"warn\"\nnot_a_field: 1\n");
  auto options = [&](const std::string& path) {
    KernelOptions o;
    o.load_builtins = false;
    o.plugin_paths = {FakePlugin("fast"), FakePlugin("wide")};
    o.env = [path](const char* name) -> std::optional<std::string> {
      if (std::string(name) == "TEPLUG_CONFIG") return path;
      if (std::string(name) == "TEPLUG_PLUGINS") return std::string("none");
      return std::nullopt;
    };
    return o;
  };
  auto k = Kernel::Create(options(good));
  ASSERT_TRUE(k.ok()) << k.status();
  GemmCall g;
  ASSERT_TRUE(CallGemm(**k, g).ok());
  EXPECT_EQ(g.OutputMarker(), kWide) << "the rule in $TEPLUG_CONFIG's file denies fast";
  EXPECT_EQ((*k)->ConfigSourceName(), good);

  auto refused = Kernel::Create(options(bad));
  ASSERT_FALSE(refused.ok());
  const std::string msg(refused.status().message());
  EXPECT_NE(msg.find("config named by $TEPLUG_CONFIG is unusable"), std::string::npos) << msg;
  EXPECT_NE(msg.find(bad + ":2:"), std::string::npos) << msg;
}

// ConfigSourceName says which config is in use: the embedded default, API
// text under its name, a file reloaded later under its path.
TEST(KernelTest, ConfigSourceNameSaysWhereTheConfigCameFrom) {
  KernelOptions o;
  o.use_environment = false;
  o.load_builtins = false;
  auto k = Kernel::Create(o);
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ((*k)->ConfigSourceName(), "<default.textproto>");
  auto text = Kernel::Create(IsolatedOptions({}));
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ((*text)->ConfigSourceName(), "test.textproto");
  const std::string file = ScratchFile("reloaded.textproto", "log_level: \"warn\"\n");
  ASSERT_TRUE((*text)->ReloadConfigFile(file).ok());
  EXPECT_EQ((*text)->ConfigSourceName(), file);
}

// Log level precedence: the API option, then $TEPLUG_LOG, then the config's
// log_level. Seen through the INFO line a first call logs ("serving ...").
TEST(KernelTest, LogLevelComesFromTheApiThenTeplugLogThenTheConfig) {
  auto served_lines = [](std::optional<LogLevel> api, std::optional<std::string> teplug_log,
                         LogCapture* log) {
    KernelOptions o;
    o.load_builtins = false;
    o.plugin_paths = {FakePlugin("wide")};
    o.config_text = "log_level: \"info\"\n";
    o.config_source_name = "test.textproto";
    o.log_level = api;
    o.log_sink = log->sink();
    o.env = [teplug_log](const char* name) -> std::optional<std::string> {
      if (std::string(name) == "TEPLUG_LOG") return teplug_log;
      if (std::string(name) == "TEPLUG_PLUGINS") return std::string("none");
      return std::nullopt;
    };
    auto k = Kernel::Create(std::move(o));
    EXPECT_TRUE(k.ok()) << k.status();
    if (!k.ok()) return -1;
    GemmCall g;
    EXPECT_TRUE(CallGemm(**k, g).ok());
    return log->Count("serving gemm");
  };
  LogCapture config_only, env_wins, api_wins, bad_env;
  EXPECT_EQ(served_lines(std::nullopt, std::nullopt, &config_only), 1) << config_only.All();
  EXPECT_EQ(served_lines(std::nullopt, "error", &env_wins), 0) << env_wins.All();
  EXPECT_EQ(served_lines(LogLevel::kWarn, "debug", &api_wins), 0) << api_wins.All();
  EXPECT_EQ(served_lines(std::nullopt, "loud", &bad_env), 1) << "a bad TEPLUG_LOG falls back to the config";
  EXPECT_EQ(bad_env.Count("TEPLUG_LOG=loud is not one of error, warn, info, debug"), 1) << bad_env.All();
}

TEST(KernelTest, RequiredPluginThatFailsFailsCreation) {
  KernelOptions o = IsolatedOptions({}, "plugins { path: \"/nonexistent/libteplug_gone.so\" required: true }\n");
  auto k = Kernel::Create(std::move(o));
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("libteplug_gone.so"), std::string::npos) << k.status();
  EXPECT_NE(k.status().message().find("required"), std::string::npos) << k.status();
}

TEST(KernelTest, RuntimeLoadAddsAProviderAndRefusesADuplicate) {
  auto k = MakeKernel({FakePlugin("wide")});
  GemmCall c1;
  ASSERT_TRUE(CallGemm(*k, c1).ok());
  EXPECT_EQ(c1.OutputMarker(), kWide);
  ASSERT_TRUE(k->LoadPlugin(FakePlugin("fast")).ok());
  GemmCall c2;
  ASSERT_TRUE(CallGemm(*k, c2).ok());
  EXPECT_EQ(c2.OutputMarker(), kFast);
  absl::Status again = k->LoadPlugin(FakePlugin("fast"));
  EXPECT_FALSE(again.ok());
  EXPECT_EQ(k->ListProviders().size(), 2u);
}

TEST(KernelCApiTest, CreateQueryExplainReportReloadDestroy) {
  const std::string fast = FakePlugin("fast"), wide = FakePlugin("wide");
  const char* paths[] = {fast.c_str(), wide.c_str()};
  TeplugKernelOptions o = sdk::Versioned<TeplugKernelOptions>();
  o.config_text = "log_level: \"error\"\n";
  o.plugin_paths = paths;
  o.num_plugin_paths = 2;
  o.ignore_environment = 1;
  o.no_builtins = 1;
  TeplugKernel* kernel = nullptr;
  sdk::OwnedError err(teplug_kernel_create(&o, &kernel));
  ASSERT_TRUE(err.ok()) << err.message();
  TeplugObject* obj = teplug_kernel_query_interface(kernel, &sdk::kIidGemmV1);
  ASSERT_NE(obj, nullptr);
  auto* gemm = reinterpret_cast<TeplugGemmV1*>(obj);
  GemmCall c;
  ASSERT_TRUE(sdk::OwnedError(gemm->vtbl->gemm(gemm, c.args())).ok());
  EXPECT_EQ(c.OutputMarker(), kFast);

  size_t len = 0;
  ASSERT_TRUE(sdk::OwnedError(teplug_kernel_explain(kernel, &sdk::kIidGemmV1, TEPLUG_OP_GEMM, c.args(), "wide",
                                                    nullptr, 0, &len)).ok());
  std::string text(len + 1, '\0');
  ASSERT_TRUE(sdk::OwnedError(teplug_kernel_explain(kernel, &sdk::kIidGemmV1, TEPLUG_OP_GEMM, c.args(), "wide",
                                                    text.data(), text.size(), &len)).ok());
  EXPECT_NE(text.find("requested provider: wide"), std::string::npos) << text;

  TeplugObject* selected = nullptr;
  ASSERT_TRUE(sdk::OwnedError(teplug_kernel_select(kernel, &sdk::kIidGemmV1, TEPLUG_OP_GEMM, c.args(), "wide",
                                                   &selected)).ok());
  ASSERT_NE(selected, nullptr);
  selected->vtbl->release(selected);

  TeplugObject* prepared = nullptr;
  ASSERT_TRUE(
      sdk::OwnedError(teplug_kernel_prepare(kernel, &sdk::kIidGemmV1, TEPLUG_OP_GEMM, c.args(), &prepared)).ok());
  ASSERT_NE(prepared, nullptr);
  auto* prepared_gemm = reinterpret_cast<TeplugGemmV1*>(prepared);
  c.ClearOutput();
  ASSERT_TRUE(sdk::OwnedError(prepared_gemm->vtbl->gemm(prepared_gemm, c.args())).ok());
  EXPECT_EQ(c.OutputMarker(), kFast);
  TeplugObject* none_prepared = nullptr;
  sdk::OwnedError not_an_op(teplug_kernel_prepare(kernel, &sdk::kIidGemmV1, 77, c.args(), &none_prepared));
  EXPECT_EQ(not_an_op.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(not_an_op.message(), "op 77 is not an op of IGemm/1");
  EXPECT_EQ(none_prepared, nullptr);

  ASSERT_TRUE(sdk::OwnedError(teplug_kernel_load_report(kernel, nullptr, 0, &len)).ok());
  EXPECT_GT(len, 0u);
  sdk::OwnedError bad(teplug_kernel_reload_config(kernel, "no_such_field: 1", "r.textproto"));
  EXPECT_EQ(bad.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(bad.message().find("r.textproto:1:"), std::string::npos) << bad.message();

  teplug_kernel_destroy(kernel);
  // The dispatching object keeps the kernel's state alive on its own.
  GemmCall after;
  ASSERT_TRUE(sdk::OwnedError(gemm->vtbl->gemm(gemm, after.args())).ok());
  EXPECT_EQ(after.OutputMarker(), kFast);
  obj->vtbl->release(obj);
  // So does a prepared one.
  c.ClearOutput();
  ASSERT_TRUE(sdk::OwnedError(prepared_gemm->vtbl->gemm(prepared_gemm, c.args())).ok());
  EXPECT_EQ(c.OutputMarker(), kFast);
  prepared->vtbl->release(prepared);

  TeplugKernel* none = nullptr;
  TeplugKernelOptions bad_opts = o;
  bad_opts.config_text = "strict: maybe\n";
  sdk::OwnedError create_err(teplug_kernel_create(&bad_opts, &none));
  EXPECT_EQ(create_err.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(none, nullptr);
}

}  // namespace
}  // namespace teplug::core
