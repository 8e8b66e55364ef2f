// The cpu provider's attention backward against the reference oracle on
// random inputs, for every claim its descriptor makes: the three dtypes, all
// 15 layouts (packed gradient buffers included), every mask and bias type
// (dBias for pre/post-scale, per element and broadcast), GQA and MQA (dK, dV
// summed over the group), sliding windows, different head dims, lengths
// spanning several query and key tiles, and dropout with the forward's
// Philox mask. Both backwards get the reference forward's O and LSE; every
// element of every gradient buffer (padding rows and thd tokens past the
// last sequence, which must be 0, included) is within the tolerance table's
// attention backward tolerance of its dtype (fp32 1e-4, bf16 2^-5, fp16 4e-3
// of the tensor's max). Results are byte-identical for any thread count and
// on a second run (the descriptor declares deterministic).
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

// Every gradient buffer's values, in order (dbias last when present).
std::vector<std::vector<double>> Values(const AttentionCase::Gradients& g) {
  std::vector<std::vector<double>> all;
  for (const auto& b : g.buffers) all.push_back(b->Values());
  if (g.dbias != nullptr) all.push_back(g.dbias->Values());
  return all;
}

// The cpu backward's gradients of one random case, after the reference
// forward; `oracle` gets the reference backward's.
struct BackwardRun {
  std::vector<std::vector<double>> mine, oracle;
};

BackwardRun RunBoth(const AttentionConfig& config, int threads) {
  std::mt19937_64 rng(std::hash<std::string>()(config.Name()));
  AttentionCase c(config, rng);
  AttentionCase::Outputs fwd = c.NewOutputs(rng);
  TeplugAttentionFwdArgs fwd_args = c.Args(fwd);
  BackwardRun run;
  const absl::Status f = reference::provider::RunReferenceAttentionForward(fwd_args);
  EXPECT_TRUE(f.ok()) << f;
  AttentionCase::Gradients mine = c.NewGradients(rng), oracle = c.NewGradients(rng);
  TeplugAttentionBwdArgs mine_args = c.BackwardArgs(fwd, mine);
  TeplugAttentionBwdArgs oracle_args = c.BackwardArgs(fwd, oracle);
  CpuAttention cpu(threads);
  std::string reason;
  EXPECT_TRUE(cpu.SupportsBackward(mine_args, &reason)) << reason;
  const absl::Status s = cpu.RunBackward(mine_args);
  EXPECT_TRUE(s.ok()) << s;
  const absl::Status r = reference::provider::RunReferenceAttentionBackward(oracle_args);
  EXPECT_TRUE(r.ok()) << r;
  run.mine = Values(mine);
  run.oracle = Values(oracle);
  return run;
}

void ExpectMatchesReference(const AttentionConfig& config, int threads = 0) {
  SCOPED_TRACE(config.Name());
  const BackwardRun run = RunBoth(config, threads);
  ASSERT_EQ(run.mine.size(), run.oracle.size());
  const double tolerance = cli::OutputTolerance(cli::ToleranceKind::kAttentionBackward, config.dtype);
  for (size_t t = 0; t < run.mine.size(); ++t) {
    EXPECT_LE(NormalizedMaxError(run.mine[t], run.oracle[t]), tolerance)
        << "gradient buffer " << t << " of " << run.mine.size();
  }
}

TEST(CpuAttentionBackwardTest, EveryLayoutWithEveryMask) {
  for (const AttentionConfig& c : testing::LayoutMaskConfigs()) ExpectMatchesReference(c);
}

TEST(CpuAttentionBackwardTest, EveryBiasTypeInEveryDType) {
  for (const AttentionConfig& c : testing::BiasConfigs()) ExpectMatchesReference(c);
}

TEST(CpuAttentionBackwardTest, GroupedAndMultiQueryHeads) {
  for (const AttentionConfig& c : testing::GroupedHeadConfigs()) ExpectMatchesReference(c);
}

TEST(CpuAttentionBackwardTest, SlidingWindows) {
  for (const AttentionConfig& c : testing::WindowConfigs()) ExpectMatchesReference(c);
}

// More rows than a query tile and keys than a key tile: work split across
// tiles and items, sums across them.
TEST(CpuAttentionBackwardTest, LengthsSpanningSeveralTiles) {
  for (const AttentionConfig& c : testing::MultiTileConfigs()) ExpectMatchesReference(c);
}

// Dropout: the gradients match only if every keep decision equals the
// forward's (the reference's) mask.
TEST(CpuAttentionBackwardTest, DropoutUsesTheForwardsMask) {
  for (const AttentionConfig& c : testing::DropoutConfigs()) ExpectMatchesReference(c);
}

// The same bytes out for any thread count, and on a second run.
TEST(CpuAttentionBackwardTest, ResultsDoNotDependOnTheThreadCount) {
  AttentionConfig config;
  config.sq = 200;
  config.skv = 170;
  config.hq = 4;
  config.hkv = 2;
  config.mask = TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT;
  config.bias = TEPLUG_BIAS_PRE_SCALE;
  config.bias_broadcast = true;
  config.dropout = 0.2f;
  std::vector<std::vector<std::vector<double>>> outputs;
  for (int threads : {1, 2, 3, 8, 8}) outputs.push_back(RunBoth(config, threads).mine);
  for (size_t t = 1; t < outputs.size(); ++t) {
    EXPECT_TRUE(outputs[t] == outputs[0]) << "run " << t;
  }
  ExpectMatchesReference(config, 3);
}

}  // namespace
}  // namespace teplug::cpu::provider
