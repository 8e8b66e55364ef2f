// GEMM through teplug (the kernel's dispatching IGemm, served by
// native/cublaslt) against the same cuBLASLt call made directly: the same
// plan (PlanCublasLtGemm), descriptor, heuristic preference (32 MiB
// workspace limit, the pointers' alignment classes) and therefore the same
// algorithm (the heuristic is deterministic for identical inputs), on the
// same stream and buffers. bf16 -> bf16 and fp8 e4m3 (per-tensor scales) ->
// bf16, TN form, at 4096^3 and M=N=8192, K=1024.
//
// Each Google Benchmark iteration is one interleaved rep: kCallsPerRep calls
// through teplug timed with CUDA events, then kCallsPerRep direct calls;
// after 5 reps the counters are the medians: teplug_TFLOPs, direct_TFLOPs,
// ratio (teplug / direct, the target is >= 0.97) and peak_fraction (teplug
// over the device's dense peak, testing/gpu_bench.h; 0 where its table has
// no entry). The iteration time is teplug's per call.
//
// Without a GPU it prints why (the driver's words) and exits 0, so CI builds
// and runs it as a check that it links.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/kernel/kernel.h"
#include "native/gemm/algorithm_cache.h"
#include "native/gemm/cublaslt_gemm.h"
#include "native/gemm/cublaslt_gemm_plan.h"
#include "native/gemm/cublaslt_heuristic.h"
#include "native/gemm/cublaslt_library.h"
#include "native/gemm/cublaslt_matmul_description.h"
#include "native/gemm/testing/gpu_bench.h"
#include "native/gemm/testing/gpu_presence.h"
#include "teplug/sdk/device_context.hpp"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native {
namespace {

using testing::WhyNoGpu;

constexpr int kCallsPerRep = 10;
constexpr int kReps = 5;

using testing::ExitUnless;

// What every case shares: the kernel, cuda:0 opened through teplug's IDevice,
// a stream, and cuBLASLt loaded directly.
struct Bench {
  testing::BenchDevice gpu;
  std::unique_ptr<CublasLtApi> lt;
  cublasLtHandle_t handle = nullptr;
};
Bench* g_bench = nullptr;

struct Case {
  int32_t dtype;
  int64_t M, N, K;
};

void BM_TeplugVsDirectCublasLt(benchmark::State& state, Case c) {
  Bench& b = *g_bench;
  const bool fp8 = c.dtype == TEPLUG_DTYPE_FP8_E4M3;
  const size_t in_bytes = fp8 ? 1 : 2;
  // Device buffers through teplug's IDevice, random contents.
  auto allocate = [&](size_t bytes, bool random) {
    void* p = nullptr;
    ExitUnless(b.gpu.ctx->Allocate(bytes, 256, &p), "allocate");
    std::vector<uint8_t> host(bytes);
    std::mt19937 rng(42);
    for (size_t i = 0; i < bytes; ++i) {
      // fp8: e4m3 codes below 2 in magnitude (exponent bit 6 clear, never
      // NaN); bf16 (little-endian pairs): magnitudes in [0.5, 2).
      const uint8_t r = static_cast<uint8_t>(rng());
      host[i] = fp8 ? r & 0xbf : i % 2 == 0 ? r : static_cast<uint8_t>(0x3f | (r & 0x80));
    }
    if (random)
      ExitUnless(b.gpu.ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, p, host.data(), bytes), "copy");
    return p;
  };
  void* a = allocate(static_cast<size_t>(c.M * c.K) * in_bytes, true);
  void* bb = allocate(static_cast<size_t>(c.N * c.K) * in_bytes, true);
  void* d = allocate(static_cast<size_t>(c.M * c.N) * 2, false);
  void* scales = allocate(8, false);
  const float ones[2] = {1.0f, 1.0f};
  ExitUnless(b.gpu.ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, scales, ones, sizeof(ones)),
             "copy scales");

  TeplugTensor ta = sdk::Versioned<TeplugTensor>(), tb = ta, td = ta, ts0 = ta, ts1 = ta;
  auto shape = [&](TeplugTensor& t, int32_t dtype, int64_t r, int64_t cols, void* data) {
    t.dtype = dtype;
    t.rank = 2;
    t.shape[0] = r;
    t.shape[1] = cols;
    t.data = data;
    t.device = &b.gpu.cuda;
  };
  shape(ta, c.dtype, c.M, c.K, a);
  shape(tb, c.dtype, c.N, c.K, bb);
  shape(td, TEPLUG_DTYPE_BF16, c.M, c.N, d);
  for (TeplugTensor* t : {&ts0, &ts1}) {
    t->dtype = TEPLUG_DTYPE_FP32;
    t->rank = 1;
    t->shape[0] = 1;
    t->device = &b.gpu.cuda;
  }
  ts0.data = scales;
  ts1.data = static_cast<char*>(scales) + 4;
  TeplugQuantization qa = sdk::Versioned<TeplugQuantization>(), qb = qa;
  qa.mode = qb.mode = TEPLUG_SCALING_PER_TENSOR;
  qa.scale_inv = &ts0;
  qb.scale_inv = &ts1;
  if (fp8) {
    ta.quant = &qa;
    tb.quant = &qb;
  }
  TeplugGemmArgs args = sdk::Versioned<TeplugGemmArgs>();
  args.a = &ta;
  args.b = &tb;
  args.d = &td;
  args.trans_b = 1;
  args.alpha = 1.0f;
  args.stream = b.gpu.stream;

  // Through teplug: workspace as the IGemm asks.
  auto gemm = b.gpu.kernel->Query<TeplugGemmV1>(sdk::kIidGemmV1);
  size_t workspace_bytes = 0;
  ExitUnless(sdk::OwnedError(gemm->vtbl->workspace_size(gemm.get(), &args, &workspace_bytes)),
             "workspace_size");
  void* workspace = workspace_bytes == 0 ? nullptr : allocate(workspace_bytes, false);
  args.workspace = workspace;
  args.workspace_size = workspace_bytes;

  // Directly: the same plan, descriptor, preference and heuristic.
  absl::StatusOr<CublasLtGemmPlan> plan = PlanCublasLtGemm(args);
  ExitUnless(plan.ok(), "plan: " + std::string(plan.status().message()));
  CublasLtMatmulDescription description(*b.lt);
  ExitUnless(description.Build(*plan, args).ok(), "describe");
  const LtOperandPointers p = OperandPointers(*plan, args);
  const uint32_t alignments[4] = {AlignmentClass(p.a), AlignmentClass(p.b), AlignmentClass(p.c),
                                  AlignmentClass(p.d)};
  absl::StatusOr<ChosenAlgorithm> chosen =
      AskCublasLtHeuristic(*b.lt, b.handle, description, alignments, kMaxGemmWorkspace, 0);
  ExitUnless(chosen.ok(), "heuristic: " + std::string(chosen.status().message()));
  // teplug asks for 255 bytes more than the algorithm's workspace (it starts
  // the workspace at a 256-byte boundary); the allocation is aligned, so both
  // calls hand cuBLASLt the same pointer and size.
  ExitUnless(workspace_bytes == (chosen->workspace == 0 ? 0 : chosen->workspace + 255),
             "the direct heuristic chose an algorithm with another workspace size than teplug's");

  const auto stream = static_cast<cudaStream_t>(b.gpu.stream);
  auto through_teplug = [&] {
    TeplugError* e = gemm->vtbl->gemm(gemm.get(), &args);
    ExitUnless(sdk::OwnedError(e), "gemm through teplug");
  };
  auto direct = [&] {
    const cublasStatus_t s =
        b.lt->Matmul(b.handle, description.desc(), &plan->alpha, p.a, description.a(), p.b,
                     description.b(), &plan->beta, p.c, description.c(), p.d, description.d(),
                     &chosen->algo, workspace, workspace_bytes, stream);
    ExitUnless(s == CUBLAS_STATUS_SUCCESS, "direct cublasLtMatmul");
  };
  through_teplug();  // warm-up: the heuristic's answer is cached
  direct();
  std::vector<double> teplug_s, direct_s;
  for (auto _ : state) {
    teplug_s.push_back(testing::TimePerCall(stream, kCallsPerRep, through_teplug));
    direct_s.push_back(testing::TimePerCall(stream, kCallsPerRep, direct));
    state.SetIterationTime(teplug_s.back());
  }
  const double flop = 2.0 * c.M * c.N * c.K;
  const double teplug_tflops = flop / testing::Median(teplug_s) / 1e12;
  const double direct_tflops = flop / testing::Median(direct_s) / 1e12;
  const double peak = testing::DensePeakTflops(b.gpu.arch, fp8);
  state.counters["teplug_TFLOPs"] = teplug_tflops;
  state.counters["direct_TFLOPs"] = direct_tflops;
  state.counters["ratio"] = teplug_tflops / direct_tflops;
  state.counters["peak_fraction"] = peak > 0 ? teplug_tflops / peak : 0;
  for (void* q : {a, bb, d, scales, workspace}) {
    if (q != nullptr) ExitUnless(b.gpu.ctx->Deallocate(q), "deallocate");
  }
}

}  // namespace
}  // namespace teplug::native

