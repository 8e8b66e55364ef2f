// "The plugin build and the built-in registration give identical results":
// libteplug_reference.so loaded with the toy host and teplug_reference_entry
// called directly (the built-in path) in the same process run the same ops on
// the same inputs — gemm, attention forward and backward, quantize in every
// scaling mode, an all_reduce over two thread ranks, a LayerNorm forward into
// MXFP8 and its backward — and every output is
// compared bitwise.
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "interfaces/tests/test_host.hpp"
#include "plugins/reference/collective/rendezvous.h"
#include "plugins/reference/provider/reference_entry.h"
#include "plugins/reference/provider/testing/abi_tensor.h"
#include "plugins/reference/provider/testing/attention_runner.h"
#include "plugins/reference/provider/testing/direct_host.h"
#include "plugins/reference/provider/testing/norm_tensors.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::reference::provider {
namespace {

using testing::AbiTensor;
using Bytes = std::vector<unsigned char>;

// The five objects of one way of loading the provider.
struct Objects {
  TeplugGemmV1* gemm;
  TeplugAttentionV1* attn;
  TeplugQuantizerV1* quant;
  TeplugCollectiveV1* coll;
  TeplugNormV1* norm;
};

template <class Recorded>
Objects ObjectsOf(Recorded& recorded) {
  return {testing::Find<TeplugGemmV1>(recorded, sdk::kIidGemmV1),
          testing::Find<TeplugAttentionV1>(recorded, sdk::kIidAttentionV1),
          testing::Find<TeplugQuantizerV1>(recorded, sdk::kIidQuantizerV1),
          testing::Find<TeplugCollectiveV1>(recorded, sdk::kIidCollectiveV1),
          testing::Find<TeplugNormV1>(recorded, sdk::kIidNormV1)};
}

// LayerNorm forward (zero-centered gamma, MXFP8 y) and backward; every output.
Bytes NormBytes(TeplugNormV1* norm) {
  std::mt19937_64 rng(8);
  testing::NormTensors t(TEPLUG_NORM_LAYERNORM, {3, 40}, TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_FP32,
                         TEPLUG_DTYPE_FP8_E4M3, rng);
  t.SetZeroCentered(true);
  t.y.SetQuant(TEPLUG_SCALING_MXFP8_1D32,
               std::make_unique<AbiTensor>(TEPLUG_DTYPE_E8M0, std::vector<int64_t>{3, 2}));
  sdk::OwnedError e = t.Forward(norm);
  EXPECT_TRUE(e.ok()) << e.message();
  sdk::OwnedError eb = t.Backward(norm);
  EXPECT_TRUE(eb.ok()) << eb.message();
  Bytes out;
  for (AbiTensor* x : {&t.y, t.y.scale_inv(), t.y.amax(), &t.mu, &t.rsigma, &t.dx, &t.dgamma, &t.dbeta}) {
    const Bytes v = x->Bytes();
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

Bytes GemmBytes(TeplugGemmV1* gemm) {
  std::mt19937_64 rng(5);
  AbiTensor a(TEPLUG_DTYPE_FP8_E4M3, {7, 33}), b(TEPLUG_DTYPE_BF16, {5, 33}), d(TEPLUG_DTYPE_FP8_E5M2, {7, 5}),
      bias(TEPLUG_DTYPE_BF16, {5}), pre(TEPLUG_DTYPE_FP32, {7, 5});
  a.Fill(testing::RandomValues(rng, a.count(), 1, 400));
  b.Fill(testing::RandomValues(rng, b.count()));
  bias.Fill(testing::RandomValues(rng, bias.count()));
  a.SetPerTensor(1.0f, 0.0078125f);
  d.SetPerTensor(16.0f, 0.0f);
  TeplugGemmArgs args = sdk::Versioned<TeplugGemmArgs>();
  args.a = a.get();
  args.b = b.get();
  args.d = d.get();
  args.bias = bias.get();
  args.pre_gelu_out = pre.get();
  args.epilogue = TEPLUG_EPILOGUE_GELU;
  args.trans_b = 1;
  args.alpha = 1.25f;
  sdk::OwnedError e(gemm->vtbl->gemm(gemm, &args));
  EXPECT_TRUE(e.ok()) << e.message();
  Bytes out = d.Bytes();
  for (AbiTensor* t : {&pre, d.amax(), d.scale_inv()}) {
    const Bytes x = t->Bytes();
    out.insert(out.end(), x.begin(), x.end());
  }
  return out;
}

std::vector<double> AttentionValues(TeplugAttentionV1* attn) {
  std::mt19937_64 rng(6);
  const testing::Dims d{2, 6, 7, 4, 2, 8, 8};
  const std::vector<int64_t> cu_q = {0, 6, 10}, cu_kv = {0, 7, 12};
  TeplugAttentionParams p = sdk::Versioned<TeplugAttentionParams>();
  p.batch = d.b;
  p.num_heads_q = d.hq;
  p.num_heads_kv = d.hkv;
  p.head_dim_qk = d.dqk;
  p.head_dim_v = d.dv;
  p.max_seqlen_q = d.sq;
  p.max_seqlen_kv = d.skv;
  p.mask_type = TEPLUG_MASK_PADDING_CAUSAL;
  p.bias_type = TEPLUG_BIAS_ALIBI;
  p.window_left = 3;
  p.window_right = -1;
  p.softmax_scale = 0.35f;
  p.is_training = 1;
  p.dropout = 0.1f;
  p.rng_seed = 11;
  testing::AttentionOutputs r = testing::RunAttention(
      attn, TEPLUG_LAYOUT_THD_TH2D, p, d, cu_q, cu_kv, testing::RandomValues(rng, 2 * 4 * 6 * 8),
      testing::RandomValues(rng, 2 * 2 * 7 * 8), testing::RandomValues(rng, 2 * 2 * 7 * 8),
      testing::RandomValues(rng, 2 * 4 * 6 * 8), TEPLUG_DTYPE_BF16);
  EXPECT_EQ(r.error, "");
  std::vector<double> all;
  for (const auto* v : {&r.o, &r.lse, &r.dq, &r.dk, &r.dv}) all.insert(all.end(), v->begin(), v->end());
  return all;
}

Bytes QuantizeBytes(TeplugQuantizerV1* q, int32_t mode) {
  std::mt19937_64 rng(7);
  const int64_t rows = 130, cols = 140;
  AbiTensor in(TEPLUG_DTYPE_FP32, {rows, cols}), out(TEPLUG_DTYPE_FP8_E4M3, {rows, cols});
  in.Fill(testing::RandomValues(rng, in.count(), 1e-3, 100));
  auto grid = [&](int64_t r, int64_t c) -> std::vector<int64_t> {
    if (mode == TEPLUG_SCALING_MXFP8_1D32) return {r, (c + 31) / 32};
    if (mode == TEPLUG_SCALING_BLOCK_1D128) return {r, (c + 127) / 128};
    if (mode == TEPLUG_SCALING_BLOCK_2D128) return {(r + 127) / 128, (c + 127) / 128};
    return {1};
  };
  const int32_t sdt = mode == TEPLUG_SCALING_MXFP8_1D32 ? TEPLUG_DTYPE_E8M0 : TEPLUG_DTYPE_FP32;
  const bool mx = mode == TEPLUG_SCALING_MXFP8_1D32;  // column-wise stays [rows, cols]
  out.SetQuant(mode, std::make_unique<AbiTensor>(sdt, grid(rows, cols)),
               std::make_unique<AbiTensor>(TEPLUG_DTYPE_FP8_E4M3, mx ? std::vector<int64_t>{rows, cols}
                                                                      : std::vector<int64_t>{cols, rows}),
               std::make_unique<AbiTensor>(sdt, mx ? std::vector<int64_t>{(rows + 31) / 32, cols}
                                                   : grid(cols, rows)));
  TeplugQuantizeArgs a = sdk::Versioned<TeplugQuantizeArgs>();
  a.input = in.get();
  a.output = out.get();
  a.recipe = TEPLUG_RECIPE_CURRENT;
  a.amax_epsilon = 1e-6f;
  a.force_pow2_scales = 1;
  a.rowwise = 1;
  a.columnwise = 1;
  sdk::OwnedError e(q->vtbl->quantize(q, &a));
  EXPECT_TRUE(e.ok()) << sdk::ScalingName(mode) << ": " << e.message();
  Bytes all = out.Bytes();
  for (AbiTensor* t : {out.scale_inv(), out.columnwise_data(), out.columnwise_scale_inv(), out.amax()}) {
    const Bytes x = t->Bytes();
    all.insert(all.end(), x.begin(), x.end());
  }
  return all;
}

// Two thread ranks, both on `coll`; returns rank 0's and rank 1's results.
Bytes AllReduceBytes(TeplugCollectiveV1* coll) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string blob = collective::EncodeBootstrapBlob(collective::MakeUniqueRegionPath(dir ? dir : "/tmp"));
  TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
  rv.bootstrap = blob.data();
  rv.bootstrap_size = blob.size();
  rv.timeout_ms = 20000;
  std::vector<Bytes> results(2);
  std::vector<std::thread> ranks;
  for (int rank = 0; rank < 2; ++rank) {
    ranks.emplace_back([&, rank] {
      std::mt19937_64 rng(100 + rank);
      TeplugCommCreateArgs c = sdk::Versioned<TeplugCommCreateArgs>();
      c.rank = rank;
      c.world_size = 2;
      c.rendezvous = &rv;
      TeplugCommunicator* comm = nullptr;
      if (!sdk::OwnedError(coll->vtbl->comm_create(coll, &c, &comm)).ok()) return;
      AbiTensor x(TEPLUG_DTYPE_BF16, {1000});
      x.Fill(testing::RandomValues(rng, x.count()));
      TeplugCollectiveArgs a = sdk::Versioned<TeplugCollectiveArgs>();
      a.comm = comm;
      a.send = x.get();
      a.recv = x.get();
      a.reduce_op = TEPLUG_REDUCE_AVG;
      if (sdk::OwnedError(coll->vtbl->run(coll, TEPLUG_OP_ALL_REDUCE, &a)).ok()) results[rank] = x.Bytes();
      sdk::OwnedError(coll->vtbl->comm_destroy(coll, comm));
    });
  }
  for (auto& t : ranks) t.join();
  EXPECT_FALSE(results[0].empty());
  EXPECT_EQ(results[0], results[1]);
  return results[0];
}

TEST(PluginBuiltinParityTest, SameResultsBitwise) {
  teplug::testing::TestHost plugin_host;
  sdk::OwnedError e = plugin_host.Load(testing::ReferencePluginPath());
  ASSERT_TRUE(e.ok()) << e.message();
  testing::DirectHost builtin_host;
  ASSERT_TRUE(builtin_host.Run(&teplug_reference_entry).ok());
  EXPECT_EQ(std::string(plugin_host.info().name), std::string(builtin_host.info().name));
  EXPECT_EQ(std::string(plugin_host.info().version), std::string(builtin_host.info().version));
  ASSERT_EQ(plugin_host.recorded.size(), builtin_host.recorded.size());
  for (size_t i = 0; i < plugin_host.recorded.size(); ++i) {
    EXPECT_EQ(plugin_host.recorded[i].name, builtin_host.recorded[i].name);
    EXPECT_EQ(plugin_host.recorded[i].desc.priority, builtin_host.recorded[i].desc.priority);
  }
  const Objects plugin = ObjectsOf(plugin_host.recorded);
  const Objects builtin = ObjectsOf(builtin_host.recorded);
  ASSERT_TRUE(plugin.gemm && plugin.attn && plugin.quant && plugin.coll && plugin.norm);
  // Different code copies: the plugin's objects are not the built-in's.
  EXPECT_NE(static_cast<const void*>(plugin.gemm->vtbl), static_cast<const void*>(builtin.gemm->vtbl));
  EXPECT_EQ(GemmBytes(plugin.gemm), GemmBytes(builtin.gemm));
  EXPECT_EQ(AttentionValues(plugin.attn), AttentionValues(builtin.attn));
  for (int32_t mode : {TEPLUG_SCALING_PER_TENSOR, TEPLUG_SCALING_MXFP8_1D32, TEPLUG_SCALING_BLOCK_1D128,
                       TEPLUG_SCALING_BLOCK_2D128}) {
    EXPECT_EQ(QuantizeBytes(plugin.quant, mode), QuantizeBytes(builtin.quant, mode)) << sdk::ScalingName(mode);
  }
  EXPECT_EQ(AllReduceBytes(plugin.coll), AllReduceBytes(builtin.coll));
  EXPECT_EQ(NormBytes(plugin.norm), NormBytes(builtin.norm));
}

}  // namespace
}  // namespace teplug::reference::provider
