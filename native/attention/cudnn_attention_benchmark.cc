// Attention through teplug (the kernel's dispatching IAttention, served by
// native/cudnn) against the same cuDNN frontend graph executed directly: the
// same SdpaProblem (SdpaProblemOfForward/Backward of the same args), graph
// (BuildCudnnSdpaGraph on a handle of this benchmark's own), buffers and
// stream. bf16, bshd, causal, 16 heads of dimension 128, batch 2, at
// sequence lengths 4096 and 8192, forward (training: LSE written) and
// backward. fp8 graphs are not served by native yet, so there is no fp8 case.
//
// Each Google Benchmark iteration is one interleaved rep: kCallsPerRep calls
// through teplug timed with CUDA events, then kCallsPerRep direct
// executions; after 5 reps the counters are the medians: teplug_TFLOPs,
// direct_TFLOPs, ratio (teplug / direct, the target is >= 0.97) and
// peak_fraction (teplug over the device's dense bf16 peak,
// native/gemm/testing/gpu_bench.h). FLOPs as FlashAttention counts them:
// forward 4 B H S^2 D, halved for the causal mask; backward 2.5 times that.
//
// Without a GPU it prints why (the driver's words) and exits 0, so CI builds
// and runs it as a check that it links.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/kernel/kernel.h"
#include "native/attention/cudnn_library.h"
#include "native/attention/cudnn_sdpa_graph.h"
#include "native/attention/sdpa_problem.h"
#include "native/gemm/testing/gpu_bench.h"
#include "native/gemm/testing/gpu_presence.h"
#include "teplug/sdk/device_context.hpp"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native::attention {
namespace {

using native::testing::WhyNoGpu;

constexpr int kCallsPerRep = 10;
constexpr int kReps = 5;

using native::testing::ExitUnless;

// What every case shares: the kernel, cuda:0 opened through teplug's
// IDevice, a stream, and a cuDNN handle of the benchmark's own on it.
struct Bench {
  native::testing::BenchDevice gpu;
  void* cudnn = nullptr;
};
Bench* g_bench = nullptr;

struct Case {
  bool backward;
  int64_t batch, heads, seq, dim;
};

void BM_TeplugVsDirectCudnn(benchmark::State& state, Case c) {
  Bench& b = *g_bench;
  std::vector<void*> owned;
  // Device memory through teplug's IDevice; when filled, bf16 values of
  // random sign and magnitude in [2^-7, 1).
  auto allocate = [&](size_t bytes, bool fill) {
    void* p = nullptr;
    ExitUnless(b.gpu.ctx->Allocate(bytes, 256, &p), "allocate");
    owned.push_back(p);
    if (fill) {
      std::vector<uint16_t> host(bytes / 2);
      std::mt19937 rng(17);
      // bf16 with exponent 0x3e or below (|x| < 1) and a random sign.
      for (uint16_t& h : host) {
        const uint32_t exponent = 120 + rng() % 7;  // biased: 2^-7 .. 2^-1
        h = static_cast<uint16_t>((rng() & 0x8000u) | exponent << 7 | (rng() & 0x7Fu));
      }
      ExitUnless(b.gpu.ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, p, host.data(), bytes), "copy");
    }
    return p;
  };
  const size_t elements = static_cast<size_t>(c.batch * c.seq * c.heads * c.dim);
  auto tensor = [&](void* data) {
    TeplugTensor t = sdk::Versioned<TeplugTensor>();
    t.dtype = TEPLUG_DTYPE_BF16;
    t.rank = 4;
    t.shape[0] = c.batch;
    t.shape[1] = c.seq;
    t.shape[2] = c.heads;
    t.shape[3] = c.dim;
    t.data = data;
    t.device = &b.gpu.cuda;
    return t;
  };
  TeplugTensor q = tensor(allocate(elements * 2, true)), k = tensor(allocate(elements * 2, true)),
               v = tensor(allocate(elements * 2, true)), o = tensor(allocate(elements * 2, false)),
               d_o = tensor(allocate(elements * 2, true)),
               dq = tensor(allocate(elements * 2, false)),
               dk = tensor(allocate(elements * 2, false)),
               dv = tensor(allocate(elements * 2, false));
  TeplugTensor lse = sdk::Versioned<TeplugTensor>();
  lse.dtype = TEPLUG_DTYPE_FP32;
  lse.rank = 3;
  lse.shape[0] = c.batch;
  lse.shape[1] = c.heads;
  lse.shape[2] = c.seq;
  lse.data = allocate(static_cast<size_t>(c.batch * c.heads * c.seq) * 4, false);
  lse.device = &b.gpu.cuda;

