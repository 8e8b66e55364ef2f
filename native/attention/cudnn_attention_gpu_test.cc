// native/cudnn through the kernel, the way hosts call it. Without a GPU
// (development machines, CI) the decision record says why native cannot
// serve, in the driver's words, and the GPU cases skip with that text. With
// a GPU, two forwards in training mode on cuda:0 (served by native/cudnn)
// against the same call on host copies (served by the reference, fp64):
//   - bf16 bshd causal GQA on random inputs in [-1, 1]. Tolerance: O:
//     |native - reference| <= 2^-7 |reference| + 2^-8 (one bf16 rounding of
//     O plus cuDNN's fp32 accumulation and bf16 P); LSE: 2^-10 abs.
//   - fp8 e4m3 bshd causal, B2 H2 D128 S128, per-tensor scales, on random
//     e4m3 codes in [2^-3, 2) (skipped before sm_90, where TransformerEngine
//     serves no fp8 attention). Tolerance: O, dequantized with o's
//     scale_inv, and o's amax: two e4m3 steps at the tensor max,
//     |native - reference| <= 2 * 2^-3 * max |O reference| (O's rounding and
//     P's, which the fused kernel quantizes with s_quant;
//     tools/teplug/tolerances.h Fp8AttentionTolerance); LSE: 2^-6 abs (P is
//     quantized to fp8 inside the fused kernel).
// The full capability sweep (masks, layouts, bias, dropout, backward) is
// `teplug conformance --interface attention --device cuda:0`
// (tools/gpu_check.sh).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/kernel/kernel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "native/gemm/testing/gpu_presence.h"
#include "plugins/reference/numerics/float_formats.h"
#include "teplug/sdk/device_context.hpp"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/ref.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native {
namespace {

using ::testing::HasSubstr;
using testing::WhyNoGpu;

constexpr int64_t B = 2, S = 128, HQ = 4, HKV = 2, D = 64;

std::unique_ptr<core::Kernel> MakeKernel() {
  core::KernelOptions o;
  o.use_environment = false;
  o.config_text = "log_level: \"error\"\n";
  auto k = core::Kernel::Create(o);
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *std::move(k) : nullptr;
}

TeplugAttentionParams Params() {
  TeplugAttentionParams p = sdk::Versioned<TeplugAttentionParams>();
  p.layout = TEPLUG_LAYOUT_BSHD_BSHD_BSHD;
  p.mask_type = TEPLUG_MASK_CAUSAL;
  p.is_training = 1;
  p.batch = B;
  p.num_heads_q = HQ;
  p.num_heads_kv = HKV;
  p.head_dim_qk = p.head_dim_v = D;
  p.max_seqlen_q = p.max_seqlen_kv = S;
  p.window_left = p.window_right = -1;
  p.softmax_scale = 0.125f;
  return p;
}

TEST(NativeAttentionOnGpu, WithoutAGpuTheDecisionRecordSaysWhyInTheDriversWords) {
  const std::string why = WhyNoGpu();
  if (why.empty()) GTEST_SKIP() << "a GPU is present";
  auto k = MakeKernel();
  ASSERT_NE(k, nullptr);
  TeplugDevice cuda = sdk::Versioned<TeplugDevice>();
  cuda.kind = TEPLUG_DEVICE_CUDA;
  TeplugAttentionParams p = Params();
  p.is_training = 0;
  TeplugTensor q = sdk::Versioned<TeplugTensor>(), kv = q, o = q;
  for (TeplugTensor* t : {&q, &kv, &o}) {
    t->dtype = TEPLUG_DTYPE_BF16;
    t->rank = 4;
    t->shape[0] = B;
    t->shape[1] = S;
    t->shape[2] = HQ;
    t->shape[3] = D;
    t->device = &cuda;
  }
  kv.shape[2] = HKV;
  TeplugAttentionFwdArgs args = sdk::Versioned<TeplugAttentionFwdArgs>();
  args.params = &p;
  args.q = &q;
  args.k = args.v = &kv;
  args.o = &o;
  absl::StatusOr<core::DecisionRecord> record =
      k->Explain(sdk::kIidAttentionV1, TEPLUG_OP_ATTENTION_FORWARD, &args);
  ASSERT_TRUE(record.ok()) << record.status();
  bool seen = false;
  for (const core::CandidateVerdict& c : record->candidates) {
    const std::string reason = record->Reason(c);
    if (reason.find("native attention") == std::string::npos) continue;
    seen = true;
    EXPECT_THAT(reason, HasSubstr("native attention: no CUDA device: " + why));
  }
  EXPECT_TRUE(seen) << "no candidate of native/cudnn in the record";
}

// One test tensor: its host bytes, and the view the call gets.
struct Buffer {
  std::vector<uint8_t> host;
  std::vector<int64_t> shape;
  int32_t dtype;
  void* device = nullptr;
  TeplugTensor t = sdk::Versioned<TeplugTensor>();
};

std::vector<uint8_t> BytesOf(const void* data, size_t bytes) {
  std::vector<uint8_t> b(bytes);
  std::memcpy(b.data(), data, bytes);
  return b;
}

// Where one run of a forward keeps its tensors: on cuda:0 through the
// kernel's IDevice (`ctx` given) or in host memory, where the reference
// serves it. Frees what it allocated.
class Placement {
 public:
  Placement(sdk::DeviceContext* ctx, const TeplugDevice* cuda) : ctx_(ctx), cuda_(cuda) {}
  ~Placement() {
    for (void* p : owned_) EXPECT_FALSE(ctx_->Deallocate(p));
  }
  bool on_gpu() const { return ctx_ != nullptr; }

