// The reference provider as the kernel sees it: linked in as the built-in
// "reference" (//plugins/reference:builtin) it serves every interface through
// the dispatching objects (a GEMM, an attention forward, a quantize and a
// 2-rank all_reduce, each checked against what this test computes itself); the
// same provider as a plugin .so is refused as a duplicate name while the
// built-in is there, and loads and serves the same GEMM results when it is the
// only one.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/kernel/kernel.h"
#include "gtest/gtest.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "tools/cpp/runfiles/runfiles.h"

namespace teplug {
namespace {

using core::Kernel;
using core::KernelOptions;

// The plugin build of the provider, or "" (and the test fails) when the
// runfiles cannot be found.
std::string ReferencePlugin() {
  std::string error;
  std::unique_ptr<bazel::tools::cpp::runfiles::Runfiles> r(
      bazel::tools::cpp::runfiles::Runfiles::CreateForTest(&error));
  if (r == nullptr) {
    ADD_FAILURE() << "cannot find the runfiles: " << error;
    return "";
  }
  return r->Rlocation("teplug/plugins/reference/libteplug_reference.so");
}

KernelOptions Options(bool builtins, std::vector<std::string> plugins) {
  KernelOptions o;
  o.use_environment = false;
  o.load_builtins = builtins;
  o.plugin_paths = std::move(plugins);
  o.config_text = "log_level: \"error\"\n";
  return o;
}

// An fp32 tensor over *s, which is resized to `shape` and filled with `value`.
TeplugTensor Filled(std::vector<float>* s, const std::vector<int64_t>& shape, float value) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  s->assign(static_cast<size_t>(n), value);
  TeplugTensor t = sdk::Versioned<TeplugTensor>();
  t.data = s->data();
  t.dtype = TEPLUG_DTYPE_FP32;
  t.rank = static_cast<int32_t>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) t.shape[i] = shape[i];
  return t;
}

// The same with values in [-1, 1).
TeplugTensor Random(std::vector<float>* s, const std::vector<int64_t>& shape, std::mt19937* rng) {
  TeplugTensor t = Filled(s, shape, 0.f);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (float& x : *s) x = dist(*rng);
  return t;
}

TeplugTensor Matrix(std::vector<float>* s, int64_t r, int64_t c, std::mt19937* rng) {
  return Random(s, {r, c}, rng);
}

// An output the callee must overwrite: NaN until it does.
TeplugTensor Unwritten(std::vector<float>* s, const std::vector<int64_t>& shape) {
  return Filled(s, shape, std::numeric_limits<float>::quiet_NaN());
}

// D = A(5x7) B(7x3) through the kernel; checked against fp64 in this test.
std::vector<float> GemmThrough(const Kernel& k) {
  std::mt19937 rng(7);
  std::vector<float> a, b, d;
  TeplugTensor ta = Matrix(&a, 5, 7, &rng), tb = Matrix(&b, 7, 3, &rng), td = Matrix(&d, 5, 3, &rng);
  TeplugGemmArgs args = sdk::Versioned<TeplugGemmArgs>();
  args.a = &ta;
  args.b = &tb;
  args.d = &td;
  args.alpha = 1.f;
  auto gemm = k.Query<TeplugGemmV1>(sdk::kIidGemmV1);
  sdk::OwnedError err(gemm->vtbl->gemm(gemm.get(), &args));
  EXPECT_TRUE(err.ok()) << err.message();
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 3; ++j) {
      double want = 0;
      for (int p = 0; p < 7; ++p) want += double(a[i * 7 + p]) * b[p * 3 + j];
      EXPECT_NEAR(d[i * 3 + j], want, 1e-6) << i << "," << j;
    }
  }
  return d;
}

