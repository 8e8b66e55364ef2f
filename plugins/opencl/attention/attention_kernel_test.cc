// The opencl attention kernels called directly (OpenClAttention on memory of
// the opencl IDevice, opencl:0) against the reference provider (the fp64
// oracle) on the same random inputs in host memory: O and LSE of the forward,
// dQ, dK, dV (and dBias) of the backward, compared as max |x - ref| / max |ref|
// with the main job's tolerances (//tools/teplug:tolerances). Shapes span
// several query and key tiles, windows that cut tiles, GQA and MQA, padding
// with empty sequences, a BHSD buffer passed as a strided BSHD view, SBHD and
// packed-token (THD) layouts, a broadcast bias with dbias, ALiBi and every
// element type. Every output buffer starts as random garbage, and the unused
// elements between strided rows hold random values, so a row left unwritten
// or a read past a length shows. Refusals are checked by reason.
#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/cpu/provider/testing/test_matrix.h"
#include "plugins/opencl/attention/attention_provider.h"
#include "plugins/opencl/provider/opencl_device.h"
#include "plugins/reference/numerics/float_formats.h"
#include "plugins/reference/provider/attention_provider.h"
#include "teplug/sdk/device_context.hpp"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "tools/teplug/tolerances.h"

namespace teplug::opencl::attention {
namespace {

using cli::OutputTolerance;
using cli::ToleranceKind;

size_t ElementBytes(int32_t dtype) {
  return dtype == TEPLUG_DTYPE_FP32 || dtype == TEPLUG_DTYPE_INT32 ? 4 : 2;
}

// One tensor twice: host bytes (the oracle's) and a device copy (the
// kernels'), with the same shape and strides (empty: dense).
class TwinTensor {
 public:
  TwinTensor(sdk::DeviceContext* ctx, const TeplugDevice* device, int32_t dtype,
             std::vector<int64_t> shape, std::vector<int64_t> strides = {})
      : ctx_(ctx), dtype_(dtype), shape_(std::move(shape)), strides_(std::move(strides)) {
    if (strides_.empty()) {
      strides_.assign(shape_.size(), 1);
      for (int r = static_cast<int>(shape_.size()) - 2; r >= 0; --r)
        strides_[r] = strides_[r + 1] * shape_[r + 1];
    }
    int64_t span = 1;
    for (size_t r = 0; r < shape_.size(); ++r) span += (shape_[r] - 1) * strides_[r];
    bytes_.assign(static_cast<size_t>(span) * ElementBytes(dtype), 0);
    sdk::OwnedError e = ctx_->Allocate(bytes_.size(), 0, &device_data_);
    EXPECT_FALSE(e) << e.message();
    host_ = sdk::Versioned<TeplugTensor>();
    host_.data = bytes_.data();
    host_.dtype = dtype;
    host_.rank = static_cast<int32_t>(shape_.size());
    for (size_t r = 0; r < shape_.size(); ++r)
      host_.shape[r] = shape_[r], host_.strides[r] = strides_[r];
    device_tensor_ = host_;
    device_tensor_.data = device_data_;
    device_tensor_.device = device;
  }
  ~TwinTensor() {
    if (device_data_ != nullptr) EXPECT_FALSE(ctx_->Deallocate(device_data_));
  }
  TwinTensor(const TwinTensor&) = delete;
  TwinTensor& operator=(const TwinTensor&) = delete;

  // Every byte of the span (gaps between strided rows too) random in [lo, hi),
  // on both sides.
  void Random(std::mt19937_64& rng, double lo, double hi) {
    std::uniform_real_distribution<double> u(lo, hi);
    for (size_t i = 0; i < bytes_.size() / ElementBytes(dtype_); ++i) Set(i, u(rng));
    Upload();
  }
  void SetInt32(const std::vector<int32_t>& v) {
    std::memcpy(bytes_.data(), v.data(), v.size() * 4);
    Upload();
  }
  // Copies the host's bytes over the device's (after the oracle wrote them).
  void Upload() {
    sdk::OwnedError e =
        ctx_->Copy(TEPLUG_COPY_HOST_TO_DEVICE, device_data_, bytes_.data(), bytes_.size());
    ASSERT_FALSE(e) << e.message();
  }
  // Copies the device's bytes over the host's.
  void Download() {
    sdk::OwnedError e =
        ctx_->Copy(TEPLUG_COPY_DEVICE_TO_HOST, bytes_.data(), device_data_, bytes_.size());
    ASSERT_FALSE(e) << e.message();
  }
  // The logical elements, row-major.
  std::vector<double> Values() const {
    int64_t count = 1;
    for (int64_t s : shape_) count *= s;
    std::vector<double> out(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) {
      int64_t rest = i, at = 0;
      for (int r = static_cast<int>(shape_.size()) - 1; r >= 0; --r)
        at += rest % shape_[r] * strides_[r], rest /= shape_[r];
      out[static_cast<size_t>(i)] = Get(static_cast<size_t>(at));
    }
    return out;
  }
  TeplugTensor* host() { return &host_; }
  TeplugTensor* device() { return &device_tensor_; }

