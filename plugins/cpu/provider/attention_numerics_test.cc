// The cpu provider's attention forward against the reference oracle on random
// inputs, for every claim its descriptor makes: the three dtypes, all 15
// layouts, every mask and bias type, GQA and MQA, sliding windows, different
// head dims, lengths spanning several query and key tiles, and dropout with
// the reference's Philox mask. O within the tolerance table's attention
// forward tolerance of its dtype, LSE within the fp32 one, -inf exactly where
// the reference has it.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/cpu/provider/attention_provider.h"
#include "plugins/cpu/provider/testing/attention_case.h"
#include "plugins/reference/provider/attention_provider.h"
#include "tools/teplug/tolerances.h"

namespace teplug::cpu::provider {
namespace {

using testing::AttentionCase;
using testing::AttentionConfig;
using testing::NormalizedMaxError;

// Runs both providers on one random case and compares.
void ExpectMatchesReference(const AttentionConfig& config, int threads = 0) {
  SCOPED_TRACE(config.Name());
  std::mt19937_64 rng(std::hash<std::string>()(config.Name()));
  AttentionCase c(config, rng);
  AttentionCase::Outputs mine = c.NewOutputs(rng), oracle = c.NewOutputs(rng);
  TeplugAttentionFwdArgs mine_args = c.Args(mine), oracle_args = c.Args(oracle);
  CpuAttention cpu(threads);
  const absl::Status s = cpu.RunForward(mine_args);
  ASSERT_TRUE(s.ok()) << s;
  const absl::Status r = reference::provider::RunReferenceAttentionForward(oracle_args);
  ASSERT_TRUE(r.ok()) << r;
  const std::vector<double> o = mine.o->Values(), o_ref = oracle.o->Values();
  EXPECT_LE(NormalizedMaxError(o, o_ref),
            cli::OutputTolerance(cli::ToleranceKind::kAttentionForward, config.dtype));
  const std::vector<double> lse = mine.lse->Values(), lse_ref = oracle.lse->Values();
  std::vector<double> finite, finite_ref;
  int mismatched_infinities = 0;
  for (size_t e = 0; e < lse.size(); ++e) {
    if (std::isinf(lse_ref[e]) || std::isinf(lse[e])) {
      mismatched_infinities += lse[e] != lse_ref[e];
    } else {
      finite.push_back(lse[e]);
      finite_ref.push_back(lse_ref[e]);
    }
  }
  EXPECT_EQ(mismatched_infinities, 0);
  EXPECT_LE(NormalizedMaxError(finite, finite_ref),
            cli::OutputTolerance(cli::ToleranceKind::kAttentionForward, TEPLUG_DTYPE_FP32));
}

TEST(CpuAttentionNumericsTest, EveryLayoutWithEveryMask) {
  for (const AttentionConfig& c : testing::LayoutMaskConfigs()) ExpectMatchesReference(c);
}

TEST(CpuAttentionNumericsTest, EveryBiasTypeInEveryDType) {
  for (const AttentionConfig& c : testing::BiasConfigs()) ExpectMatchesReference(c);
}

TEST(CpuAttentionNumericsTest, GroupedAndMultiQueryHeads) {
  for (const AttentionConfig& c : testing::GroupedHeadConfigs()) ExpectMatchesReference(c);
}

TEST(CpuAttentionNumericsTest, SlidingWindows) {
  for (const AttentionConfig& c : testing::WindowConfigs()) ExpectMatchesReference(c);
}

// More rows than a query tile and keys than a key tile: work split across
// tiles and items, sums across them.
TEST(CpuAttentionNumericsTest, LengthsSpanningSeveralTiles) {
  for (const AttentionConfig& c : testing::MultiTileConfigs()) ExpectMatchesReference(c);
}

// Dropout: O matches only if every keep decision equals the reference's.
TEST(CpuAttentionNumericsTest, DropoutMaskEqualsTheReferences) {
  for (const AttentionConfig& c : testing::DropoutConfigs()) ExpectMatchesReference(c);
  AttentionConfig inference;
  inference.dropout = 0.5f;
  inference.training = false;  // dropout does not apply
  ExpectMatchesReference(inference);
}

// The same bytes out for any thread count.
TEST(CpuAttentionNumericsTest, ResultsDoNotDependOnTheThreadCount) {
  AttentionConfig config;
  config.sq = 200;
  config.skv = 170;
  config.mask = TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT;
  config.dropout = 0.2f;
  std::vector<std::vector<double>> outputs;
  for (int threads : {1, 2, 3, 8}) {
    std::mt19937_64 rng(7);
    AttentionCase c(config, rng);
    AttentionCase::Outputs out = c.NewOutputs(rng);
    TeplugAttentionFwdArgs args = c.Args(out);
    ASSERT_TRUE(CpuAttention(threads).RunForward(args).ok());
    std::vector<double> values = out.o->Values();
    const std::vector<double> lse = out.lse->Values();
    values.insert(values.end(), lse.begin(), lse.end());
    outputs.push_back(values);
  }
  for (size_t t = 1; t < outputs.size(); ++t) {
    EXPECT_TRUE(outputs[t] == outputs[0]) << "thread setting " << t;
  }
  ExpectMatchesReference(config, 3);
}

}  // namespace
}  // namespace teplug::cpu::provider
