// The cuDNN IAttention against a fake backend and a fake CUDA runtime: the
// order of supports()'s checks and each reason, the graph cache (built once
// per signature, bounded), the workspace it reports and requires, the
// launches around the graph and what they write at padding positions.
#include "native/attention/cudnn_attention.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "native/attention/testing/fake_cudnn_attention_backend.h"
#include "native/attention/testing/host_tensor.h"
#include "native/device/testing/fake_cuda_runtime.h"
#include "teplug/sdk/error.hpp"

namespace teplug::native::attention {
namespace {

using native::testing::FakeCudaRuntime;
using testing::FakeCudnnAttentionBackend;

constexpr int64_t B = 2, S = 8, H = 2, D = 64;

CudaDeviceFacts Gpu(int major, int minor) { return {"fake", major, minor, uint64_t{80} << 30}; }

// A bshd forward whose tensors live in host memory (the fakes read them).
struct Call {
  TeplugDevice device{sizeof(TeplugDevice), TEPLUG_DEVICE_CUDA, TEPLUG_VENDOR_NVIDIA, 0, 90};
  TeplugAttentionParams params{};
  TeplugTensor q{}, k{}, v{}, o{}, lse{}, cu_q{}, cu_kv{};
  std::vector<uint16_t> q_mem, k_mem, v_mem, o_mem;
  std::vector<float> lse_mem;
  std::vector<int32_t> cu_q_mem{0, 5, 13}, cu_kv_mem{0, 8, 11};
  TeplugAttentionFwdArgs args{};

  explicit Call(int64_t head_dim = D) {
    params.struct_size = sizeof(params);
    params.layout = TEPLUG_LAYOUT_BSHD_BSHD_BSHD;
    params.batch = B;
    params.num_heads_q = params.num_heads_kv = H;
    params.head_dim_qk = params.head_dim_v = head_dim;
    params.max_seqlen_q = params.max_seqlen_kv = S;
    params.window_left = params.window_right = -1;
    params.softmax_scale = 0.125f;
    const size_t n = static_cast<size_t>(B * S * H * head_dim);
    q_mem.assign(n, 0x3C00);
    k_mem.assign(n, 0x3C00);
    v_mem.assign(n, 0x3C00);
    o_mem.assign(n, 0x7E00);  // noise: NaN bits, which padding rows must lose
    lse_mem.assign(static_cast<size_t>(B * H * S), 1.5f);
    Init(&q, q_mem.data(), {B, S, H, head_dim});
    Init(&k, k_mem.data(), {B, S, H, head_dim});
    Init(&v, v_mem.data(), {B, S, H, head_dim});
    Init(&o, o_mem.data(), {B, S, H, head_dim});
    Init(&lse, lse_mem.data(), {B, H, S}, TEPLUG_DTYPE_FP32);
    Init(&cu_q, cu_q_mem.data(), {B + 1}, TEPLUG_DTYPE_INT32);
    Init(&cu_kv, cu_kv_mem.data(), {B + 1}, TEPLUG_DTYPE_INT32);
    args.struct_size = sizeof(args);
    args.params = &params;
    args.q = &q;
    args.k = &k;
    args.v = &v;
    args.o = &o;
  }
  // A post_scale bias [1, H, S, S] of `dtype` (storage for fp32 or less).
  void AddBias(int32_t dtype = TEPLUG_DTYPE_BF16) {
    params.bias_type = TEPLUG_BIAS_POST_SCALE;
    bias_mem.assign(static_cast<size_t>(H * S * S), 0.0f);
    Init(&bias, bias_mem.data(), {1, H, S, S}, dtype);
    args.bias = &bias;
  }
  TeplugTensor bias{};
  std::vector<float> bias_mem;