 private:
  void Set(size_t i, double v) {
    if (dtype_ == TEPLUG_DTYPE_FP32) {
      const float f = static_cast<float>(v);
      std::memcpy(&bytes_[i * 4], &f, 4);
    } else {
      const uint16_t b =
          dtype_ == TEPLUG_DTYPE_FP16 ? reference::EncodeFp16(v) : reference::EncodeBf16(v);
      std::memcpy(&bytes_[i * 2], &b, 2);
    }
  }
  double Get(size_t i) const {
    if (dtype_ == TEPLUG_DTYPE_FP32) {
      float f;
      std::memcpy(&f, &bytes_[i * 4], 4);
      return f;
    }
    uint16_t b;
    std::memcpy(&b, &bytes_[i * 2], 2);
    return dtype_ == TEPLUG_DTYPE_FP16 ? reference::DecodeFp16(b) : reference::DecodeBf16(b);
  }

  sdk::DeviceContext* ctx_;
  int32_t dtype_;
  std::vector<int64_t> shape_, strides_;
  std::vector<unsigned char> bytes_;
  void* device_data_ = nullptr;
  TeplugTensor host_{}, device_tensor_{};
};

enum class Format { kBshd, kBhsdView, kSbhd, kThd };

struct Problem {
  std::string name;
  int32_t dtype = TEPLUG_DTYPE_FP32;
  Format format = Format::kBshd;
  int32_t mask = TEPLUG_MASK_NONE;
  int32_t bias = TEPLUG_BIAS_NONE;
  bool bias_broadcast_batch = false;
  int64_t batch = 2, sq = 40, skv = 52, hq = 4, hkv = 4, dqk = 32, dv = 32;
  int64_t window_left = -1, window_right = -1;
};

// opencl:0 opened through the provider's IDevice; tensors made on it.
class OpenClDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dev_ = sdk::MakeDevice(provider::NewOpenClDevice());
    size_t count = 0;
    ASSERT_FALSE(sdk::OwnedError(dev_->vtbl->device_count(dev_, &count)));
    if (count == 0) GTEST_SKIP() << "the OpenCL ICD loader reports no device";
    device_ = sdk::Versioned<TeplugDevice>();
    device_.kind = TEPLUG_DEVICE_OPENCL;
    sdk::OwnedError e = sdk::DeviceContext::Open(dev_, device_, &ctx_);
    ASSERT_FALSE(e) << e.message();
  }
  void TearDown() override {
    tensors_.clear();
    if (ctx_ != nullptr) EXPECT_FALSE(ctx_->Close());
    ctx_.reset();
    dev_->vtbl->base.release(reinterpret_cast<TeplugObject*>(dev_));
  }
  TwinTensor* Make(int32_t dtype, std::vector<int64_t> shape, std::vector<int64_t> strides = {}) {
    tensors_.push_back(std::make_unique<TwinTensor>(ctx_.get(), &device_, dtype, std::move(shape),
                                                    std::move(strides)));
    return tensors_.back().get();
  }
  // Q, K, V-shaped (or O-shaped) tensor for `format` with `seq` rows per batch.
  TwinTensor* Heads(const Problem& s, int64_t seq, int64_t tokens, int64_t heads, int64_t dim) {
    switch (s.format) {
      case Format::kBshd:
        return Make(s.dtype, {s.batch, seq, heads, dim});
      case Format::kBhsdView:  // a [B, H, S, D] buffer seen as [B, S, H, D]
        return Make(s.dtype, {s.batch, seq, heads, dim}, {heads * seq * dim, dim, seq * dim, 1});
      case Format::kSbhd:
        return Make(s.dtype, {seq, s.batch, heads, dim});
      case Format::kThd:
        return Make(s.dtype, {tokens, heads, dim});
    }
    return nullptr;
  }

