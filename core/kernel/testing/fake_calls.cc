#include "core/kernel/testing/fake_calls.h"

#include <algorithm>
#include <random>

#include "teplug/sdk/struct_io.hpp"

namespace teplug::core::testing {
namespace {

// A dense fp32 tensor of `shape` over `storage`, filled with values drawn
// uniformly from [-1, 1) (never all zeros).
TeplugTensor RandomTensor(std::vector<int64_t> shape, std::vector<float>* storage,
                          std::mt19937* rng) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  storage->resize(static_cast<size_t>(n));
  for (float& x : *storage) x = dist(*rng);
  TeplugTensor t = sdk::Versioned<TeplugTensor>();
  t.data = storage->data();
  t.dtype = TEPLUG_DTYPE_FP32;
  t.rank = static_cast<int32_t>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) t.shape[i] = shape[i];
  return t;
}

float UniformValue(const std::vector<float>& v) {
  if (v.empty()) return kUnstamped;
  const float first = v.front();
  return std::all_of(v.begin(), v.end(), [&](float x) { return x == first; }) ? first : kUnstamped;
}

}  // namespace

GemmCall::GemmCall(float alpha, int64_t m, int64_t n, int64_t k, uint32_t seed) {
  std::mt19937 rng(seed);
  a_ = RandomTensor({m, k}, &a_data_, &rng);
  b_ = RandomTensor({k, n}, &b_data_, &rng);
  d_ = RandomTensor({m, n}, &d_data_, &rng);
  args_ = sdk::Versioned<TeplugGemmArgs>();
  args_.a = &a_;
  args_.b = &b_;
  args_.d = &d_;
  args_.alpha = alpha;
  ClearOutput();
}

void GemmCall::ClearOutput() { std::fill(d_data_.begin(), d_data_.end(), kUnstamped); }
float GemmCall::OutputMarker() const { return UniformValue(d_data_); }

AttentionForwardCall::AttentionForwardCall(int64_t head_dim, int64_t seq, int64_t heads,
                                           uint32_t seed) {
  std::mt19937 rng(seed);
  params_ = sdk::Versioned<TeplugAttentionParams>();
  params_.layout = TEPLUG_LAYOUT_BSHD_BSHD_BSHD;
  params_.mask_type = TEPLUG_MASK_CAUSAL;
  params_.bias_type = TEPLUG_BIAS_NONE;
  params_.batch = 1;
  params_.num_heads_q = params_.num_heads_kv = heads;
  params_.head_dim_qk = params_.head_dim_v = head_dim;
  params_.max_seqlen_q = params_.max_seqlen_kv = seq;
  params_.window_left = params_.window_right = -1;
  params_.softmax_scale = 1.f / 8.f;
  q_ = RandomTensor({1, seq, heads, head_dim}, &q_data_, &rng);
  k_ = RandomTensor({1, seq, heads, head_dim}, &k_data_, &rng);
  v_ = RandomTensor({1, seq, heads, head_dim}, &v_data_, &rng);
  o_ = RandomTensor({1, seq, heads, head_dim}, &o_data_, &rng);
  args_ = sdk::Versioned<TeplugAttentionFwdArgs>();
  args_.params = &params_;
  args_.q = &q_;
  args_.k = &k_;
  args_.v = &v_;
  args_.o = &o_;
  ClearOutput();
}

void AttentionForwardCall::ClearOutput() { std::fill(o_data_.begin(), o_data_.end(), kUnstamped); }
float AttentionForwardCall::OutputMarker() const { return UniformValue(o_data_); }

}  // namespace teplug::core::testing
