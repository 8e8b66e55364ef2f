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

double NormalizedMaxError(const std::vector<double>& x, const std::vector<double>& oracle) {
  double err = 0, scale = 0;
  for (size_t e = 0; e < x.size(); ++e) {
    err = std::max(err, std::fabs(x[e] - oracle[e]));
    scale = std::max(scale, std::fabs(oracle[e]));
  }
  return scale > 0 ? err / scale : err;
}

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

bool IsThd(int32_t layout) { return layout >= TEPLUG_LAYOUT_T3HD; }
bool IsPadding(int32_t mask) {
  return mask == TEPLUG_MASK_PADDING || mask == TEPLUG_MASK_PADDING_CAUSAL ||
         mask == TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
}

// A config valid for `layout`: qkv-packed needs equal heads and lengths,
// any packing equal head dims.
AttentionConfig ForLayout(int32_t layout, AttentionConfig c) {
  c.layout = layout;
  const int32_t packing = layout % 5;
  if (packing <= 1) c.hkv = c.hq, c.skv = c.sq;
  if (packing <= 3) c.d_v = c.d_qk;
  return c;
}

constexpr int32_t kDTypes[] = {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_FP16};

TEST(CpuAttentionNumericsTest, EveryLayoutWithEveryMask) {
  int index = 0;
  for (int32_t layout = 0; layout < TEPLUG_LAYOUT_COUNT_; ++layout) {
    for (int32_t mask = 0; mask < TEPLUG_MASK_COUNT_; ++mask) {
      if (IsThd(layout) && !IsPadding(mask)) continue;
      AttentionConfig c;
      c.mask = mask;
      c.dtype = kDTypes[index++ % 3];
      c.hkv = 2;
      c.d_v = 24;
      ExpectMatchesReference(ForLayout(layout, c));
    }
  }
}

TEST(CpuAttentionNumericsTest, EveryBiasTypeInEveryDType) {
  for (int32_t dtype : kDTypes) {
    for (int32_t bias = 0; bias < TEPLUG_BIAS_COUNT_; ++bias) {
      for (int32_t mask : {TEPLUG_MASK_NONE, TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT}) {
        AttentionConfig c;
        c.dtype = dtype;
        c.bias = bias;
        c.mask = mask;
        ExpectMatchesReference(c);
        c.bias_broadcast = true;
        c.alibi_slopes = true;
        c.layout = TEPLUG_LAYOUT_SBHD_SBHD_SBHD;
        ExpectMatchesReference(c);
      }
    }
  }
}

TEST(CpuAttentionNumericsTest, GroupedAndMultiQueryHeads) {
  for (int64_t hkv : {1, 2, 3}) {
    AttentionConfig c;
    c.hq = 6;
    c.hkv = hkv;
    c.mask = TEPLUG_MASK_CAUSAL;
    ExpectMatchesReference(c);
  }
}

TEST(CpuAttentionNumericsTest, SlidingWindows) {
  const std::pair<int64_t, int64_t> windows[] = {{0, 0}, {5, -1}, {-1, 3}, {7, 2}, {3, 0}};
  for (auto [left, right] : windows) {
    for (int32_t mask : {TEPLUG_MASK_NONE, TEPLUG_MASK_CAUSAL, TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT,
                         TEPLUG_MASK_PADDING}) {
      AttentionConfig c;
      c.mask = mask;
      c.window_left = left;
      c.window_right = right;
      c.bias = TEPLUG_BIAS_ALIBI;
      ExpectMatchesReference(c);
    }
  }
}

// More rows than a query tile and keys than a key tile: the online softmax
// rescales across key blocks and rows split across work items.
TEST(CpuAttentionNumericsTest, LengthsSpanningSeveralTiles) {
  for (int32_t mask : {TEPLUG_MASK_NONE, TEPLUG_MASK_CAUSAL, TEPLUG_MASK_PADDING_CAUSAL}) {
    AttentionConfig c;
    c.batch = 1;
    c.hq = c.hkv = 2;
    c.sq = 150;
    c.skv = 300;
    c.d_qk = 32;
    c.d_v = 8;
    c.mask = mask;
    c.bias = TEPLUG_BIAS_POST_SCALE;
    ExpectMatchesReference(c);
  }
}

// Dropout: O matches only if every keep decision equals the reference's.
TEST(CpuAttentionNumericsTest, DropoutMaskEqualsTheReferences) {
  for (int32_t layout : {TEPLUG_LAYOUT_BSHD_BSHD_BSHD, TEPLUG_LAYOUT_THD_THD_THD}) {
    for (float p : {0.1f, 0.5f, 0.9f}) {
      AttentionConfig c;
      c.layout = layout;
      c.mask = TEPLUG_MASK_PADDING_CAUSAL;
      c.dropout = p;
      c.hkv = 2;
      ExpectMatchesReference(c);
    }
  }
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