  TeplugDeviceV1* dev_ = nullptr;
  TeplugDevice device_{};
  std::unique_ptr<sdk::DeviceContext> ctx_;
  std::vector<std::unique_ptr<TwinTensor>> tensors_;
};

// Random lengths in [0, max] with the first at max; prefix sums.
std::vector<int32_t> RandomCuSeqlens(int64_t batch, int64_t max, std::mt19937_64& rng) {
  std::vector<int32_t> cu{0};
  for (int64_t b = 0; b < batch; ++b)
    cu.push_back(cu.back() + static_cast<int32_t>(b == 0 ? max : rng() % (max + 1)));
  return cu;
}

void ExpectClose(TwinTensor* got, TwinTensor* want, ToleranceKind kind, int32_t dtype,
                 const char* what) {
  got->Download();
  const double error = cpu::testing::NormalizedMaxError(got->Values(), want->Values());
  EXPECT_LE(error, OutputTolerance(kind, dtype)) << what;
}

// gtest names a failing case by its problem's name.
void PrintTo(const Problem& p, std::ostream* os) { *os << p.name; }

class OpenClAttentionKernelTest : public OpenClDeviceTest,
                                  public ::testing::WithParamInterface<Problem> {};

TEST_P(OpenClAttentionKernelTest, ForwardAndBackwardMatchTheReference) {
  const Problem& s = GetParam();
  std::mt19937_64 rng(std::hash<std::string>()(s.name));
  const bool padding = s.mask == TEPLUG_MASK_PADDING || s.mask == TEPLUG_MASK_PADDING_CAUSAL ||
                       s.mask == TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
  std::vector<int32_t> cu_q, cu_kv;
  TwinTensor *cu_q_t = nullptr, *cu_kv_t = nullptr;
  if (padding) {
    cu_q = RandomCuSeqlens(s.batch, s.sq, rng);
    cu_kv = RandomCuSeqlens(s.batch, s.skv, rng);
    cu_q_t = Make(TEPLUG_DTYPE_INT32, {s.batch + 1});
    cu_kv_t = Make(TEPLUG_DTYPE_INT32, {s.batch + 1});
    cu_q_t->SetInt32(cu_q);
    cu_kv_t->SetInt32(cu_kv);
  }
  // THD buffers hold a few tokens past cu_seqlens[B] (written 0).
  const int64_t tq = padding ? cu_q.back() + 3 : 0, tkv = padding ? cu_kv.back() + 3 : 0;
  TwinTensor* q = Heads(s, s.sq, tq, s.hq, s.dqk);
  TwinTensor* k = Heads(s, s.skv, tkv, s.hkv, s.dqk);
  TwinTensor* v = Heads(s, s.skv, tkv, s.hkv, s.dv);
  for (TwinTensor* t : {q, k, v}) t->Random(rng, -1, 1);
  TwinTensor *o = Heads(s, s.sq, tq, s.hq, s.dv), *o_ref = Heads(s, s.sq, tq, s.hq, s.dv);
  TwinTensor* lse = Make(TEPLUG_DTYPE_FP32, {s.batch, s.hq, s.sq});
  TwinTensor* lse_ref = Make(TEPLUG_DTYPE_FP32, {s.batch, s.hq, s.sq});
  for (TwinTensor* t : {o, o_ref, lse, lse_ref}) t->Random(rng, -7, 7);
  TwinTensor* bias = nullptr;
  if (s.bias == TEPLUG_BIAS_PRE_SCALE || s.bias == TEPLUG_BIAS_POST_SCALE) {
    bias = Make(s.dtype, {s.bias_broadcast_batch ? 1 : s.batch, s.hq, s.sq, s.skv});
    bias->Random(rng, -2, 2);
  }

  TeplugAttentionParams p = sdk::Versioned<TeplugAttentionParams>();
  p.layout = s.format == Format::kSbhd  ? TEPLUG_LAYOUT_SBHD_SBHD_SBHD
             : s.format == Format::kThd ? TEPLUG_LAYOUT_THD_THD_THD
                                        : TEPLUG_LAYOUT_BSHD_BSHD_BSHD;
  p.mask_type = s.mask;
  p.bias_type = s.bias;
  p.is_training = 1;
  p.batch = s.batch, p.num_heads_q = s.hq, p.num_heads_kv = s.hkv;
  p.head_dim_qk = s.dqk, p.head_dim_v = s.dv, p.max_seqlen_q = s.sq, p.max_seqlen_kv = s.skv;
  p.window_left = s.window_left, p.window_right = s.window_right;
  p.softmax_scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(s.dqk)));
  TeplugAttentionParams p_host = p;
  if (padding) {
    p.cu_seqlens_q = cu_q_t->device(), p.cu_seqlens_kv = cu_kv_t->device();
    p_host.cu_seqlens_q = cu_q_t->host(), p_host.cu_seqlens_kv = cu_kv_t->host();
  }

  TeplugAttentionFwdArgs f = sdk::Versioned<TeplugAttentionFwdArgs>();
  f.params = &p;
  f.q = q->device(), f.k = k->device(), f.v = v->device(), f.o = o->device();
  f.softmax_lse = lse->device();
  f.bias = bias ? bias->device() : nullptr;
  TeplugAttentionFwdArgs f_ref = f;
  f_ref.params = &p_host;
  f_ref.q = q->host(), f_ref.k = k->host(), f_ref.v = v->host(), f_ref.o = o_ref->host();
  f_ref.softmax_lse = lse_ref->host();
  f_ref.bias = bias ? bias->host() : nullptr;

  OpenClAttention opencl;
  std::string why;
  ASSERT_TRUE(opencl.SupportsForward(f, &why)) << why;
  ASSERT_NO_THROW(opencl.Forward(f));
  ASSERT_TRUE(reference::provider::RunReferenceAttentionForward(f_ref).ok());
  ExpectClose(o, o_ref, ToleranceKind::kAttentionForward, s.dtype, "o");
  lse->Download();
  const std::vector<double> got_lse = lse->Values(), want_lse = lse_ref->Values();
  std::vector<double> finite_got, finite_want;
  for (size_t i = 0; i < want_lse.size(); ++i) {
    if (std::isinf(want_lse[i])) {
      ASSERT_EQ(got_lse[i], want_lse[i]) << "softmax_lse element " << i;
    } else {
      finite_got.push_back(got_lse[i]), finite_want.push_back(want_lse[i]);
    }
  }
  EXPECT_LE(cpu::testing::NormalizedMaxError(finite_got, finite_want),
            OutputTolerance(ToleranceKind::kAttentionForward, TEPLUG_DTYPE_FP32));

  // The backward of both, given the reference's O and LSE (copied to the
  // device for the kernels).
  o_ref->Upload();
  lse_ref->Upload();
  TwinTensor* d_o = Heads(s, s.sq, tq, s.hq, s.dv);
  d_o->Random(rng, -1, 1);
  TwinTensor* grads[2][3];  // [0] the kernels', [1] the reference's
  for (auto& g : grads) {
    g[0] = Heads(s, s.sq, tq, s.hq, s.dqk);
    g[1] = Heads(s, s.skv, tkv, s.hkv, s.dqk);
    g[2] = Heads(s, s.skv, tkv, s.hkv, s.dv);
    for (TwinTensor* t : g) t->Random(rng, -5, 5);
  }
  TwinTensor* dbias[2] = {nullptr, nullptr};
  if (bias != nullptr) {
    for (TwinTensor*& t : dbias) {
      t = Make(s.dtype, {s.bias_broadcast_batch ? 1 : s.batch, s.hq, s.sq, s.skv});
      t->Random(rng, -5, 5);
    }
  }
  TeplugAttentionBwdArgs b = sdk::Versioned<TeplugAttentionBwdArgs>();
  b.params = &p;
  b.q = q->device(), b.k = k->device(), b.v = v->device();
  b.o = o_ref->device(), b.d_o = d_o->device(), b.softmax_lse = lse_ref->device();
  b.bias = bias ? bias->device() : nullptr;
  b.dq = grads[0][0]->device(), b.dk = grads[0][1]->device(), b.dv = grads[0][2]->device();
  b.dbias = bias ? dbias[0]->device() : nullptr;
  TeplugAttentionBwdArgs b_ref = b;
  b_ref.params = &p_host;
  b_ref.q = q->host(), b_ref.k = k->host(), b_ref.v = v->host();
  b_ref.o = o_ref->host(), b_ref.d_o = d_o->host(), b_ref.softmax_lse = lse_ref->host();
  b_ref.bias = bias ? bias->host() : nullptr;
  b_ref.dq = grads[1][0]->host(), b_ref.dk = grads[1][1]->host(), b_ref.dv = grads[1][2]->host();
  b_ref.dbias = bias ? dbias[1]->host() : nullptr;
  ASSERT_TRUE(opencl.SupportsBackward(b, &why)) << why;
  ASSERT_NO_THROW(opencl.Backward(b));
  ASSERT_TRUE(reference::provider::RunReferenceAttentionBackward(b_ref).ok());
  const char* names[3] = {"dq", "dk", "dv"};
  for (int m = 0; m < 3; ++m)
    ExpectClose(grads[0][m], grads[1][m], ToleranceKind::kAttentionBackward, s.dtype, names[m]);
  if (bias != nullptr)
    ExpectClose(dbias[0], dbias[1], ToleranceKind::kAttentionBackward, s.dtype, "dbias");
}

