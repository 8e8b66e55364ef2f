#include "plugins/cpu/provider/testing/attention_case.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "plugins/reference/numerics/float_formats.h"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::cpu::testing {
namespace {

size_t ElementSize(int32_t dtype) {
  return dtype == TEPLUG_DTYPE_FP32 || dtype == TEPLUG_DTYPE_INT32 ? 4 : 2;
}

// Prefix sums of random lengths in [0, max], the first batch at max.
std::vector<int32_t> RandomCuSeqlens(int64_t batch, int64_t max, std::mt19937_64& rng) {
  std::vector<int32_t> cu{0};
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t len = b == 0 ? max : static_cast<int64_t>(rng() % static_cast<uint64_t>(max + 1));
    cu.push_back(cu.back() + static_cast<int32_t>(len));
  }
  return cu;
}

}  // namespace

std::string AttentionConfig::Name() const {
  std::string n = std::string(sdk::LayoutName(layout)) + "/" + sdk::MaskName(mask) + "/" +
                  sdk::BiasName(bias) + "/" + sdk::DTypeName(dtype) + "/b" + std::to_string(batch) +
                  "_h" + std::to_string(hq) + "x" + std::to_string(hkv) + "_s" +
                  std::to_string(sq) + "x" + std::to_string(skv) + "_d" + std::to_string(d_qk) +
                  "x" + std::to_string(d_v);
  if (window_left >= 0 || window_right >= 0) {
    n += "_w" + std::to_string(window_left) + "," + std::to_string(window_right);
  }
  if (dropout > 0) n += "_dropout" + std::to_string(dropout);
  return n;
}

HostTensor::HostTensor(int32_t dtype, std::vector<int64_t> shape) {
  const int64_t count =
      std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
  bytes_.assign(static_cast<size_t>(count) * ElementSize(dtype), 0);
  tensor_ = sdk::Versioned<TeplugTensor>();
  tensor_.data = bytes_.data();
  tensor_.dtype = dtype;
  tensor_.rank = static_cast<int32_t>(shape.size());
  for (size_t r = 0; r < shape.size(); ++r) tensor_.shape[r] = shape[r];
}

void HostTensor::FillRandom(std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> dist(lo, hi);
  const size_t n = bytes_.size() / ElementSize(tensor_.dtype);
  for (size_t e = 0; e < n; ++e) {
    const double x = dist(rng);
    if (tensor_.dtype == TEPLUG_DTYPE_FP32) {
      const float f = static_cast<float>(x);
      std::memcpy(bytes_.data() + 4 * e, &f, 4);
    } else {
      const uint16_t h =
          tensor_.dtype == TEPLUG_DTYPE_BF16 ? reference::EncodeBf16(x) : reference::EncodeFp16(x);
      std::memcpy(bytes_.data() + 2 * e, &h, 2);
    }
  }
}

std::vector<double> HostTensor::Values() const {
  const size_t n = bytes_.size() / ElementSize(tensor_.dtype);
  std::vector<double> out(n);
  for (size_t e = 0; e < n; ++e) {
    if (tensor_.dtype == TEPLUG_DTYPE_FP32) {
      float f;
      std::memcpy(&f, bytes_.data() + 4 * e, 4);
      out[e] = f;
    } else {
      uint16_t h;
      std::memcpy(&h, bytes_.data() + 2 * e, 2);
      out[e] =
          tensor_.dtype == TEPLUG_DTYPE_BF16 ? reference::DecodeBf16(h) : reference::DecodeFp16(h);
    }
  }
  return out;
}