  void Init(TeplugTensor* t, void* data, std::vector<int64_t> shape, int32_t dtype = TEPLUG_DTYPE_BF16) {
    testing::InitTensor(t, data, shape, dtype, &device);
  }
  void Padding() {
    params.mask_type = TEPLUG_MASK_PADDING;
    params.cu_seqlens_q = &cu_q;
    params.cu_seqlens_kv = &cu_kv;
  }
  void Training(float dropout) {
    params.is_training = 1;
    params.dropout = dropout;
    params.rng_seed = 0x1234567890ull;
    params.rng_offset = 77;
    args.softmax_lse = &lse;
  }
};

struct Fixture {
  FakeCudaRuntime runtime;
  FakeCudnnAttentionBackend backend;
  std::unique_ptr<sdk::AttentionImpl> attention;
  explicit Fixture(std::vector<CudaDeviceFacts> gpus = {Gpu(9, 0)}, size_t capacity = kGraphCacheCapacity)
      : runtime(std::move(gpus)), attention(NewCudnnAttention(backend, runtime, capacity)) {}
  std::string Why(const TeplugAttentionFwdArgs& a) {
    std::string reason;
    EXPECT_FALSE(attention->SupportsForward(a, &reason));
    return reason;
  }
};

TEST(CudnnAttention, WithoutAGpuTheReasonIsTheDriversAndCudnnIsNeverLoaded) {
  Fixture f(std::vector<CudaDeviceFacts>{});
  f.runtime.Fail("GetDeviceCount", native::testing::kCudaErrorInsufficientDriver);
  Call c;
  c.device.arch = 0;  // a device that names no arch (teplug explain --device cuda)
  EXPECT_EQ(f.Why(c.args),
            "native attention: no CUDA device: cudaGetDeviceCount returned cudaErrorInsufficientDriver (CUDA driver "
            "version is insufficient for CUDA runtime version)");
  EXPECT_EQ(f.backend.count("LoadLibrary"), 0);
  try {
    f.attention->Forward(c.args);
    FAIL() << "forward ran without a GPU";
  } catch (const sdk::Exception& e) {
    EXPECT_EQ(e.code(), TEPLUG_UNAVAILABLE);
  }
}

TEST(CudnnAttention, WithoutAGpuADeviceThatNamesItsArchGetsTheTablesReason) {
  Fixture f(std::vector<CudaDeviceFacts>{});
  f.runtime.Fail("GetDeviceCount", native::testing::kCudaErrorInsufficientDriver);
  Call c(256);
  c.Training(0.0f);
  c.device.arch = 80;
  EXPECT_EQ(f.Why(c.args),
            "native attention: cuDNN 9.19 on sm_80: head_dim 256 training forward needs sm_90 (and there is no GPU "
            "here: no CUDA device: cudaGetDeviceCount returned cudaErrorInsufficientDriver (CUDA driver version is "
            "insufficient for CUDA runtime version))");
  c.device.arch = 90;  // served there: the driver's reason
  EXPECT_EQ(f.Why(c.args),
            "native attention: no CUDA device: cudaGetDeviceCount returned cudaErrorInsufficientDriver (CUDA driver "
            "version is insufficient for CUDA runtime version)");
}

// Without a GPU and without cuDNN attention (no libcudnn, or built without
// the frontend headers), a device that names its arch gets that reason: no
// rule of the table can be read without cuDNN's version.
TEST(CudnnAttention, WithoutAGpuOrCudnnADeviceThatNamesItsArchGetsTheLibrarysReason) {
  Fixture f(std::vector<CudaDeviceFacts>{});
  f.runtime.Fail("GetDeviceCount", native::testing::kCudaErrorInsufficientDriver);
  f.backend.load_error = "cuDNN attention is not built in: the cuDNN frontend headers were missing";
  Call c(256);
  c.Training(0.0f);
  c.device.arch = 80;
  EXPECT_EQ(f.Why(c.args),
            "native attention: cuDNN attention is not built in: the cuDNN frontend headers were missing");
  EXPECT_EQ(f.backend.count("LoadLibrary"), 1);
}

TEST(CudnnAttention, AMissingLibraryIsTheReasonAndLoadedOnce) {
  Fixture f;
  f.backend.load_error = "cuDNN not loadable: libcudnn.so.9: cannot open shared object file";
  Call c;
  EXPECT_EQ(f.Why(c.args), "native attention: cuDNN not loadable: libcudnn.so.9: cannot open shared object file");
  EXPECT_EQ(f.Why(c.args), "native attention: cuDNN not loadable: libcudnn.so.9: cannot open shared object file");
  EXPECT_EQ(f.backend.count("LoadLibrary"), 1);
}

TEST(CudnnAttention, TheRuleTableSpeaksForTheGpusArchAndTheLoadedVersion) {
  Fixture f({Gpu(8, 0)});
  Call c(256);
  c.Training(0.0f);
  EXPECT_EQ(f.Why(c.args), "native attention: cuDNN 9.19 on sm_80: head_dim 256 training forward needs sm_90");
  EXPECT_EQ(f.backend.count("BuildGraph"), 0);
  Fixture hopper({Gpu(9, 0)});
  std::string reason;
  EXPECT_TRUE(hopper.attention->SupportsForward(c.args, &reason)) << reason;
}

TEST(CudnnAttention, ArgumentErrorsComeFirst) {
  Fixture f(std::vector<CudaDeviceFacts>{});
  Call c;
  c.args.v = nullptr;
  EXPECT_EQ(f.Why(c.args), "native attention: v is NULL");
  EXPECT_EQ(f.runtime.calls("GetDeviceCount"), 0);
}

TEST(CudnnAttention, WhatNativeDoesNotBuildIsNamed) {
  Fixture f;
  Call c;
  c.params.bias_type = TEPLUG_BIAS_ALIBI;
  c.params.mask_type = TEPLUG_MASK_CAUSAL;
  TeplugTensor slopes{};
  std::vector<float> slope_mem(H, 0.5f);
  c.Init(&slopes, slope_mem.data(), {H}, TEPLUG_DTYPE_FP32);
  c.params.alibi_slopes = &slopes;
  EXPECT_EQ(f.Why(c.args),
            "native attention: cuDNN's ALiBi uses the default slopes; explicit params.alibi_slopes would need a "
            "post_scale bias tensor, which native does not build");
  c.params.alibi_slopes = nullptr;
  std::string reason;
  EXPECT_TRUE(f.attention->SupportsForward(c.args, &reason)) << reason;
}

// The graph declares the bias in q's dtype: an fp32 bias would be read as bf16.
TEST(CudnnAttention, ABiasInAnotherDtypeThanQIsUnsupported) {
  Fixture f;
  Call c;
  c.AddBias(TEPLUG_DTYPE_FP32);
  EXPECT_EQ(f.Why(c.args),
            "native attention: bias has dtype fp32; cuDNN takes it in q's dtype bf16");
  try {
    f.attention->Forward(c.args);
    FAIL() << "an fp32 bias was run";
  } catch (const sdk::Exception& e) {
    EXPECT_EQ(e.code(), TEPLUG_UNSUPPORTED);
  }
  EXPECT_EQ(f.backend.count("BuildGraph"), 0);
}

// causal_bottom_right with equal lengths and no padding is causal: cuDNN gets
// the top-left diagonal, which it takes with a bias.
TEST(CudnnAttention, BottomRightCausalWithEqualLengthsIsBuiltTopLeft) {
  Fixture f;
  Call c;
  c.params.mask_type = TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT;
  c.AddBias();
  std::string reason;
  ASSERT_TRUE(f.attention->SupportsForward(c.args, &reason)) << reason;
  ASSERT_EQ(f.backend.built().size(), 1u);
  EXPECT_TRUE(f.backend.built()[0].causal);
  EXPECT_FALSE(f.backend.built()[0].bottom_right);
}

TEST(CudnnAttention, ACuDnnRefusalIsTheReason) {
  Fixture f;
  f.backend.build_error = "cuDNN frontend check_support: No valid engine configs for SDPA";
  Call c;
  EXPECT_EQ(f.Why(c.args), "native attention: cuDNN frontend check_support: No valid engine configs for SDPA");
}

TEST(CudnnAttention, OneGraphPerSignature) {
  Fixture f;
  Call c;
  std::string reason;
  ASSERT_TRUE(f.attention->SupportsForward(c.args, &reason)) << reason;
  EXPECT_EQ(f.attention->ForwardWorkspaceSize(c.args), f.backend.graph_workspace);
  c.params.softmax_scale = 0.5f;  // not part of the signature
  std::vector<char> ws(f.backend.graph_workspace);
  c.args.workspace = ws.data();
  c.args.workspace_size = ws.size();
  f.attention->Forward(c.args);
  EXPECT_EQ(f.backend.count("BuildGraph"), 1);
  EXPECT_EQ(f.backend.count("CreateHandle"), 1);
  c.params.mask_type = TEPLUG_MASK_CAUSAL;  // another signature
  ASSERT_TRUE(f.attention->SupportsForward(c.args, &reason)) << reason;
  EXPECT_EQ(f.backend.count("BuildGraph"), 2);
  ASSERT_EQ(f.backend.built().size(), 2u);
  EXPECT_FALSE(f.backend.built()[0].causal);
  EXPECT_TRUE(f.backend.built()[1].causal);
}

TEST(CudnnAttention, ConcurrentQuestionsBuildOneGraph) {
  Fixture f;
  std::vector<std::thread> threads;
  std::vector<int> served(8, 0);
  for (size_t i = 0; i < served.size(); ++i) {
    threads.emplace_back([&f, &served, i] {
      Call c;
      std::string reason;
      served[i] = f.attention->SupportsForward(c.args, &reason) ? 1 : 0;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(served, std::vector<int>(8, 1));
  EXPECT_EQ(f.backend.count("BuildGraph"), 1);
  EXPECT_EQ(f.backend.count("CreateHandle"), 1);
  EXPECT_EQ(f.backend.count("LoadLibrary"), 1);
}

TEST(CudnnAttention, TheCacheIsBoundedLeastRecentlyUsedFirst) {
  Fixture f({Gpu(9, 0)}, 2);
  std::string reason;
  auto ask = [&](int32_t mask) {
    Call c;
    c.params.mask_type = mask;
    EXPECT_TRUE(f.attention->SupportsForward(c.args, &reason)) << reason;
  };
  ask(TEPLUG_MASK_NONE);
  ask(TEPLUG_MASK_CAUSAL);
  ask(TEPLUG_MASK_NONE);  // hit: none is now the most recent
  EXPECT_EQ(f.backend.count("BuildGraph"), 2);
  ask(TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT);  // evicts causal
  ask(TEPLUG_MASK_NONE);
  EXPECT_EQ(f.backend.count("BuildGraph"), 3);
  ask(TEPLUG_MASK_CAUSAL);
  EXPECT_EQ(f.backend.count("BuildGraph"), 4);
}

TEST(CudnnAttention, WorkspaceIsTruthfulAndRequired) {
  Fixture f;
  Call c;
  c.Padding();
  c.Training(0.1f);
  const size_t need = f.attention->ForwardWorkspaceSize(c.args);
  const SdpaWorkspaceLayout w = LayOutWorkspace(f.backend.built().at(0), f.backend.graph_workspace);
  EXPECT_EQ(need, w.total);
  EXPECT_GT(need, f.backend.graph_workspace);  // lengths and RNG state after cuDNN's bytes
  EXPECT_GE(w.seq_len_q, f.backend.graph_workspace);
  std::vector<char> ws(need - 1);
  c.args.workspace = ws.data();
  c.args.workspace_size = ws.size();
  try {
    f.attention->Forward(c.args);
    FAIL() << "a short workspace was accepted";
  } catch (const sdk::Exception& e) {
    EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(e.what()), absl::StrCat("native attention: workspace of ", need - 1,
                                                  " bytes given; this call needs ", need, " (ask workspace_size)"));
  }
  EXPECT_EQ(f.backend.count("Execute"), 0);
}

TEST(CudnnAttention, ForwardPreparesLengthsAndRngRunsTheGraphThenDefinesPadding) {
  Fixture f;
  Call c;
  c.Padding();
  c.Training(0.1f);
  std::vector<char> ws(f.attention->ForwardWorkspaceSize(c.args));
  c.args.workspace = ws.data();
  c.args.workspace_size = ws.size();
  const std::vector<std::string> before = f.backend.log();
  f.attention->Forward(c.args);
  const std::vector<std::string> after = f.backend.log();
  const std::vector<std::string> calls(after.begin() + static_cast<long>(before.size()), after.end());
  EXPECT_EQ(calls, (std::vector<std::string>{"SetStream", "SequenceLengths", "SequenceLengths", "WriteRngState",
                                             "Execute", "ZeroRowsPastLength", "NegInfPastLength"}));
  ASSERT_EQ(f.backend.executions().size(), 1u);
  const SdpaBuffers b = f.backend.executions()[0];
  EXPECT_EQ(b.q, c.q_mem.data());
  EXPECT_EQ(b.o, c.o_mem.data());
  EXPECT_EQ(b.stats, c.lse_mem.data());
  EXPECT_FLOAT_EQ(b.softmax_scale, 0.125f);
  ASSERT_NE(b.seq_len_q, nullptr);
  EXPECT_EQ(b.seq_len_q[0], 5);
  EXPECT_EQ(b.seq_len_q[1], 8);
  EXPECT_EQ(b.seq_len_kv[0], 8);
  EXPECT_EQ(b.seq_len_kv[1], 3);
  ASSERT_NE(b.rng_state, nullptr);
  EXPECT_EQ(static_cast<uint64_t>(b.rng_state[0]), 0x1234567890ull);
  EXPECT_EQ(b.rng_state[1], 77);
  // Batch 0 has 5 query rows: rows 5..7 are padding (O 0, LSE -inf); batch 1 none.
  for (int64_t s = 0; s < S; ++s) {
    const uint16_t o00 = c.o_mem[static_cast<size_t>((0 * S + s) * H * D)];
    EXPECT_EQ(o00, s < 5 ? 0x7E00 : 0) << s;
    EXPECT_EQ(c.o_mem[static_cast<size_t>((1 * S + s) * H * D)], 0x7E00) << s;
    const float l = c.lse_mem[static_cast<size_t>(s)];
    if (s < 5) {
      EXPECT_EQ(l, 1.5f);
    } else {
      EXPECT_TRUE(std::isinf(l) && l < 0) << s;
    }
  }
}

// attention.h lets an inference pass softmax_lse: then it is written, with
// -inf past each query length, by a graph of its own.
TEST(CudnnAttention, AnInferenceGivenLseWritesIt) {
  Fixture f;
  Call c;
  c.Padding();
  std::vector<char> ws(f.attention->ForwardWorkspaceSize(c.args));
  c.args.workspace = ws.data();
  c.args.workspace_size = ws.size();
  f.attention->Forward(c.args);
  ASSERT_EQ(f.backend.executions().size(), 1u);
  EXPECT_EQ(f.backend.executions()[0].stats, nullptr);
  EXPECT_EQ(f.backend.count("NegInfPastLength"), 0);

  c.args.softmax_lse = &c.lse;
  ws.assign(f.attention->ForwardWorkspaceSize(c.args), 0);
  c.args.workspace = ws.data();
  c.args.workspace_size = ws.size();
  f.attention->Forward(c.args);
  ASSERT_EQ(f.backend.built().size(), 2u);  // another graph: it has the statistics output
  EXPECT_FALSE(f.backend.built()[0].writes_lse);
  EXPECT_TRUE(f.backend.built()[1].writes_lse);
  EXPECT_FALSE(f.backend.built()[1].training);
  EXPECT_NE(SdpaProblemWords(f.backend.built()[0]), SdpaProblemWords(f.backend.built()[1]));
  ASSERT_EQ(f.backend.executions().size(), 2u);
  EXPECT_EQ(f.backend.executions()[1].stats, c.lse_mem.data());
  EXPECT_EQ(f.backend.count("NegInfPastLength"), 1);
  // Batch 0 has 5 query rows.
  EXPECT_EQ(c.lse_mem[4], 1.5f);
  EXPECT_TRUE(std::isinf(c.lse_mem[5]) && c.lse_mem[5] < 0);
}

TEST(CudnnAttention, PackedMembersAreOffsetPointers) {
  Fixture f;
  f.backend.graph_workspace = 0;  // and then none is needed
  Call c;
  c.params.layout = TEPLUG_LAYOUT_BSH3D;
  std::vector<uint16_t> qkv(static_cast<size_t>(B * S * H * 3 * D));
  TeplugTensor packed{};
  c.Init(&packed, qkv.data(), {B, S, H, 3, D});
  c.args.q = c.args.k = c.args.v = &packed;
  f.attention->Forward(c.args);
  ASSERT_EQ(f.backend.executions().size(), 1u);
  const SdpaBuffers b = f.backend.executions()[0];
  EXPECT_EQ(b.q, qkv.data());
  EXPECT_EQ(b.k, qkv.data() + D);
  EXPECT_EQ(b.v, qkv.data() + 2 * D);
}

TEST(CudnnAttention, ThdGetsRaggedOffsetsPerTensor) {
  Fixture f;
  Call c;
  c.params.layout = TEPLUG_LAYOUT_THD_THD_THD;
  c.Padding();
  std::vector<uint16_t> q(13 * H * D), kv(11 * H * D), o(13 * H * D);
  c.Init(&c.q, q.data(), {13, H, D});
  c.Init(&c.k, kv.data(), {11, H, D});
  c.Init(&c.v, kv.data(), {11, H, D});
  c.Init(&c.o, o.data(), {13, H, D});
  std::vector<char> ws(f.attention->ForwardWorkspaceSize(c.args));
  c.args.workspace = ws.data();
  c.args.workspace_size = ws.size();
  f.attention->Forward(c.args);
  ASSERT_EQ(f.backend.executions().size(), 1u);
  const SdpaBuffers b = f.backend.executions()[0];
  ASSERT_NE(b.ragged_q, nullptr);
  EXPECT_EQ(b.ragged_q[1], 5 * H * D);
  EXPECT_EQ(b.ragged_q[2], 13 * H * D);
  EXPECT_EQ(b.ragged_k[2], 11 * H * D);
  EXPECT_EQ(b.ragged_o[1], 5 * H * D);
  EXPECT_EQ(f.backend.count("RaggedOffsets"), 4);
  EXPECT_EQ(f.backend.count("ZeroRowsPastLength"), 0);  // packed tokens have no padding rows
}

TEST(CudnnAttention, BackwardZeroesGradientsPastTheLengths) {
  Fixture f;
  Call c;
  c.Padding();
  c.params.is_training = 1;
  std::vector<uint16_t> d_o(c.o_mem.size()), dq(c.q_mem.size(), 0x7E00), dk(dq), dv(dq);
  TeplugTensor t_do{}, t_dq{}, t_dk{}, t_dv{};
  c.Init(&t_do, d_o.data(), {B, S, H, D});
  c.Init(&t_dq, dq.data(), {B, S, H, D});
  c.Init(&t_dk, dk.data(), {B, S, H, D});
  c.Init(&t_dv, dv.data(), {B, S, H, D});
  TeplugAttentionBwdArgs a{};
  a.struct_size = sizeof(a);
  a.params = &c.params;
  a.q = &c.q;
  a.k = &c.k;
  a.v = &c.v;
  a.o = &c.o;
  a.d_o = &t_do;
  a.softmax_lse = &c.lse;
  a.dq = &t_dq;
  a.dk = &t_dk;
  a.dv = &t_dv;
  std::vector<char> ws(f.attention->BackwardWorkspaceSize(a));
  a.workspace = ws.data();
  a.workspace_size = ws.size();
  f.attention->Backward(a);
  EXPECT_EQ(f.backend.count("ZeroRowsPastLength"), 3);
  EXPECT_TRUE(f.backend.built().at(0).backward);
  // Batch 1 has 3 keys: dK rows 3..7 of batch 1 are zero, rows 0..2 untouched.
  for (int64_t s = 0; s < S; ++s) {
    EXPECT_EQ(dk[static_cast<size_t>((1 * S + s) * H * D)], s < 3 ? 0x7E00 : 0) << s;
    EXPECT_EQ(dq[static_cast<size_t>((0 * S + s) * H * D)], s < 5 ? 0x7E00 : 0) << s;
  }
}

TEST(CudnnAttention, HandlesAreMadeOncePerGpuAndDestroyed) {
  {
    Fixture f;
    Call c;
    std::string reason;
    ASSERT_TRUE(f.attention->SupportsForward(c.args, &reason));
    c.params.mask_type = TEPLUG_MASK_CAUSAL;
    ASSERT_TRUE(f.attention->SupportsForward(c.args, &reason));
    EXPECT_EQ(f.backend.live_handles(), 1);
    f.attention.reset();
    EXPECT_EQ(f.backend.live_handles(), 0);
  }
}

// A cuDNN handle is not thread-safe: a graph built on it (new signatures)
// while another thread executes on it (a cached one) must wait.
TEST(CudnnAttention, BuildsAndExecutionsOnAHandleDoNotOverlap) {
  Fixture f;
  f.backend.handle_hold = std::chrono::microseconds(300);
  Call warm;
  std::string reason;
  ASSERT_TRUE(f.attention->SupportsForward(warm.args, &reason)) << reason;
  std::thread builder([&f] {
    for (int64_t window = 0; window < 24; ++window) {
      Call c;
      c.params.window_left = window;  // a new signature each time
      std::string why;
      EXPECT_TRUE(f.attention->SupportsForward(c.args, &why)) << why;
    }
  });
  std::thread executor([&f] {
    for (int i = 0; i < 24; ++i) {
      Call c;
      std::vector<char> ws(f.attention->ForwardWorkspaceSize(c.args));
      c.args.workspace = ws.data();
      c.args.workspace_size = ws.size();
      f.attention->Forward(c.args);
    }
  });
  builder.join();
  executor.join();
  EXPECT_EQ(f.backend.count("BuildGraph"), 25);
  EXPECT_EQ(f.backend.count("Execute"), 24);
  EXPECT_EQ(f.backend.handle_overlaps(), 0);
}

// The graphs' plans were built on the handles, so they are freed first.
TEST(CudnnAttention, GraphsAreDestroyedBeforeTheirHandles) {
  Fixture f;
  Call c;
  std::string reason;
  ASSERT_TRUE(f.attention->SupportsForward(c.args, &reason)) << reason;
  c.params.mask_type = TEPLUG_MASK_CAUSAL;
  ASSERT_TRUE(f.attention->SupportsForward(c.args, &reason)) << reason;
  f.attention.reset();
  const std::vector<std::string> log = f.backend.log();
  const auto handle = std::find(log.begin(), log.end(), "DestroyHandle");
  ASSERT_NE(handle, log.end());
  EXPECT_EQ(std::count(log.begin(), handle, "DestroyGraph"), 2);
  EXPECT_EQ(std::count(handle, log.end(), "DestroyGraph"), 0);
}

TEST(CudnnAttention, CapsDeclareWhatTheChecksServe) {
  const TeplugAttentionCaps* caps = CudnnAttentionCaps();
  EXPECT_EQ(caps->qkv_dtypes, TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP16) |
                                  TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16) |
                                  TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3));
  EXPECT_EQ(caps->bias_types & TEPLUG_BIAS_BIT(TEPLUG_BIAS_PRE_SCALE), 0u);
  EXPECT_NE(caps->features & TEPLUG_ATTN_CAP_BACKWARD, 0u);
  EXPECT_EQ(caps->devices[0].kind, TEPLUG_DEVICE_CUDA);
  EXPECT_EQ(caps->head_dim_multiple, 8);
}

}  // namespace
}  // namespace teplug::native::attention