Problem MakeProblem(std::string name, int32_t dtype, Format format, int32_t mask, int32_t bias) {
  Problem s;
  s.name = std::move(name), s.dtype = dtype, s.format = format, s.mask = mask, s.bias = bias;
  return s;
}

std::vector<Problem> Problems() {
  std::vector<Problem> all;
  // Three query and four key tiles, GQA, a window that cuts tiles.
  Problem s = MakeProblem("bshd_gqa_window_causal_br", TEPLUG_DTYPE_FP32, Format::kBshd,
                          TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT, TEPLUG_BIAS_NONE);
  s.hkv = 2, s.window_left = 9;
  all.push_back(s);
  // A strided BHSD view, padding with empty sequences, MQA, a bias broadcast
  // over the batch (dbias sums it).
  s = MakeProblem("bhsd_view_padding_mqa_post_bias", TEPLUG_DTYPE_FP32, Format::kBhsdView,
                  TEPLUG_MASK_PADDING, TEPLUG_BIAS_POST_SCALE);
  s.batch = 3, s.hkv = 1, s.bias_broadcast_batch = true;
  all.push_back(s);
  // SBHD fp16, different head dims, ALiBi with the default slopes, causal.
  s = MakeProblem("sbhd_fp16_alibi_causal_dv48", TEPLUG_DTYPE_FP16, Format::kSbhd,
                  TEPLUG_MASK_CAUSAL, TEPLUG_BIAS_ALIBI);
  s.dv = 48;
  all.push_back(s);
  // Packed tokens in bf16 with a pre-scale bias and a two-sided window.
  s = MakeProblem("thd_bf16_padding_causal_pre_bias_window", TEPLUG_DTYPE_BF16, Format::kThd,
                  TEPLUG_MASK_PADDING_CAUSAL, TEPLUG_BIAS_PRE_SCALE);
  s.window_left = 5, s.sq = 33, s.skv = 33;
  all.push_back(s);
  // Longer: head dim 64, 100 x 130 (seven and nine tiles), no mask.
  s = MakeProblem("bshd_long_d64", TEPLUG_DTYPE_FP32, Format::kBshd, TEPLUG_MASK_NONE,
                  TEPLUG_BIAS_NONE);
  s.batch = 1, s.sq = 100, s.skv = 130, s.dqk = s.dv = 64, s.hq = 2, s.hkv = 2;
  s.window_left = 40, s.window_right = 7;
  all.push_back(s);
  return all;
}