  TeplugAttentionParams params = sdk::Versioned<TeplugAttentionParams>();
  params.layout = TEPLUG_LAYOUT_BSHD_BSHD_BSHD;
  params.mask_type = TEPLUG_MASK_CAUSAL;
  params.bias_type = TEPLUG_BIAS_NONE;
  params.is_training = 1;
  params.batch = c.batch;
  params.num_heads_q = params.num_heads_kv = c.heads;
  params.head_dim_qk = params.head_dim_v = c.dim;
  params.max_seqlen_q = params.max_seqlen_kv = c.seq;
  params.window_left = params.window_right = -1;
  params.softmax_scale = 1.0f / std::sqrt(static_cast<float>(c.dim));
  TeplugAttentionFwdArgs fwd = sdk::Versioned<TeplugAttentionFwdArgs>();
  fwd.params = &params;
  fwd.q = &q;
  fwd.k = &k;
  fwd.v = &v;
  fwd.o = &o;
  fwd.softmax_lse = &lse;
  fwd.stream = b.gpu.stream;
  TeplugAttentionBwdArgs bwd = sdk::Versioned<TeplugAttentionBwdArgs>();
  bwd.params = &params;
  bwd.q = &q;
  bwd.k = &k;
  bwd.v = &v;
  bwd.o = &o;
  bwd.d_o = &d_o;
  bwd.softmax_lse = &lse;
  bwd.dq = &dq;
  bwd.dk = &dk;
  bwd.dv = &dv;
  bwd.stream = b.gpu.stream;

  // Through teplug: workspace as the IAttention asks.
  auto attention = b.gpu.kernel->Query<TeplugAttentionV1>(sdk::kIidAttentionV1);
  ExitUnless(static_cast<bool>(attention), "no IAttention");
  const int32_t op = c.backward ? TEPLUG_OP_ATTENTION_BACKWARD : TEPLUG_OP_ATTENTION_FORWARD;
  size_t teplug_ws = 0;
  ExitUnless(
      sdk::OwnedError(attention->vtbl->workspace_size(
          attention.get(), op, c.backward ? static_cast<const void*>(&bwd) : &fwd, &teplug_ws)),
      "workspace_size");
  void* ws = teplug_ws == 0 ? nullptr : allocate(teplug_ws, false);
  fwd.workspace = bwd.workspace = ws;
  fwd.workspace_size = bwd.workspace_size = teplug_ws;

  // Directly: the same problem and graph on the benchmark's handle.
  absl::StatusOr<SdpaProblem> problem =
      c.backward ? SdpaProblemOfBackward(bwd) : SdpaProblemOfForward(fwd);
  ExitUnless(problem.status(), "problem");
  absl::StatusOr<std::unique_ptr<SdpaGraph>> graph = BuildCudnnSdpaGraph(*problem, b.cudnn);
  ExitUnless(graph.status(), "graph");
  const size_t direct_ws_bytes = (*graph)->workspace_size();
  void* direct_ws = direct_ws_bytes == 0 ? nullptr : allocate(direct_ws_bytes, false);
  SdpaBuffers buffers;
  buffers.q = q.data;
  buffers.k = k.data;
  buffers.v = v.data;
  buffers.o = o.data;
  buffers.stats = lse.data;
  buffers.softmax_scale = params.softmax_scale;
  if (c.backward) {
    buffers.d_o = d_o.data;
    buffers.dq = dq.data;
    buffers.dk = dk.data;
    buffers.dv = dv.data;
  }

