// The declared numeric limits as conformance honours them: every interface's
// planned cases fitted inside whatever limits its table names, the edge and
// outside probes of each limit, and --case texts told apart by whether they
// break a limit.
#include "tools/teplug/conformance_limits.h"

#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tools/teplug/conformance_attention.h"
#include "tools/teplug/conformance_collective.h"
#include "tools/teplug/conformance_gemm.h"
#include "tools/teplug/conformance_interface.h"
#include "tools/teplug/conformance_norm.h"

namespace teplug::cli {
namespace {

// A listing whose descriptor sets the numeric fields `numbers`.
core::ImplementationListing Declaring(const std::map<std::string, int64_t>& numbers) {
  core::ImplementationListing impl;
  for (const auto& [name, value] : numbers) {
    core::CapabilityField f;
    f.name = name;
    f.number = value;
    impl.capability_fields.push_back(f);
  }
  return impl;
}

std::vector<DeclaredLimit> Limits(const InterfaceConformance& ic,
                                  const std::map<std::string, int64_t>& numbers) {
  return DeclaredLimits(Declaring(numbers), ic.limit_rules());
}

// "key=value" items of a case text.
std::map<std::string, std::string> Items(const std::string& text) {
  std::map<std::string, std::string> items;
  EXPECT_TRUE(ForEachCaseItem(text, [&](const std::string& k, const std::string& v) {
                items[k] = v;
                return absl::OkStatus();
              }).ok());
  return items;
}

// Limits no planner default satisfies: a maximum below the defaults, a
// multiple none of them is, a minimum above them; maxima of seq_q and seq_kv
// that differ (packed QKV layouts still need the two equal).
const std::map<std::string, std::map<std::string, int64_t>> kTight = {
    {"gemm", {{"max_dim", 200}, {"alignment", 64}}},
    {"attention", {{"head_dim_min", 32}, {"head_dim_max", 96}, {"head_dim_multiple", 48}, {"max_seqlen_q", 5},
                   {"max_seqlen_kv", 7}}},
    {"norm", {{"hidden_min", 100}, {"hidden_max", 1000}, {"hidden_multiple", 48}}},
    {"collective", {{"max_world_size", 2}}},
};

class FitTest : public ::testing::TestWithParam<const InterfaceConformance*> {};

TEST_P(FitTest, EveryFittedCaseIsInsideEveryDeclaredLimitAndParses) {
  const InterfaceConformance& ic = *GetParam();
  ASSERT_NE(ic.limit_rules, nullptr) << ic.name;
  ASSERT_NE(ic.refuses, nullptr) << ic.name;
  const std::vector<DeclaredLimit> limits = Limits(ic, kTight.at(ic.name));
  ASSERT_EQ(limits.size(), ic.limit_rules().size()) << ic.name;
  int moved = 0;
  for (const PlannedCase& p : ic.plan(ic.all_claims(), false, 5)) {
    absl::StatusOr<std::string> fitted = FitCase(p.text, limits);
    ASSERT_TRUE(fitted.ok()) << p.text << ": " << fitted.status();
    EXPECT_FALSE(LimitBroken(*fitted, limits).has_value()) << *fitted;
    EXPECT_TRUE(ic.parse_case(*fitted).ok()) << *fitted;
    moved += LimitBroken(p.text, limits).has_value();
  }
  // The limits are tight: the planner's own cases broke them.
  EXPECT_GT(moved, 0) << ic.name;
}

TEST_P(FitTest, EveryProbeIsAtItsEdgeAndOutsideOnlyItsOwnLimit) {
  const InterfaceConformance& ic = *GetParam();
  const std::vector<DeclaredLimit> limits = Limits(ic, kTight.at(ic.name));
  const std::vector<PlannedCase> plan = ic.plan(ic.all_claims(), true, 5);
  ASSERT_FALSE(plan.empty());
  absl::StatusOr<std::string> base = FitCase(plan[0].text, limits);
  ASSERT_TRUE(base.ok());
  for (const LimitProbe& p : PlanLimitProbes(*base, limits)) {
    ASSERT_FALSE(p.edge.empty()) << p.limit.Claim();
    EXPECT_FALSE(LimitBroken(p.edge, limits).has_value()) << p.edge;
    EXPECT_TRUE(ic.parse_case(p.edge).ok()) << p.edge;
    if (p.outside.empty()) {
      EXPECT_FALSE(p.why_no_outside.empty()) << p.limit.Claim();
      continue;
    }
    std::optional<DeclaredLimit> broken = LimitBroken(p.outside, limits);
    ASSERT_TRUE(broken.has_value()) << p.outside;
    EXPECT_EQ(broken->rule->field, p.limit.rule->field) << p.outside;
    EXPECT_TRUE(ic.parse_case(p.outside).ok()) << p.outside;
  }
}

INSTANTIATE_TEST_SUITE_P(Interfaces, FitTest,
                         ::testing::Values(&GemmConformance(), &AttentionConformance(),
                                           &NormConformance(), &CollectiveConformance()),
                         [](const auto& info) { return std::string(info.param->name); });

TEST(LimitsTest, HeadDimsGoToTheLargestMaximumAndTheSmallestMultiple) {
  const std::vector<DeclaredLimit> limits =
      Limits(AttentionConformance(), {{"head_dim_max", 128}, {"head_dim_multiple", 16}});
  const std::string base = "qkv_dtype=fp32,batch=2,seq_q=8,seq_kv=12,head_dim=16,head_dim_v=16";
  const std::vector<LimitProbe> probes = PlanLimitProbes(base, limits);
  ASSERT_EQ(probes.size(), 2u);
  EXPECT_EQ(probes[0].limit.Claim(), "head_dim_max=128 (head_dim, head_dim_v)");
  EXPECT_EQ(Items(probes[0].edge)["head_dim"], "128");
  EXPECT_EQ(Items(probes[0].edge)["head_dim_v"], "128");
  EXPECT_EQ(Items(probes[0].outside)["head_dim"], "144");  // the next multiple of 16
  EXPECT_EQ(Items(probes[1].edge)["head_dim"], "16");
  EXPECT_EQ(Items(probes[1].outside)["head_dim"], "17");
  EXPECT_EQ(Items(probes[1].outside)["seq_q"], "8");  // the rest untouched
}

// Keys equal before fitting stay equal when both bounds allow a value; keys
// that differed are fitted each on its own.
TEST(LimitsTest, EqualSequenceLengthsStayEqualUnderDifferentMaxima) {
  const std::vector<DeclaredLimit> limits =
      Limits(AttentionConformance(), {{"max_seqlen_q", 64}, {"max_seqlen_kv", 256}});
  absl::StatusOr<std::string> packed = FitCase("layout=bs3hd,seq_q=300,seq_kv=300", limits);
  ASSERT_TRUE(packed.ok());
  EXPECT_EQ(*packed, "layout=bs3hd,seq_q=64,seq_kv=64");
  absl::StatusOr<std::string> separate = FitCase("seq_q=100,seq_kv=300", limits);
  ASSERT_TRUE(separate.ok());
  EXPECT_EQ(*separate, "seq_q=64,seq_kv=256");
}

TEST(LimitsTest, DifferentHeadDimsStayDifferent) {
  const std::vector<DeclaredLimit> limits =
      Limits(AttentionConformance(), {{"head_dim_multiple", 16}});
  absl::StatusOr<std::string> fitted = FitCase("head_dim=16,head_dim_v=8", limits);
  ASSERT_TRUE(fitted.ok());
  EXPECT_EQ(*fitted, "head_dim=32,head_dim_v=16");
}

TEST(LimitsTest, AMinimumWithAMultipleProbesTheFirstMultipleAtOrAboveIt) {
  const std::vector<DeclaredLimit> limits =
      Limits(NormConformance(), {{"hidden_min", 100}, {"hidden_multiple", 48}});
  const std::vector<LimitProbe> probes = PlanLimitProbes("rows=17,hidden=64", limits);
  ASSERT_EQ(probes.size(), 2u);
  EXPECT_EQ(probes[0].edge, "rows=17,hidden=144");
  EXPECT_EQ(probes[0].outside, "rows=17,hidden=96");  // below the minimum, on the multiple
  EXPECT_EQ(probes[1].edge, "rows=17,hidden=144");
  EXPECT_EQ(probes[1].outside, "rows=17,hidden=145");
}

TEST(LimitsTest, GemmAlignmentProbesLeadingDimensionsWithoutTransposes) {
  const std::vector<DeclaredLimit> limits = Limits(GemmConformance(), {{"alignment", 64}});
  const std::vector<LimitProbe> probes =
      PlanLimitProbes("trans_a=1,trans_b=0,m=17,n=24,k=64", limits);
  ASSERT_EQ(probes.size(), 2u);  // n and k; m only fitted
  for (const LimitProbe& p : probes) {
    EXPECT_EQ(Items(p.edge)["trans_a"], "0");
    EXPECT_EQ(Items(p.edge)["trans_b"], "1");
    EXPECT_EQ(Items(p.edge)["m"], "128");  // 2 * 64: aligned even for fp4 operands
  }
  EXPECT_EQ(Items(probes[0].outside)["n"], "129");
  EXPECT_EQ(Items(probes[1].outside)["k"], "129");
  // An alignment an fp32 dimension one past a multiple still meets: no outside case.
  const std::vector<LimitProbe> small =
      PlanLimitProbes("m=17,n=24,k=64", Limits(GemmConformance(), {{"alignment", 4}}));
  ASSERT_EQ(small.size(), 2u);
  EXPECT_TRUE(small[0].outside.empty());
  EXPECT_NE(small[0].why_no_outside, "");
}

TEST(LimitsTest, AMaximumBeyondWhatConformanceBuildsIsProbedAtTheLargestCase) {
  const std::vector<DeclaredLimit> limits = Limits(GemmConformance(), {{"max_dim", 65536}});
  const std::vector<LimitProbe> probes = PlanLimitProbes("m=17,n=24,k=64", limits);
  ASSERT_EQ(probes.size(), 3u);
  EXPECT_EQ(probes[0].edge, "m=4096,n=24,k=64");
  EXPECT_TRUE(probes[0].outside.empty());
  EXPECT_NE(probes[0].why_no_outside.find("larger than conformance builds (4096)"),
            std::string::npos);
}

TEST(LimitsTest, UnboundedAndOneMeanNoLimit) {
  EXPECT_TRUE(Limits(NormConformance(), {{"hidden_min", 0}, {"hidden_max", 0},
                                         {"hidden_multiple", 1}})
                  .empty());
}

TEST(LimitsTest, NoValueInsideContradictoryLimitsIsAnErrorNamingTheKey) {
  const std::vector<DeclaredLimit> limits = Limits(
      NormConformance(), {{"hidden_min", 100}, {"hidden_max", 120}, {"hidden_multiple", 48}});
  absl::StatusOr<std::string> fitted = FitCase("rows=3,hidden=64", limits);
  ASSERT_FALSE(fitted.ok());
  EXPECT_NE(fitted.status().message().find("no value of hidden"), std::string::npos);
}

}  // namespace
}  // namespace teplug::cli