AttentionCase::AttentionCase(const AttentionConfig& c, std::mt19937_64& rng) : config_(c) {
  params_ = sdk::Versioned<TeplugAttentionParams>();
  params_.layout = c.layout;
  params_.mask_type = c.mask;
  params_.bias_type = c.bias;
  params_.is_training = c.training ? 1 : 0;
  params_.batch = c.batch;
  params_.num_heads_q = c.hq;
  params_.num_heads_kv = c.hkv;
  params_.head_dim_qk = c.d_qk;
  params_.head_dim_v = c.d_v;
  params_.max_seqlen_q = c.sq;
  params_.max_seqlen_kv = c.skv;
  params_.window_left = c.window_left;
  params_.window_right = c.window_right;
  params_.softmax_scale = 1.0f / std::sqrt(static_cast<float>(c.d_qk));
  params_.dropout = c.dropout;
  params_.rng_seed = rng();
  params_.rng_offset = rng() % 1000;

  const bool thd = c.layout >= TEPLUG_LAYOUT_T3HD;
  const bool bshd = c.layout >= TEPLUG_LAYOUT_BS3HD && !thd;
  int64_t tokens_q = 0, tokens_kv = 0;
  if (thd || IsPaddingMask(c.mask)) {
    const std::vector<int32_t> cu_q = RandomCuSeqlens(c.batch, c.sq, rng);
    // qkv-packed layouts share one token axis: equal lengths.
    const bool packed3 = c.layout == TEPLUG_LAYOUT_T3HD || c.layout == TEPLUG_LAYOUT_TH3D;
    const std::vector<int32_t> cu_kv = packed3 ? cu_q : RandomCuSeqlens(c.batch, c.skv, rng);
    tokens_q = cu_q.back() + 3;  // trailing tokens that belong to no sequence
    tokens_kv = packed3 ? tokens_q : cu_kv.back() + 2;
    for (const auto* cu : {&cu_q, &cu_kv}) {
      auto t = std::make_unique<HostTensor>(TEPLUG_DTYPE_INT32, std::vector<int64_t>{c.batch + 1});
      std::memcpy(t->tensor()->data, cu->data(), cu->size() * 4);
      (cu == &cu_q ? params_.cu_seqlens_q : params_.cu_seqlens_kv) = t->tensor();
      buffers_.push_back(std::move(t));
    }
  }
  auto lead = [&](int64_t s, int64_t tokens) -> std::vector<int64_t> {
    if (thd) return {tokens};
    return bshd ? std::vector<int64_t>{c.batch, s} : std::vector<int64_t>{s, c.batch};
  };
  auto make = [&](std::vector<int64_t> shape) {
    auto t = std::make_unique<HostTensor>(c.dtype, std::move(shape));
    t->FillRandom(rng, -1.0, 1.0);
    TeplugTensor* p = t->tensor();
    buffers_.push_back(std::move(t));
    return p;
  };
  auto with = [](std::vector<int64_t> v, std::initializer_list<int64_t> tail) {
    v.insert(v.end(), tail);
    return v;
  };
  const int32_t sep = c.layout % 5;  // position within the format's five layouts
  switch (sep) {
    case 0:  // 3hd
      q_ = k_ = v_ = make(with(lead(c.sq, tokens_q), {3, c.hq, c.d_qk}));
      break;
    case 1:  // h3d
      q_ = k_ = v_ = make(with(lead(c.sq, tokens_q), {c.hq, 3, c.d_qk}));
      break;
    case 2:  // hd_2hd
      q_ = make(with(lead(c.sq, tokens_q), {c.hq, c.d_qk}));
      k_ = v_ = make(with(lead(c.skv, tokens_kv), {2, c.hkv, c.d_qk}));
      break;
    case 3:  // hd_h2d
      q_ = make(with(lead(c.sq, tokens_q), {c.hq, c.d_qk}));
      k_ = v_ = make(with(lead(c.skv, tokens_kv), {c.hkv, 2, c.d_qk}));
      break;
    default:
      q_ = make(with(lead(c.sq, tokens_q), {c.hq, c.d_qk}));
      k_ = make(with(lead(c.skv, tokens_kv), {c.hkv, c.d_qk}));
      v_ = make(with(lead(c.skv, tokens_kv), {c.hkv, c.d_v}));
      break;
  }
  o_shape_ = with(lead(c.sq, tokens_q), {c.hq, c.d_v});
  if (c.bias == TEPLUG_BIAS_PRE_SCALE || c.bias == TEPLUG_BIAS_POST_SCALE) {
    bias_ = make(c.bias_broadcast ? std::vector<int64_t>{1, 1, c.sq, c.skv}
                                  : std::vector<int64_t>{c.batch, c.hq, c.sq, c.skv});
  }
  if (c.bias == TEPLUG_BIAS_ALIBI && c.alibi_slopes) {
    auto t = std::make_unique<HostTensor>(TEPLUG_DTYPE_FP32, std::vector<int64_t>{c.hq});
    t->FillRandom(rng, 0.01, 0.5);
    params_.alibi_slopes = t->tensor();
    buffers_.push_back(std::move(t));
  }
  d_o_ = make(o_shape_);
}

