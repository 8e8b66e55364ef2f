// Every stage of Decide, one at a time: each case puts beside an acceptable
// candidate ("good") one that only the stage under test rejects ("odd"), and
// checks that exactly that stage rejects it, with its reason, while "good" is
// still chosen. A stage that is skipped, or that rejects too much, fails its
// case. The device stage is walked in every direction (host op against a
// device-only implementation, device op against a host-only one, vendor and
// arch bounds), since a check skipped for host ops is invisible to tests that
// only send device ops to host implementations.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "core/config/config_loader.h"
#include "core/select/selector.h"
#include "core/select/testing/gemm_implementation.h"
#include "core/ops/attention.h"
#include "core/ops/collective.h"
#include "core/ops/gemm.h"
#include "core/ops/modules.h"
#include "core/ops/quantizer.h"
#include "gtest/gtest.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::core {
namespace {

constexpr TeplugDeviceSupport Support(int32_t kind, uint32_t vendor = TEPLUG_VENDOR_ANY, int32_t arch_min = 0,
                                      int32_t arch_max = 0) {
  return {sizeof(TeplugDeviceSupport), kind, vendor, arch_min, arch_max};
}
const TeplugDeviceSupport kCpuOnly = Support(TEPLUG_DEVICE_CPU);

// An fp32 2x2 GEMM whose tensors all live on `device` (host when null).
class GemmOp {
 public:
  explicit GemmOp(std::optional<TeplugDevice> device = std::nullopt) : device_(device.value_or(TeplugDevice{})) {
    for (TeplugTensor* t : {&a_, &b_, &d_}) {
      *t = sdk::Versioned<TeplugTensor>();
      t->data = data_;
      t->dtype = TEPLUG_DTYPE_FP32;
      t->rank = 2;
      t->shape[0] = t->shape[1] = 2;
      t->device = device ? &device_ : nullptr;
    }
    args_ = sdk::Versioned<TeplugGemmArgs>();
    args_.a = &a_;
    args_.b = &b_;
    args_.d = &d_;
    args_.alpha = 1.f;
    absl::StatusOr<OpDescription> op = DescribeOp(GemmModule(), TEPLUG_OP_GEMM, &args_);
    EXPECT_TRUE(op.ok()) << op.status();
    if (op.ok()) op_ = *std::move(op);
  }
  GemmOp(const GemmOp&) = delete;
  GemmOp& operator=(const GemmOp&) = delete;
  const OpDescription& op() const { return op_; }

 private:
  TeplugDevice device_;
  float data_[4] = {};
  TeplugTensor a_, b_, d_;
  TeplugGemmArgs args_;
  OpDescription op_;
};

TeplugDevice Device(int32_t kind, uint32_t vendor = TEPLUG_VENDOR_ANY, int32_t arch = 0) {
  TeplugDevice d = sdk::Versioned<TeplugDevice>();
  d.kind = kind;
  d.vendor_id = vendor;
  d.arch = arch;
  return d;
}

TeplugBool SupportsYes(TeplugObject*, int32_t, const void*, char*, size_t) { return 1; }
TeplugBool SupportsNo(TeplugObject*, int32_t, const void*, char* reason, size_t size) {
  std::snprintf(reason, size, "no tuned kernel (test)");
  return 0;
}

// One implementation named `provider`/gemm: fp32 GEMM on `devices`.
std::shared_ptr<Implementation> MutableGemm(const std::string& provider, std::vector<TeplugDeviceSupport> devices,
                                            uint64_t dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32),
                                            TeplugSupportsFn supports = &SupportsYes, int32_t priority = 0) {
  return TestGemmImplementation(provider, std::move(devices), dtypes, supports, priority);
}
std::shared_ptr<const Implementation> Gemm(const std::string& provider, std::vector<TeplugDeviceSupport> devices,
                                           uint64_t dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32),
                                           TeplugSupportsFn supports = &SupportsYes, int32_t priority = 0) {
  return MutableGemm(provider, std::move(devices), dtypes, supports, priority);
}

std::shared_ptr<const config::ConfigSnapshot> Config(const std::string& text) {
  auto parsed = config::ParseConfigText(text, "stages.textproto");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  if (!parsed.ok()) return config::ConfigSnapshot::Create(*config::ParseConfigText("", "empty"), 1);
  return config::ConfigSnapshot::Create(*std::move(parsed), 1);
}

struct Outcome {
  DecisionRecord record;
  const CandidateVerdict* Of(const std::string& provider) const {
    for (const CandidateVerdict& c : record.candidates) {
      if (c.provider() == provider) return &c;
    }
    return nullptr;
  }
};

