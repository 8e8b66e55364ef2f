// Test support: one random IAttention problem (Q, K, V in any layout, bias,
// cu_seqlens, slopes, and dO for the backward) owning its bytes, so tests can
// hand the same inputs to the cpu provider and to the reference oracle and
// compare O and LSE, or the gradients.
#ifndef TEPLUG_PLUGINS_CPU_PROVIDER_TESTING_ATTENTION_CASE_H_
#define TEPLUG_PLUGINS_CPU_PROVIDER_TESTING_ATTENTION_CASE_H_

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "teplug/attention.h"

namespace teplug::cpu::testing {

struct AttentionConfig {
  int32_t layout = TEPLUG_LAYOUT_BSHD_BSHD_BSHD;
  int32_t mask = TEPLUG_MASK_NONE;
  int32_t bias = TEPLUG_BIAS_NONE;
  int32_t dtype = TEPLUG_DTYPE_FP32;
  int64_t batch = 2, hq = 4, hkv = 4, d_qk = 16, d_v = 16, sq = 37, skv = 45;
  int64_t window_left = -1, window_right = -1;
  bool training = true;
  float dropout = 0.0f;
  bool bias_broadcast = false;  // bias [1, 1, sq, skv] instead of [b, hq, sq, skv]
  bool alibi_slopes = false;    // explicit slopes instead of the defaults

  // "bshd_bshd_bshd/causal/none/fp32/..." for test output.
  std::string Name() const;
};

// A dense host tensor of any rank owning its bytes.
class HostTensor {
 public:
  HostTensor(int32_t dtype, std::vector<int64_t> shape);
  // Uniform values in [lo, hi) rounded to the dtype.
  void FillRandom(std::mt19937_64& rng, double lo, double hi);
  // Every element decoded.
  std::vector<double> Values() const;
  TeplugTensor* tensor() { return &tensor_; }

 private:
  std::vector<uint8_t> bytes_;
  TeplugTensor tensor_{};
};

class AttentionCase {
 public:
  AttentionCase(const AttentionConfig& config, std::mt19937_64& rng);

  // A fresh O (filled with NaN-free garbage, so unwritten rows show) and LSE.
  struct Outputs {
    std::unique_ptr<HostTensor> o, lse;
  };
  Outputs NewOutputs(std::mt19937_64& rng) const;
  // Forward args over this case's inputs and `out`; valid while both live.
  TeplugAttentionFwdArgs Args(Outputs& out);

  // Fresh gradient buffers: one per distinct Q/K/V buffer (a packed layout's
  // members share one), in its shape and dtype, and dBias in the bias's shape
  // when the bias type has a tensor; filled with garbage so unwritten
  // elements show.
  struct Gradients {
    std::vector<std::unique_ptr<HostTensor>> buffers;  // dq's, then dk's, dv's if distinct
    std::unique_ptr<HostTensor> dbias;                 // NULL without a bias tensor
    TeplugTensor *dq = nullptr, *dk = nullptr, *dv = nullptr;
  };
  Gradients NewGradients(std::mt19937_64& rng) const;
  // Backward args over this case's inputs (its dO), the forward outputs
  // `fwd` and the gradients `out`; valid while all live.
  TeplugAttentionBwdArgs BackwardArgs(Outputs& fwd, Gradients& out);

  const AttentionConfig& config() const { return config_; }

 private:
  AttentionConfig config_;
  TeplugAttentionParams params_{};
  std::vector<std::unique_ptr<HostTensor>> buffers_;
  TeplugTensor *q_ = nullptr, *k_ = nullptr, *v_ = nullptr, *bias_ = nullptr, *d_o_ = nullptr;
  std::vector<int64_t> o_shape_;
};

// max |x - oracle| / max |oracle| (the tolerance table's measure).
double NormalizedMaxError(const std::vector<double>& x, const std::vector<double>& oracle);

// `config` made valid for `layout`: qkv-packed needs equal heads and lengths,
// any packing equal head dims.
AttentionConfig ForLayout(int32_t layout, AttentionConfig config);

bool IsThdLayout(int32_t layout);

// The case sets the forward and backward numerics tests both run (every
// config valid for its layout):
// every layout with every mask it allows, dtypes in turn, GQA, d_v != d_qk
// where the layout allows;
std::vector<AttentionConfig> LayoutMaskConfigs();
// every bias type in every dtype, per element and broadcast (explicit ALiBi
// slopes), without a mask and padding-causal-bottom-right;
std::vector<AttentionConfig> BiasConfigs();
// GQA and MQA: 6 query heads over 1, 2 and 3 kv heads;
std::vector<AttentionConfig> GroupedHeadConfigs();
// sliding windows with and without causal and padding masks, with ALiBi;
std::vector<AttentionConfig> WindowConfigs();
// lengths spanning several query and key tiles (a pre-scale bias, broadcast
// with the causal mask);
std::vector<AttentionConfig> MultiTileConfigs();
// dropout p in {0.1, 0.5, 0.9}, bshd and thd, padding-causal, post-scale bias.
std::vector<AttentionConfig> DropoutConfigs();
bool IsPaddingMask(int32_t mask);

}  // namespace teplug::cpu::testing

#endif  // TEPLUG_PLUGINS_CPU_PROVIDER_TESTING_ATTENTION_CASE_H_