int main(int argc, char** argv) {
  using namespace teplug;          // NOLINT(build/namespaces)
  using namespace teplug::native;  // NOLINT(build/namespaces)
  benchmark::Initialize(&argc, argv);
  const std::string why = WhyNoGpu();
  if (!why.empty()) {
    std::printf("SKIPPED: no CUDA device: %s\n", why.c_str());
    return 0;
  }
  Bench bench;
  testing::OpenBenchDevice(bench.gpu);
  absl::StatusOr<std::unique_ptr<CublasLtApi>> lt = LoadCublasLt(CublasLtCandidatePaths());
  ExitUnless(lt.ok(), "load cuBLASLt: " + std::string(lt.status().message()));
  bench.lt = *std::move(lt);
  ExitUnless(bench.lt->Create(&bench.handle) == CUBLAS_STATUS_SUCCESS, "cublasLtCreate");
  g_bench = &bench;
  std::printf("device: %s (sm_%d), cuBLASLt %zu\n", bench.gpu.prop.name, bench.gpu.arch,
              bench.lt->GetVersion());

  const struct {
    const char* name;
    Case c;
  } cases[] = {
      {"bf16/4096x4096x4096", {TEPLUG_DTYPE_BF16, 4096, 4096, 4096}},
      {"bf16/8192x8192x1024", {TEPLUG_DTYPE_BF16, 8192, 8192, 1024}},
      {"fp8_e4m3/4096x4096x4096", {TEPLUG_DTYPE_FP8_E4M3, 4096, 4096, 4096}},
      {"fp8_e4m3/8192x8192x1024", {TEPLUG_DTYPE_FP8_E4M3, 8192, 8192, 1024}},
  };
  for (const auto& c : cases) {
    benchmark::RegisterBenchmark(c.name, BM_TeplugVsDirectCublasLt, c.c)
        ->UseManualTime()
        ->Iterations(kReps)
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  bench.lt->Destroy(bench.handle);
  testing::CloseBenchDevice(bench.gpu);
  return 0;
}