  // Points each buffer's tensor at its bytes, copied to cuda:0 on the GPU.
  void Place(std::vector<Buffer>& buf) {
    for (Buffer& x : buf) {
      x.t.dtype = x.dtype;
      x.t.rank = static_cast<int32_t>(x.shape.size());
      for (size_t j = 0; j < x.shape.size(); ++j) x.t.shape[j] = x.shape[j];
      if (!on_gpu()) {
        x.t.data = x.host.data();
        continue;
      }
      x.device = Allocate(x.host.size());
      ASSERT_NE(x.device, nullptr) << "allocating " << x.host.size() << " bytes on cuda:0";
      ASSERT_FALSE(ctx_->Copy(TEPLUG_COPY_HOST_TO_DEVICE, x.device, x.host.data(), x.host.size()));
      x.t.data = x.device;
      x.t.device = cuda_;
    }
  }

  // The forward with the workspace it asks for; *served_by the
  // implementation that ran.
  void Forward(TeplugAttentionV1* attention, TeplugAttentionFwdArgs* args, std::string* served_by) {
    size_t ws_bytes = 0;
    {
      sdk::OwnedError e(
          attention->vtbl->workspace_size(attention, TEPLUG_OP_ATTENTION_FORWARD, args, &ws_bytes));
      ASSERT_FALSE(e) << e.message();
    }
    host_ws_.assign(ws_bytes, 0);
    void* ws = nullptr;
    if (ws_bytes > 0) {
      if (on_gpu()) {
        ws = Allocate(ws_bytes);
        ASSERT_NE(ws, nullptr) << "allocating a workspace of " << ws_bytes << " bytes on cuda:0";
      } else {
        ws = host_ws_.data();
      }
    }
    args->workspace = ws;
    args->workspace_size = ws_bytes;
    core::ServedByRecorder recorder;
    sdk::OwnedError e(attention->vtbl->forward(attention, args));
    ASSERT_FALSE(e) << (on_gpu() ? "on cuda:0: " : "on the host: ") << e.message();
    *served_by = recorder.last();
  }

  // The buffer's bytes after the call.
  void Read(const Buffer& b, std::vector<uint8_t>* out) {
    *out = b.host;
    if (on_gpu()) {
      ASSERT_FALSE(ctx_->Copy(TEPLUG_COPY_DEVICE_TO_HOST, out->data(), b.device, out->size()));
    }
  }

 private:
  void* Allocate(size_t bytes) {
    void* p = nullptr;
    EXPECT_FALSE(ctx_->Allocate(bytes, 256, &p));
    if (p != nullptr) owned_.push_back(p);
    return p;
  }