AttentionCase::Outputs AttentionCase::NewOutputs(std::mt19937_64& rng) const {
  Outputs out;
  out.o = std::make_unique<HostTensor>(config_.dtype, o_shape_);
  out.o->FillRandom(rng, 5.0, 6.0);
  out.lse = std::make_unique<HostTensor>(
      TEPLUG_DTYPE_FP32, std::vector<int64_t>{config_.batch, config_.hq, config_.sq});
  out.lse->FillRandom(rng, 5.0, 6.0);
  return out;
}

TeplugAttentionFwdArgs AttentionCase::Args(Outputs& out) {
  TeplugAttentionFwdArgs a = sdk::Versioned<TeplugAttentionFwdArgs>();
  a.params = &params_;
  a.q = q_;
  a.k = k_;
  a.v = v_;
  a.bias = bias_;
  a.o = out.o->tensor();
  a.softmax_lse = out.lse->tensor();
  return a;
}

AttentionCase::Gradients AttentionCase::NewGradients(std::mt19937_64& rng) const {
  Gradients g;
  const TeplugTensor* inputs[] = {q_, k_, v_};
  TeplugTensor** grads[] = {&g.dq, &g.dk, &g.dv};
  for (int m = 0; m < 3; ++m) {
    for (int earlier = 0; earlier < m; ++earlier) {
      if (inputs[earlier] == inputs[m]) *grads[m] = *grads[earlier];
    }
    if (*grads[m] != nullptr) continue;
    const TeplugTensor* in = inputs[m];
    auto t = std::make_unique<HostTensor>(in->dtype,
                                          std::vector<int64_t>(in->shape, in->shape + in->rank));
    t->FillRandom(rng, 5.0, 6.0);
    *grads[m] = t->tensor();
    g.buffers.push_back(std::move(t));
  }
  if (bias_ != nullptr) {
    g.dbias = std::make_unique<HostTensor>(
        bias_->dtype, std::vector<int64_t>(bias_->shape, bias_->shape + bias_->rank));
    g.dbias->FillRandom(rng, 5.0, 6.0);
  }
  return g;
}

TeplugAttentionBwdArgs AttentionCase::BackwardArgs(Outputs& fwd, Gradients& out) {
  TeplugAttentionBwdArgs a = sdk::Versioned<TeplugAttentionBwdArgs>();
  a.params = &params_;
  a.q = q_;
  a.k = k_;
  a.v = v_;
  a.o = fwd.o->tensor();
  a.d_o = d_o_;
  a.softmax_lse = fwd.lse->tensor();
  a.bias = bias_;
  a.dq = out.dq;
  a.dk = out.dk;
  a.dv = out.dv;
  a.dbias = out.dbias != nullptr ? out.dbias->tensor() : nullptr;
  return a;
}

double NormalizedMaxError(const std::vector<double>& x, const std::vector<double>& oracle) {
  double err = 0, scale = 0;
  for (size_t e = 0; e < x.size(); ++e) {
    err = std::max(err, std::fabs(x[e] - oracle[e]));
    scale = std::max(scale, std::fabs(oracle[e]));
  }
  return scale > 0 ? err / scale : err;
}

AttentionConfig ForLayout(int32_t layout, AttentionConfig c) {
  c.layout = layout;
  const int32_t packing = layout % 5;
  if (packing <= 1) c.hkv = c.hq, c.skv = c.sq;
  if (packing <= 3) c.d_v = c.d_qk;
  return c;
}

bool IsThdLayout(int32_t layout) { return layout >= TEPLUG_LAYOUT_T3HD; }