Outcome Select(const OpDescription& op, ImplementationList pool, const std::string& config_text = "",
            const std::string& requested = "") {
  SortImplementations(&pool);
  SelectRequest req;
  req.op = &op;
  req.candidates = std::make_shared<const ImplementationList>(std::move(pool));
  req.config = Config(config_text);
  req.provider = requested;
  return Outcome{Decide(req).record()};
}

// "odd" is rejected at `stage` with a reason containing `reason`; "good" is chosen.
void ExpectOnlyStageRejects(const Outcome& out, Stage stage, const std::string& reason) {
  const CandidateVerdict* odd = out.Of("odd");
  const CandidateVerdict* good = out.Of("good");
  ASSERT_NE(odd, nullptr);
  ASSERT_NE(good, nullptr);
  EXPECT_EQ(odd->verdict, Verdict::kRejected) << out.record.Format();
  EXPECT_EQ(odd->stage, stage) << out.record.Format();
  EXPECT_TRUE(absl::StrContains(out.record.Reason(*odd), reason)) << out.record.Reason(*odd);
  EXPECT_EQ(good->verdict, Verdict::kChosen) << out.record.Format();
}

TEST(SelectorStagesTest, RequestStageRejectsOnlyTheProvidersNotAsked) {
  GemmOp host;
  Outcome out = Select(host.op(), {Gemm("good", {kCpuOnly}), Gemm("odd", {kCpuOnly})}, "", "good");
  ExpectOnlyStageRejects(out, Stage::kRequest, "not the requested provider \"good\"");
}

TEST(SelectorStagesTest, ConfigStageRejectsADisabledProvider) {
  GemmOp host;
  Outcome out = Select(host.op(), {Gemm("good", {kCpuOnly}), Gemm("odd", {kCpuOnly})},
                    "providers { name: \"odd\" enabled: false }");
  ExpectOnlyStageRejects(out, Stage::kConfig, "provider disabled");
}

TEST(SelectorStagesTest, ConfigStageKeepsAProviderExplicitlyEnabled) {
  GemmOp host;
  Outcome out = Select(host.op(), {Gemm("good", {kCpuOnly}, TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32), &SupportsYes, 1)},
                    "providers { name: \"good\" enabled: true }");
  ASSERT_NE(out.Of("good"), nullptr);
  EXPECT_EQ(out.Of("good")->verdict, Verdict::kChosen);
}

TEST(SelectorStagesTest, DeviceStageRejectsAHostOpForADeviceOnlyImplementation) {
  GemmOp host;
  Outcome out = Select(host.op(), {Gemm("good", {kCpuOnly}), Gemm("odd", {Support(TEPLUG_DEVICE_CUDA)})});
  ExpectOnlyStageRejects(out, Stage::kDevice, "device cpu:0 not in {cuda}");
}

TEST(SelectorStagesTest, DeviceStageRejectsADeviceOpForAHostOnlyImplementation) {
  GemmOp cuda(Device(TEPLUG_DEVICE_CUDA, TEPLUG_VENDOR_NVIDIA, 90));
  Outcome out = Select(cuda.op(), {Gemm("good", {Support(TEPLUG_DEVICE_CUDA)}), Gemm("odd", {kCpuOnly})});
  ExpectOnlyStageRejects(out, Stage::kDevice, "not in {cpu}");
}

TEST(SelectorStagesTest, DeviceStageRejectsAnotherDeviceKind) {
  GemmOp opencl(Device(TEPLUG_DEVICE_OPENCL));
  Outcome out = Select(opencl.op(), {Gemm("good", {Support(TEPLUG_DEVICE_ANY)}), Gemm("odd", {Support(TEPLUG_DEVICE_CUDA)})});
  ExpectOnlyStageRejects(out, Stage::kDevice, "not in {cuda}");
}

TEST(SelectorStagesTest, DeviceStageRejectsAnotherVendor) {
  GemmOp cuda(Device(TEPLUG_DEVICE_CUDA, TEPLUG_VENDOR_NVIDIA, 90));
  Outcome out = Select(cuda.op(), {Gemm("good", {Support(TEPLUG_DEVICE_CUDA, TEPLUG_VENDOR_NVIDIA)}),
                                Gemm("odd", {Support(TEPLUG_DEVICE_CUDA, TEPLUG_VENDOR_AMD)})});
  ExpectOnlyStageRejects(out, Stage::kDevice, "not in {cuda amd}");
}

TEST(SelectorStagesTest, DeviceStageAcceptsAnyLaterListedDevice) {
  GemmOp host;
  Outcome out = Select(host.op(), {Gemm("good", {Support(TEPLUG_DEVICE_CUDA), kCpuOnly})});
  ASSERT_NE(out.Of("good"), nullptr);
  EXPECT_EQ(out.Of("good")->verdict, Verdict::kChosen) << out.record.Format();
}