  sdk::DeviceContext* ctx_;
  const TeplugDevice* cuda_;
  std::vector<void*> owned_;
  std::vector<uint8_t> host_ws_;
};

std::vector<float> Floats(const std::vector<uint8_t>& bytes) {
  std::vector<float> f(bytes.size() / 4);
  std::memcpy(f.data(), bytes.data(), f.size() * 4);
  return f;
}

// Every element of `native` within tolerance(i) of `reference`; the first
// five outside are reported.
void ExpectWithin(const std::vector<float>& native, const std::vector<float>& reference,
                  const std::function<double(size_t)>& tolerance, const char* what) {
  ASSERT_EQ(native.size(), reference.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < native.size(); ++i) {
    if (!(std::fabs(native[i] - reference[i]) <= tolerance(i)) && ++bad <= 5) {
      ADD_FAILURE() << what << "[" << i << "]: native " << native[i] << ", reference "
                    << reference[i] << " (tolerance " << tolerance(i) << ")";
    }
  }
  EXPECT_EQ(bad, 0) << bad << " of " << native.size() << " " << what
                    << " elements outside the tolerance";
}

// The kernel's IDevice and dispatching IAttention, and a context on cuda:0.
struct OnGpu {
  std::unique_ptr<core::Kernel> kernel;
  sdk::Ref<TeplugDeviceV1> dev;
  sdk::Ref<TeplugAttentionV1> attention;
  TeplugDevice cuda = sdk::Versioned<TeplugDevice>();
  std::unique_ptr<sdk::DeviceContext> ctx;
};

// Opens `g` on cuda:0 (of `arch`); fails the test when a step fails.
void OpenOnGpu(int32_t arch, OnGpu* g) {
  g->kernel = MakeKernel();
  ASSERT_NE(g->kernel, nullptr);
  g->dev = g->kernel->Query<TeplugDeviceV1>(sdk::kIidDeviceV1);
  g->attention = g->kernel->Query<TeplugAttentionV1>(sdk::kIidAttentionV1);
  ASSERT_TRUE(g->dev && g->attention);
  g->cuda.kind = TEPLUG_DEVICE_CUDA;
  g->cuda.arch = arch;
  sdk::OwnedError opened = sdk::DeviceContext::Open(g->dev.get(), g->cuda, &g->ctx);
  ASSERT_FALSE(opened) << opened.message();
}

// cuda:0's arch (major * 10 + minor).
int32_t ArchOfGpu0() {
  cudaDeviceProp prop{};
  EXPECT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  return prop.major * 10 + prop.minor;
}

TEST(NativeAttentionOnGpu, CausalGqaForwardMatchesTheReference) {
  const std::string why = WhyNoGpu();
  if (!why.empty()) GTEST_SKIP() << "no CUDA device: " << why;
  OnGpu gpu;
  ASSERT_NO_FATAL_FAILURE(OpenOnGpu(ArchOfGpu0(), &gpu));
  const TeplugDevice& cuda = gpu.cuda;
  sdk::DeviceContext* const ctx = gpu.ctx.get();

  std::mt19937 rng(4321);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  auto random_bf16 = [&](int64_t n) {
    std::vector<uint16_t> v(static_cast<size_t>(n));
    for (uint16_t& x : v) x = reference::EncodeBf16(uni(rng));
    return BytesOf(v.data(), v.size() * 2);
  };
  const std::vector<uint8_t> hq = random_bf16(B * S * HQ * D), hk = random_bf16(B * S * HKV * D),
                             hv = random_bf16(B * S * HKV * D);
  std::vector<std::vector<float>> o_out(2), lse_out(2);
  for (const bool on_gpu : {true, false}) {
    Placement where(on_gpu ? ctx : nullptr, &cuda);
    TeplugAttentionParams p = Params();
    std::vector<Buffer> buf(5);
    buf[0] = {hq, {B, S, HQ, D}, TEPLUG_DTYPE_BF16};
    buf[1] = {hk, {B, S, HKV, D}, TEPLUG_DTYPE_BF16};
    buf[2] = {hv, {B, S, HKV, D}, TEPLUG_DTYPE_BF16};
    buf[3] = {std::vector<uint8_t>(hq.size()), {B, S, HQ, D}, TEPLUG_DTYPE_BF16};
    buf[4] = {
        std::vector<uint8_t>(static_cast<size_t>(B * HQ * S) * 4), {B, HQ, S}, TEPLUG_DTYPE_FP32};
    ASSERT_NO_FATAL_FAILURE(where.Place(buf));
    TeplugAttentionFwdArgs args = sdk::Versioned<TeplugAttentionFwdArgs>();
    args.params = &p;
    args.q = &buf[0].t;
    args.k = &buf[1].t;
    args.v = &buf[2].t;
    args.o = &buf[3].t;
    args.softmax_lse = &buf[4].t;
    std::string served_by;
    ASSERT_NO_FATAL_FAILURE(where.Forward(gpu.attention.get(), &args, &served_by));
    EXPECT_EQ(served_by, on_gpu ? "native/cudnn" : "reference/attention");
    std::vector<uint8_t> o, lse;
    ASSERT_NO_FATAL_FAILURE(where.Read(buf[3], &o));
    ASSERT_NO_FATAL_FAILURE(where.Read(buf[4], &lse));
    for (size_t e = 0; e < o.size() / 2; ++e) {
      uint16_t b;
      std::memcpy(&b, &o[e * 2], 2);
      o_out[on_gpu ? 0 : 1].push_back(reference::DecodeBf16(b));
    }
    lse_out[on_gpu ? 0 : 1] = Floats(lse);
  }
  ASSERT_FALSE(ctx->Close());
  ExpectWithin(
      o_out[0], o_out[1],
      [&](size_t i) { return std::ldexp(std::fabs(o_out[1][i]), -7) + std::ldexp(1.0, -8); }, "O");
  ExpectWithin(
      lse_out[0], lse_out[1], [](size_t) { return std::ldexp(1.0, -10); }, "LSE");
}

TEST(NativeAttentionOnGpu, Fp8CausalForwardMatchesTheReference) {
  const std::string why = WhyNoGpu();
  if (!why.empty()) GTEST_SKIP() << "no CUDA device: " << why;
  const int32_t arch = ArchOfGpu0();
  if (arch < 90) GTEST_SKIP() << "fp8 attention needs sm_90; cuda:0 is sm_" << arch;
  OnGpu gpu;
  ASSERT_NO_FATAL_FAILURE(OpenOnGpu(arch, &gpu));
  const TeplugDevice& cuda = gpu.cuda;
  sdk::DeviceContext* const ctx = gpu.ctx.get();

  // TransformerEngine's fp8 shape on Hopper: head dim 128, lengths a multiple
  // of 128; no GQA.
  constexpr int64_t kHeads = 2, kDim = 128;
  constexpr size_t kElements = static_cast<size_t>(B * S * kHeads * kDim);
  // e4m3 codes of random sign in [2^-3, 2): exponent fields 4..7, never NaN.
  std::mt19937 rng(8765);
  auto random_e4m3 = [&] {
    std::vector<uint8_t> v(kElements);
    for (uint8_t& x : v) {
      const uint32_t sign = rng() & 0x80u;
      const uint32_t exponent = 4 + rng() % 4;
      x = static_cast<uint8_t>(sign | exponent << 3 | (rng() & 0x7u));
    }
    return v;
  };
  const std::vector<uint8_t> hq = random_e4m3(), hk = random_e4m3(), hv = random_e4m3();
  // Per-tensor scales (scale_inv = 1 / scale): Q, K, V dequantize to half,
  // once and twice their codes; O (an average of V's rows, below 4) is scaled
  // by 32 and P (in [0, 1]) by 64, both well below e4m3's largest, 448.
  enum { kQ, kK, kV, kO, kP, kScalings };
  const float scale[kScalings] = {2.0f, 1.0f, 0.5f, 32.0f, 64.0f};
  std::vector<std::vector<float>> o_out(2), lse_out(2);
  float native_o_amax = 0;
  for (const bool on_gpu : {true, false}) {
    Placement where(on_gpu ? ctx : nullptr, &cuda);
    TeplugAttentionParams p = Params();
    p.num_heads_q = p.num_heads_kv = kHeads;
    p.head_dim_qk = p.head_dim_v = kDim;
    p.softmax_scale = 1.0f / std::sqrt(static_cast<float>(kDim));
    // q, k, v, o, lse, then each scaling's scale, scale_inv and amax (amax
    // -1 until written).
    std::vector<Buffer> buf(5 + 3 * kScalings);
    buf[0] = {hq, {B, S, kHeads, kDim}, TEPLUG_DTYPE_FP8_E4M3};
    buf[1] = {hk, {B, S, kHeads, kDim}, TEPLUG_DTYPE_FP8_E4M3};
    buf[2] = {hv, {B, S, kHeads, kDim}, TEPLUG_DTYPE_FP8_E4M3};
    buf[3] = {std::vector<uint8_t>(kElements), {B, S, kHeads, kDim}, TEPLUG_DTYPE_FP8_E4M3};
    buf[4] = {std::vector<uint8_t>(static_cast<size_t>(B * kHeads * S) * 4),
              {B, kHeads, S},
              TEPLUG_DTYPE_FP32};
    for (int s = 0; s < kScalings; ++s) {
      const float values[3] = {scale[s], 1.0f / scale[s], -1.0f};
      for (int j = 0; j < 3; ++j) {
        buf[5 + 3 * s + j] = {BytesOf(&values[j], 4), {1}, TEPLUG_DTYPE_FP32};
      }
    }
    ASSERT_NO_FATAL_FAILURE(where.Place(buf));
    TeplugQuantization quant[kScalings];
    for (int s = 0; s < kScalings; ++s) {
      quant[s] = sdk::Versioned<TeplugQuantization>();
      quant[s].mode = TEPLUG_SCALING_PER_TENSOR;
      quant[s].scale = &buf[5 + 3 * s].t;
      quant[s].scale_inv = &buf[6 + 3 * s].t;
      quant[s].amax = &buf[7 + 3 * s].t;
    }
    for (int i : {kQ, kK, kV, kO}) buf[i].t.quant = &quant[i];  // buf[0..3] are q, k, v, o
    TeplugAttentionFwdArgs args = sdk::Versioned<TeplugAttentionFwdArgs>();
    args.params = &p;
    args.q = &buf[0].t;
    args.k = &buf[1].t;
    args.v = &buf[2].t;
    args.o = &buf[3].t;
    args.softmax_lse = &buf[4].t;
    args.s_quant = &quant[kP];
    std::string served_by;
    ASSERT_NO_FATAL_FAILURE(where.Forward(gpu.attention.get(), &args, &served_by));
    EXPECT_EQ(served_by, on_gpu ? "native/cudnn" : "reference/attention");
    std::vector<uint8_t> o, lse, o_amax;
    ASSERT_NO_FATAL_FAILURE(where.Read(buf[3], &o));
    ASSERT_NO_FATAL_FAILURE(where.Read(buf[4], &lse));
    ASSERT_NO_FATAL_FAILURE(where.Read(buf[7 + 3 * kO], &o_amax));
    // O dequantized with o's scale_inv.
    for (uint8_t code : o)
      o_out[on_gpu ? 0 : 1].push_back(reference::DecodeFp8E4M3(code) / scale[kO]);
    lse_out[on_gpu ? 0 : 1] = Floats(lse);
    if (on_gpu) native_o_amax = Floats(o_amax)[0];
  }
  ASSERT_FALSE(ctx->Close());
  double ref_max = 0;
  for (float x : o_out[1]) ref_max = std::max(ref_max, std::fabs(static_cast<double>(x)));
  ASSERT_GT(ref_max, 0);
  const double tol = 2 * std::ldexp(ref_max, -3);
  ExpectWithin(
      o_out[0], o_out[1], [tol](size_t) { return tol; }, "O");
  EXPECT_LE(std::fabs(native_o_amax - ref_max), tol)
      << "o's amax: native " << native_o_amax << ", max |O| of the reference " << ref_max;
  ExpectWithin(
      lse_out[0], lse_out[1], [](size_t) { return std::ldexp(1.0, -6); }, "LSE");
}

}  // namespace
}  // namespace teplug::native