  const auto stream = static_cast<cudaStream_t>(b.gpu.stream);
  auto through_teplug = [&] {
    TeplugError* e = c.backward ? attention->vtbl->backward(attention.get(), &bwd)
                                : attention->vtbl->forward(attention.get(), &fwd);
    ExitUnless(sdk::OwnedError(e), "attention through teplug");
  };
  auto direct = [&] { ExitUnless((*graph)->Execute(buffers, direct_ws), "direct execute"); };
  // Warm-up; a backward needs the forward's O and LSE first.
  if (c.backward)
    ExitUnless(sdk::OwnedError(attention->vtbl->forward(attention.get(), &fwd)), "forward");
  through_teplug();  // builds and caches teplug's graph
  direct();
  std::vector<double> teplug_s, direct_s;
  for (auto _ : state) {
    teplug_s.push_back(native::testing::TimePerCall(stream, kCallsPerRep, through_teplug));
    direct_s.push_back(native::testing::TimePerCall(stream, kCallsPerRep, direct));
    state.SetIterationTime(teplug_s.back());
  }
  const double forward_flop = 4.0 * c.batch * c.heads * c.seq * c.seq * c.dim / 2;  // causal
  const double flop = c.backward ? 2.5 * forward_flop : forward_flop;
  const double teplug_tflops = flop / native::testing::Median(teplug_s) / 1e12;
  const double direct_tflops = flop / native::testing::Median(direct_s) / 1e12;
  const double peak = native::testing::DensePeakTflops(b.gpu.arch, false);
  state.counters["teplug_TFLOPs"] = teplug_tflops;
  state.counters["direct_TFLOPs"] = direct_tflops;
  state.counters["ratio"] = teplug_tflops / direct_tflops;
  state.counters["peak_fraction"] = peak > 0 ? teplug_tflops / peak : 0;
  for (void* p : owned) ExitUnless(b.gpu.ctx->Deallocate(p), "deallocate");
}

}  // namespace
}  // namespace teplug::native::attention

int main(int argc, char** argv) {
  using namespace teplug;                     // NOLINT(build/namespaces)
  using namespace teplug::native::attention;  // NOLINT(build/namespaces)
  benchmark::Initialize(&argc, argv);
  const std::string why = WhyNoGpu();
  if (!why.empty()) {
    std::printf("SKIPPED: no CUDA device: %s\n", why.c_str());
    return 0;
  }
  Bench bench;
  native::testing::OpenBenchDevice(bench.gpu);
  absl::StatusOr<CudnnLibrary> cudnn = LoadCudnn(CudnnCandidatePaths());
  ExitUnless(cudnn.status(), "load cuDNN");
  SetCudnnLibraryHandle(cudnn->handle);
  ExitUnless(cudaSetDevice(0) == cudaSuccess, "cudaSetDevice");
  absl::StatusOr<void*> handle = CreateCudnnHandle();
  ExitUnless(handle.status(), "cuDNN handle");
  bench.cudnn = *handle;
  ExitUnless(SetCudnnStream(bench.cudnn, bench.gpu.stream), "cudnnSetStream");
  g_bench = &bench;
  std::printf("device: %s (sm_%d), cuDNN %d\n", bench.gpu.prop.name, bench.gpu.arch,
              cudnn->version);

  const struct {
    const char* name;
    Case c;
  } cases[] = {
      {"bf16/forward/b2_h16_s4096_d128_causal", {false, 2, 16, 4096, 128}},
      {"bf16/forward/b2_h16_s8192_d128_causal", {false, 2, 16, 8192, 128}},
      {"bf16/backward/b2_h16_s4096_d128_causal", {true, 2, 16, 4096, 128}},
      {"bf16/backward/b2_h16_s8192_d128_causal", {true, 2, 16, 8192, 128}},
  };
  for (const auto& c : cases) {
    benchmark::RegisterBenchmark(c.name, BM_TeplugVsDirectCudnn, c.c)
        ->UseManualTime()
        ->Iterations(kReps)
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  DestroyCudnnHandle(bench.cudnn);
  native::testing::CloseBenchDevice(bench.gpu);
  return 0;
}