// Attention forward through the kernel, batch 1, 2 heads, 3 queries, 4 keys,
// head dim 4, BSHD, no mask: O = softmax(scale Q K^T) V and LSE = log sum exp,
// checked against fp64 in this test.
void AttentionForwardThrough(const Kernel& k) {
  constexpr int64_t kHeads = 2, kSq = 3, kSkv = 4, kDim = 4;
  constexpr float kScale = 0.5f;
  std::mt19937 rng(13);
  std::vector<float> q, kk, v, o, lse;
  const TeplugTensor tq = Random(&q, {1, kSq, kHeads, kDim}, &rng);
  const TeplugTensor tk = Random(&kk, {1, kSkv, kHeads, kDim}, &rng);
  const TeplugTensor tv = Random(&v, {1, kSkv, kHeads, kDim}, &rng);
  TeplugTensor to = Unwritten(&o, {1, kSq, kHeads, kDim});
  TeplugTensor tlse = Unwritten(&lse, {1, kHeads, kSq});
  TeplugAttentionParams params = sdk::Versioned<TeplugAttentionParams>();
  params.layout = TEPLUG_LAYOUT_BSHD_BSHD_BSHD;
  params.mask_type = TEPLUG_MASK_NONE;
  params.bias_type = TEPLUG_BIAS_NONE;
  params.batch = 1;
  params.num_heads_q = params.num_heads_kv = kHeads;
  params.head_dim_qk = params.head_dim_v = kDim;
  params.max_seqlen_q = kSq;
  params.max_seqlen_kv = kSkv;
  params.window_left = params.window_right = -1;
  params.softmax_scale = kScale;
  TeplugAttentionFwdArgs args = sdk::Versioned<TeplugAttentionFwdArgs>();
  args.params = &params;
  args.q = &tq;
  args.k = &tk;
  args.v = &tv;
  args.o = &to;
  args.softmax_lse = &tlse;
  auto attention = k.Query<TeplugAttentionV1>(sdk::kIidAttentionV1);
  ASSERT_TRUE(attention);
  sdk::OwnedError err(attention->vtbl->forward(attention.get(), &args));
  ASSERT_TRUE(err.ok()) << err.message();
  // [1, s, h, d] row-major.
  auto at = [](const std::vector<float>& t, int64_t s, int64_t h, int64_t d) {
    return double(t[static_cast<size_t>((s * kHeads + h) * kDim + d)]);
  };
  for (int64_t h = 0; h < kHeads; ++h) {
    for (int64_t i = 0; i < kSq; ++i) {
      std::vector<double> score(kSkv);
      double sum = 0;
      for (int64_t j = 0; j < kSkv; ++j) {
        double dot = 0;
        for (int64_t d = 0; d < kDim; ++d) dot += at(q, i, h, d) * at(kk, j, h, d);
        score[j] = kScale * dot;
        sum += std::exp(score[j]);
      }
      EXPECT_NEAR(lse[static_cast<size_t>(h * kSq + i)], std::log(sum), 1e-5) << h << "," << i;
      for (int64_t e = 0; e < kDim; ++e) {
        double want = 0;
        for (int64_t j = 0; j < kSkv; ++j) want += std::exp(score[j]) / sum * at(v, j, h, e);
        EXPECT_NEAR(at(o, i, h, e), want, 1e-5) << h << "," << i << "," << e;
      }
    }
  }
}

// fp32 -> fp8_e4m3 with a given per-tensor scale (delayed scaling) through the
// kernel. The inputs times the scale are exact e4m3 values, so the codes are
// known bit patterns (OCP e4m3: sign, 4 exponent bits biased by 7, 3 mantissa
// bits); amax and scale_inv follow from the inputs.
void QuantizeThrough(const Kernel& k) {
  const std::vector<float> values = {0.f, 0.25f, -1.f, 224.f, 0.5f, 0.75f, -0.125f, 1.5f};
  // 2x: 0, 0.5, -2, 448 (the largest e4m3), 1, 1.5, -0.25, 3.
  const std::vector<uint8_t> want = {0x00, 0x30, 0xC0, 0x7E, 0x38, 0x3C, 0xA8, 0x44};
  std::vector<float> x, scale, scale_inv, amax;
  const TeplugTensor input = Filled(&x, {2, 4}, 0.f);
  std::copy(values.begin(), values.end(), x.begin());
  const TeplugTensor tscale = Filled(&scale, {1}, 2.f);
  const TeplugTensor tscale_inv = Unwritten(&scale_inv, {1});
  const TeplugTensor tamax = Unwritten(&amax, {1});
  TeplugQuantization quant = sdk::Versioned<TeplugQuantization>();
  quant.mode = TEPLUG_SCALING_PER_TENSOR;
  quant.scale = &tscale;
  quant.scale_inv = &tscale_inv;
  quant.amax = &tamax;
  std::vector<uint8_t> codes(x.size(), 0xFF);
  TeplugTensor output = input;
  output.data = codes.data();
  output.dtype = TEPLUG_DTYPE_FP8_E4M3;
  output.quant = &quant;
  TeplugQuantizeArgs args = sdk::Versioned<TeplugQuantizeArgs>();
  args.input = &input;
  args.output = &output;
  args.recipe = TEPLUG_RECIPE_DELAYED;
  args.rowwise = 1;
  auto quantizer = k.Query<TeplugQuantizerV1>(sdk::kIidQuantizerV1);
  ASSERT_TRUE(quantizer);
  sdk::OwnedError err(quantizer->vtbl->quantize(quantizer.get(), &args));
  ASSERT_TRUE(err.ok()) << err.message();
  EXPECT_EQ(codes, want);
  EXPECT_EQ(amax[0], 224.f);
  EXPECT_EQ(scale_inv[0], 0.5f);
  EXPECT_EQ(scale[0], 2.f) << "delayed scaling must not change the given scale";
}