// Arch bounds are inclusive: equal to a bound serves, one past it does not.
TEST(SelectorStagesTest, DeviceStageArchBoundsAreInclusive) {
  struct Case {
    int32_t arch, arch_min, arch_max;
    bool served;
  };
  for (const Case& c : {Case{80, 80, 90, true}, Case{90, 80, 90, true}, Case{79, 80, 90, false},
                        Case{91, 80, 90, false}, Case{85, 85, 85, true}, Case{84, 85, 0, false},
                        Case{85, 85, 0, true}, Case{86, 0, 85, false}, Case{85, 0, 85, true}}) {
    GemmOp cuda(Device(TEPLUG_DEVICE_CUDA, TEPLUG_VENDOR_NVIDIA, c.arch));
    Outcome out = Select(cuda.op(), {Gemm("odd", {Support(TEPLUG_DEVICE_CUDA, TEPLUG_VENDOR_ANY, c.arch_min, c.arch_max)})});
    ASSERT_NE(out.Of("odd"), nullptr);
    EXPECT_EQ(out.Of("odd")->verdict == Verdict::kChosen, c.served)
        << "arch " << c.arch << " against [" << c.arch_min << ", " << c.arch_max << "]: " << out.record.Format();
    if (!c.served) {
      EXPECT_EQ(out.Of("odd")->stage, Stage::kDevice);
    }
  }
}

TEST(SelectorStagesTest, CapabilityStageRejectsAnUnservedDType) {
  GemmOp host;
  Outcome out = Select(host.op(), {Gemm("good", {kCpuOnly}), Gemm("odd", {kCpuOnly}, TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16))});
  ExpectOnlyStageRejects(out, Stage::kCapability, "A dtype fp32 not in {bf16}");
}

TEST(SelectorStagesTest, SupportsStageRejectsWhatTheHookDeclines) {
  GemmOp host;
  Outcome out = Select(host.op(), {Gemm("good", {kCpuOnly}),
                                Gemm("odd", {kCpuOnly}, TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32), &SupportsNo)});
  ExpectOnlyStageRejects(out, Stage::kSupports, "no tuned kernel (test)");
}

TEST(SelectorStagesTest, ConfigStageRejectsADeniedProvider) {
  GemmOp host;
  Outcome out = Select(host.op(), {Gemm("good", {kCpuOnly}), Gemm("odd", {kCpuOnly})},
                    "rules { name: \"no-odd\" deny: \"odd\" }");
  ExpectOnlyStageRejects(out, Stage::kConfig, "denied");
  EXPECT_TRUE(absl::StrContains(out.record.Rule(*out.Of("odd")), "no-odd")) << out.record.Rule(*out.Of("odd"));
}

// A rule may deny some providers and rank others: the deny still applies.
TEST(SelectorStagesTest, ConfigStageDeniesEvenWhenTheSameRulePrefers) {
  GemmOp host;
  Outcome out = Select(host.op(), {Gemm("good", {kCpuOnly}), Gemm("odd", {kCpuOnly}, TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32),
                                                                 &SupportsYes, 100)},
                    "rules { name: \"mixed\" prefer: \"good\" deny: \"odd\" }");
  ExpectOnlyStageRejects(out, Stage::kConfig, "denied");
  EXPECT_TRUE(absl::StrContains(out.record.Rule(*out.Of("odd")), "mixed")) << out.record.Rule(*out.Of("odd"));
}

TEST(SelectorStagesTest, ConfigStageDeniesWhatAnEarlierRuleAllows) {
  GemmOp host;
  Outcome out = Select(host.op(), {Gemm("good", {kCpuOnly}), Gemm("odd", {kCpuOnly})},
                       "rules { name: \"both\" allow: [\"good\", \"odd\"] }\n"
                       "rules { name: \"not-odd\" deny: \"odd\" }");
  ExpectOnlyStageRejects(out, Stage::kConfig, "denied");
}

TEST(SelectorStagesTest, ConfigStageRejectsAProviderOutsideTheAllowList) {
  GemmOp host;
  Outcome out = Select(host.op(), {Gemm("good", {kCpuOnly}), Gemm("odd", {kCpuOnly})},
                    "rules { name: \"only-good\" allow: \"good\" }");
  ExpectOnlyStageRejects(out, Stage::kConfig, "not in the allow list");
}

// A rule whose match does not fit the op applies to nothing.
TEST(SelectorStagesTest, ConfigStageIgnoresRulesForOtherOps) {
  GemmOp host;
  Outcome out = Select(host.op(), {Gemm("odd", {kCpuOnly})},
                    "rules { name: \"cuda-only\" match { device_kinds: \"cuda\" } deny: \"odd\" }");
  ASSERT_NE(out.Of("odd"), nullptr);
  EXPECT_EQ(out.Of("odd")->verdict, Verdict::kChosen) << out.record.Format();
}