// A small fp32 BSHD forward on the device, for the refusals below.
struct SmallForward {
  TeplugAttentionParams p = sdk::Versioned<TeplugAttentionParams>();
  TeplugAttentionFwdArgs f = sdk::Versioned<TeplugAttentionFwdArgs>();
};

TEST_F(OpenClDeviceTest, RefusesWhatItDoesNotServeAndNamesBadArguments) {
  std::mt19937_64 rng(7);
  TwinTensor* q = Make(TEPLUG_DTYPE_FP32, {2, 8, 2, 16});
  TwinTensor* k = Make(TEPLUG_DTYPE_FP32, {2, 8, 2, 16});
  TwinTensor* o = Make(TEPLUG_DTYPE_FP32, {2, 8, 2, 16});
  TwinTensor* lse = Make(TEPLUG_DTYPE_FP32, {2, 2, 8});
  TwinTensor* cu = Make(TEPLUG_DTYPE_INT32, {3});
  q->Random(rng, -1, 1);
  k->Random(rng, -1, 1);
  auto base = [&] {
    SmallForward a;
    a.p.layout = TEPLUG_LAYOUT_BSHD_BSHD_BSHD;
    a.p.batch = 2, a.p.num_heads_q = a.p.num_heads_kv = 2, a.p.head_dim_qk = a.p.head_dim_v = 16;
    a.p.max_seqlen_q = a.p.max_seqlen_kv = 8, a.p.window_left = a.p.window_right = -1;
    a.p.softmax_scale = 0.25f, a.p.is_training = 1;
    a.f.params = &a.p;
    a.f.q = q->device(), a.f.k = k->device(), a.f.v = k->device(), a.f.o = o->device();
    a.f.softmax_lse = lse->device();
    return a;
  };
  OpenClAttention opencl;
  auto refused = [&](const SmallForward& a) {
    std::string why;
    EXPECT_FALSE(opencl.SupportsForward(a.f, &why));
    return why;
  };
  {
    SmallForward a = base();
    std::string why;
    EXPECT_TRUE(opencl.SupportsForward(a.f, &why)) << why;
  }
  {
    SmallForward a = base();
    a.p.dropout = 0.1f;
    EXPECT_NE(refused(a).find("dropout 0.1 in training"), std::string::npos);
  }
  {
    SmallForward a = base();
    a.p.head_dim_qk = 512;
    EXPECT_NE(refused(a).find("head dim 512 is above 256"), std::string::npos);
  }
  {
    SmallForward a = base();
    a.f.q = q->host();
    EXPECT_NE(refused(a).find("TeplugAttentionFwdArgs.q is not on an OpenCL device"),
              std::string::npos);
  }
  {
    SmallForward a = base();
    TeplugTensor fp8 = *q->device();
    fp8.dtype = TEPLUG_DTYPE_FP8_E4M3;
    a.f.q = &fp8;
    EXPECT_NE(refused(a).find("q is fp8_e4m3"), std::string::npos);
  }
  {
    SmallForward a = base();
    TeplugTensor inner = *q->device();
    inner.strides[3] = 2, inner.strides[2] = 32, inner.strides[1] = 64, inner.strides[0] = 512;
    inner.shape[3] = 8, a.p.head_dim_qk = 8;
    a.f.q = &inner;
    EXPECT_NE(refused(a).find("reads head vectors of stride 1"), std::string::npos);
  }
  {  // Decreasing cu_seqlens: named when the call reads them.
    SmallForward a = base();
    a.p.mask_type = TEPLUG_MASK_PADDING;
    cu->SetInt32({0, 8, 3});
    a.p.cu_seqlens_q = a.p.cu_seqlens_kv = cu->device();
    try {
      opencl.Forward(a.f);
      ADD_FAILURE() << "decreasing cu_seqlens accepted";
    } catch (const sdk::Exception& e) {
      EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
      EXPECT_NE(std::string(e.what()).find("cu_seqlens_q: sequence 1 has length -5"),
                std::string::npos)
          << e.what();
    }
  }
  {  // A THD buffer shorter than cu_seqlens address: named before any kernel runs.
    TwinTensor* tokens = Make(TEPLUG_DTYPE_FP32, {5, 2, 16});
    tokens->Random(rng, -1, 1);
    SmallForward a = base();
    a.p.layout = TEPLUG_LAYOUT_THD_THD_THD;
    a.p.mask_type = TEPLUG_MASK_PADDING;
    cu->SetInt32({0, 4, 9});
    a.p.cu_seqlens_q = a.p.cu_seqlens_kv = cu->device();
    a.f.q = a.f.k = a.f.v = a.f.o = tokens->device();
    try {
      opencl.Forward(a.f);
      ADD_FAILURE() << "5 tokens accepted where cu_seqlens address 9";
    } catch (const sdk::Exception& e) {
      EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
      EXPECT_NE(std::string(e.what()).find("q holds 5 tokens but cu_seqlens_q addresses 9"),
                std::string::npos)
          << e.what();
    }
  }
  {  // A wrong O shape is named with the shape the layout needs.
    SmallForward a = base();
    a.f.o = lse->device();
    try {
      opencl.Forward(a.f);
      ADD_FAILURE() << "a [2, 2, 8] o accepted";
    } catch (const sdk::Exception& e) {
      EXPECT_NE(std::string(e.what()).find("TeplugAttentionFwdArgs.o has shape [2, 2, 8]"),
                std::string::npos)
          << e.what();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, OpenClAttentionKernelTest, ::testing::ValuesIn(Problems()),
                         [](const ::testing::TestParamInfo<Problem>& i) { return i.param.name; });

}  // namespace
}  // namespace teplug::opencl::attention