// A sum all_reduce over 2 thread ranks through the kernel, joined by the
// reference provider's documented bootstrap blob ("teplug-collective-v1:" and
// a region path); the result is checked against the sum computed here.
void AllReduceThrough(const Kernel& k) {
  constexpr int kWorld = 2;
  auto coll = k.Query<TeplugCollectiveV1>(sdk::kIidCollectiveV1);
  ASSERT_TRUE(coll);
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string blob = std::string("teplug-collective-v1:") + (tmp != nullptr ? tmp : "/tmp") +
                           "/reference_through_kernel_region";
  std::mt19937 rng(17);
  std::vector<std::vector<float>> in(kWorld), out(kWorld);
  std::vector<TeplugTensor> send, recv;
  for (int r = 0; r < kWorld; ++r) {
    send.push_back(Random(&in[r], {9}, &rng));
    recv.push_back(Unwritten(&out[r], {9}));
  }
  std::vector<std::string> errors(kWorld);
  std::vector<std::thread> ranks;
  for (int r = 0; r < kWorld; ++r) {
    ranks.emplace_back([&, r] {
      TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
      rv.bootstrap = blob.data();
      rv.bootstrap_size = blob.size();
      rv.timeout_ms = 20000;
      TeplugCommCreateArgs create = sdk::Versioned<TeplugCommCreateArgs>();
      create.rank = r;
      create.world_size = kWorld;
      create.rendezvous = &rv;
      TeplugCommunicator* comm = nullptr;
      sdk::OwnedError e(coll->vtbl->comm_create(coll.get(), &create, &comm));
      if (!e.ok()) {
        errors[r] = "comm_create: " + e.message();
        return;
      }
      TeplugCollectiveArgs args = sdk::Versioned<TeplugCollectiveArgs>();
      args.comm = comm;
      args.send = &send[r];
      args.recv = &recv[r];
      args.reduce_op = TEPLUG_REDUCE_SUM;
      e = sdk::OwnedError(coll->vtbl->run(coll.get(), TEPLUG_OP_ALL_REDUCE, &args));
      if (!e.ok()) errors[r] = "all_reduce: " + e.message();
      e = sdk::OwnedError(coll->vtbl->comm_destroy(coll.get(), comm));
      if (!e.ok()) errors[r] += " comm_destroy: " + e.message();
    });
  }
  for (std::thread& t : ranks) t.join();
  for (int r = 0; r < kWorld; ++r) {
    ASSERT_TRUE(errors[r].empty()) << "rank " << r << ": " << errors[r];
  }
  for (int r = 0; r < kWorld; ++r) {
    for (size_t i = 0; i < in[0].size(); ++i) {
      EXPECT_EQ(out[r][i], in[0][i] + in[1][i]) << "rank " << r << " element " << i;
    }
  }
}

TEST(ReferenceThroughKernelTest, BuiltInServesEveryInterface) {
  auto k = Kernel::Create(Options(true, {}));
  ASSERT_TRUE(k.ok()) << k.status();
  auto providers = (*k)->ListProviders();
  ASSERT_EQ(providers.size(), 1u);
  EXPECT_EQ(providers[0].name, "reference");
  EXPECT_TRUE(providers[0].builtin);
  EXPECT_EQ(providers[0].implementations.size(), 6u) << "gemm, attention, quantizer, collective, norm, device";
  {
    SCOPED_TRACE("gemm");
    GemmThrough(**k);
  }
  {
    SCOPED_TRACE("attention forward");
    AttentionForwardThrough(**k);
  }
  {
    SCOPED_TRACE("quantize");
    QuantizeThrough(**k);
  }
  {
    SCOPED_TRACE("all_reduce");
    AllReduceThrough(**k);
  }
}

TEST(ReferenceThroughKernelTest, PluginCopyIsADuplicateBesideTheBuiltInAndIdenticalAlone) {
  const std::string plugin = ReferencePlugin();
  ASSERT_FALSE(plugin.empty());
  auto both = Kernel::Create(Options(true, {plugin}));
  ASSERT_TRUE(both.ok()) << both.status();
  int refused = 0;
  for (const auto& e : (*both)->LoadReport()) {
    if (!e.loaded) {
      ++refused;
      EXPECT_NE(e.reason.find("duplicate provider name \"reference\": " + e.path +
                              " declares the name already registered by the built-in provider; "),
                std::string::npos)
          << e.reason;
    }
  }
  EXPECT_EQ(refused, 1);
  auto plugin_only = Kernel::Create(Options(false, {plugin}));
  ASSERT_TRUE(plugin_only.ok()) << plugin_only.status();
  ASSERT_EQ((*plugin_only)->ListProviders().size(), 1u);
  EXPECT_FALSE((*plugin_only)->ListProviders()[0].builtin);
  EXPECT_EQ(GemmThrough(**plugin_only), GemmThrough(**both)) << "bitwise equal";
}

}  // namespace
}  // namespace teplug