// Ranking: prefer beats priority, priority beats name, name breaks ties.
TEST(SelectorStagesTest, RankingStageOrdersByPreferThenPriorityThenName) {
  GemmOp host;
  const uint64_t fp32 = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32);
  ImplementationList pool = {Gemm("a", {kCpuOnly}, fp32, &SupportsYes, 5), Gemm("b", {kCpuOnly}, fp32, &SupportsYes, 5),
                             Gemm("c", {kCpuOnly}, fp32, &SupportsYes, 9), Gemm("d", {kCpuOnly}, fp32, &SupportsYes, 1)};
  Outcome by_priority = Select(host.op(), pool);
  std::vector<std::string> order;
  for (const CandidateVerdict& c : by_priority.record.candidates) order.push_back(c.provider());
  EXPECT_EQ(order, (std::vector<std::string>{"c", "a", "b", "d"}));
  EXPECT_EQ(by_priority.Of("c")->stage, Stage::kRanking);
  EXPECT_EQ(by_priority.Of("a")->verdict, Verdict::kOutranked);
  EXPECT_TRUE(absl::StrContains(by_priority.record.Reason(*by_priority.Of("a")), "priority 9 > 5")) << by_priority.record.Reason(*by_priority.Of("a"));
  Outcome tied = Select(host.op(), {pool[0], pool[1]});
  EXPECT_EQ(tied.Of("a")->verdict, Verdict::kChosen);
  EXPECT_TRUE(absl::StrContains(tied.record.Reason(*tied.Of("b")), "same priority 5, name order")) << tied.record.Reason(*tied.Of("b"));

  Outcome preferred = Select(host.op(), pool, "rules { name: \"p\" prefer: [\"d\", \"b\"] }");
  order.clear();
  for (const CandidateVerdict& c : preferred.record.candidates) order.push_back(c.provider());
  EXPECT_EQ(order, (std::vector<std::string>{"d", "b", "c", "a"}));
  EXPECT_TRUE(absl::StrContains(preferred.record.Reason(*preferred.Of("b")), "earlier in the prefer list")) << preferred.record.Reason(*preferred.Of("b"));
}

// Past 65535 survivors ranking takes a slower path; it must order exactly
// as the fast one: priority first, then arrival (provider, name) order.
TEST(SelectorStagesTest, RankingPastSixtyFiveThousandSurvivorsKeepsPriorityThenNameOrder) {
  GemmOp host;
  constexpr int kCount = 0x10000 + 2;
  auto provider = std::make_shared<Provider>();
  provider->name = "many";
  ImplementationList pool;
  pool.reserve(kCount);
  for (int i = 0; i < kCount; ++i) {
    auto impl = MutableGemm("many", {kCpuOnly});
    impl->provider = provider;
    impl->name = absl::StrFormat("gemm%06d", i);
    impl->qualified_name = "many/" + impl->name;
    // The last one (by name) has the highest priority, one in the middle the
    // next lower one: adjacent priorities, and indexes past 16 bits.
    impl->default_priority = i == kCount - 1 ? 3 : i == 0x8000 ? 2 : 0;
    pool.push_back(std::move(impl));
  }
  SelectRequest req;
  req.op = &host.op();
  req.candidates = std::make_shared<const ImplementationList>(pool);
  req.config = Config("");
  Decision d = Decide(req);
  ASSERT_EQ(d.ranked.size(), static_cast<size_t>(kCount));
  EXPECT_EQ(d.ranked[0]->name, pool[kCount - 1]->name);
  EXPECT_EQ(d.ranked[1]->name, pool[0x8000]->name);
  // The rest keep name order.
  size_t mismatches = 0;
  size_t next = 0;
  for (size_t r = 2; r < d.ranked.size(); ++r, ++next) {
    if (next == 0x8000) ++next;
    if (d.ranked[r] != pool[next].get()) ++mismatches;
  }
  EXPECT_EQ(mismatches, 0u);
}

TEST(SelectorStagesTest, ConfigPriorityOverrideReordersRanking) {
  GemmOp host;
  const uint64_t fp32 = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32);
  Outcome out = Select(host.op(), {Gemm("good", {kCpuOnly}, fp32, &SupportsYes, 1), Gemm("odd", {kCpuOnly}, fp32, &SupportsYes, 9)},
                    "priorities { provider: \"good\" priority: 10 }");
  ASSERT_NE(out.Of("good"), nullptr);
  EXPECT_EQ(out.Of("good")->verdict, Verdict::kChosen) << out.record.Format();
  EXPECT_EQ(out.Of("good")->priority, 10);
  EXPECT_EQ(out.Of("odd")->verdict, Verdict::kOutranked);
}

}  // namespace
}  // namespace teplug::core