bool IsPaddingMask(int32_t mask) {
  return mask == TEPLUG_MASK_PADDING || mask == TEPLUG_MASK_PADDING_CAUSAL ||
         mask == TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
}

std::vector<AttentionConfig> LayoutMaskConfigs() {
  constexpr int32_t kDTypes[] = {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_FP16};
  std::vector<AttentionConfig> configs;
  for (int32_t layout = 0; layout < TEPLUG_LAYOUT_COUNT_; ++layout) {
    for (int32_t mask = 0; mask < TEPLUG_MASK_COUNT_; ++mask) {
      if (IsThdLayout(layout) && !IsPaddingMask(mask)) continue;
      AttentionConfig c;
      c.mask = mask;
      c.dtype = kDTypes[configs.size() % 3];
      c.hkv = 2;
      c.d_v = 24;
      configs.push_back(ForLayout(layout, c));
    }
  }
  return configs;
}

std::vector<AttentionConfig> BiasConfigs() {
  std::vector<AttentionConfig> configs;
  for (int32_t dtype : {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_FP16}) {
    for (int32_t bias = 0; bias < TEPLUG_BIAS_COUNT_; ++bias) {
      for (int32_t mask : {TEPLUG_MASK_NONE, TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT}) {
        AttentionConfig c;
        c.dtype = dtype;
        c.bias = bias;
        c.mask = mask;
        c.hkv = 2;
        configs.push_back(c);
        c.bias_broadcast = true;
        c.alibi_slopes = true;
        c.layout = TEPLUG_LAYOUT_SBHD_SBHD_SBHD;
        configs.push_back(c);
      }
    }
  }
  return configs;
}

std::vector<AttentionConfig> GroupedHeadConfigs() {
  std::vector<AttentionConfig> configs;
  for (int64_t hkv : {1, 2, 3}) {
    AttentionConfig c;
    c.hq = 6;
    c.hkv = hkv;
    c.mask = TEPLUG_MASK_CAUSAL;
    c.d_v = 8;
    configs.push_back(c);
  }
  return configs;
}

std::vector<AttentionConfig> WindowConfigs() {
  std::vector<AttentionConfig> configs;
  const std::pair<int64_t, int64_t> windows[] = {{0, 0}, {5, -1}, {-1, 3}, {7, 2}, {3, 0}};
  for (auto [left, right] : windows) {
    for (int32_t mask : {TEPLUG_MASK_NONE, TEPLUG_MASK_CAUSAL, TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT,
                         TEPLUG_MASK_PADDING}) {
      AttentionConfig c;
      c.mask = mask;
      c.window_left = left;
      c.window_right = right;
      c.bias = TEPLUG_BIAS_ALIBI;
      configs.push_back(c);
    }
  }
  return configs;
}

std::vector<AttentionConfig> MultiTileConfigs() {
  std::vector<AttentionConfig> configs;
  for (int32_t mask : {TEPLUG_MASK_NONE, TEPLUG_MASK_CAUSAL, TEPLUG_MASK_PADDING_CAUSAL}) {
    AttentionConfig c;
    c.batch = 1;
    c.hq = 4;
    c.hkv = 2;
    c.sq = 150;
    c.skv = 300;
    c.d_qk = 32;
    c.d_v = 8;
    c.mask = mask;
    c.bias = TEPLUG_BIAS_PRE_SCALE;
    c.bias_broadcast = mask == TEPLUG_MASK_CAUSAL;
    configs.push_back(c);
  }
  return configs;
}

std::vector<AttentionConfig> DropoutConfigs() {
  std::vector<AttentionConfig> configs;
  for (int32_t layout : {TEPLUG_LAYOUT_BSHD_BSHD_BSHD, TEPLUG_LAYOUT_THD_THD_THD}) {
    for (float p : {0.1f, 0.5f, 0.9f}) {
      AttentionConfig c;
      c.layout = layout;
      c.mask = TEPLUG_MASK_PADDING_CAUSAL;
      c.dropout = p;
      c.hkv = 2;
      c.bias = TEPLUG_BIAS_POST_SCALE;
      configs.push_back(c);
    }
  }
  return configs;
}

}  // namespace teplug::cpu::testing
