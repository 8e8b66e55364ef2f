// Attention forward through teplug on the ICD loader's first OpenCL device
// against the reference provider, paired in one process. Both variants call
// the same dispatching IAttention of one Kernel that has the reference built
// in and loaded libteplug_opencl.so; only where the tensors live differs:
//   reference  Q, K, V, O, LSE in host memory: served by reference/attention
//              (fp64 oracle, the baseline)
//   opencl     the same values in memory from the kernel's IDevice on
//              opencl:0: served by opencl/attention (no stream, so each call
//              finishes the queue)
// Rounds interleave the variants (reference first in even rounds); each
// variant's time is the median of its rounds, and the speed-up is reported
// both as the ratio of the medians and as the median of the per-round ratios
// reference/opencl (runs adjacent in time, same load). Both variants are
// warmed up first, so the one-time OpenCL program build is in neither.
// No target: the number is reported.
//
//   bazel run -c opt //plugins/opencl:attention_bench              # 5 rounds
//   bazel run -c opt //plugins/opencl:attention_bench -- --smoke   # tiny, 1 round
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/kernel/kernel.h"
#include "plugins/opencl/bench/paired_rounds.h"
#include "teplug/attention.h"
#include "teplug/sdk/device_context.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::opencl::bench {
namespace {

struct Shape {
  int64_t batch, heads, seq, dim;
  int32_t mask;
};

std::string CaseName(const Shape& s) {
  return "fp32/b" + std::to_string(s.batch) + "_h" + std::to_string(s.heads) + "_s" +
         std::to_string(s.seq) + "_d" + std::to_string(s.dim) + "/" + sdk::MaskName(s.mask);
}
// Multiply-adds of QK^T and PV (every key visible; causal about half).
double Flops(const Shape& s) {
  const double full = 4.0 * s.batch * s.heads * s.seq * s.seq * s.dim;
  return s.mask == TEPLUG_MASK_CAUSAL ? full / 2 : full;
}

// Host values of one case, shared by both variants.
struct Inputs {
  explicit Inputs(const Shape& s) : shape(s) {
    const size_t n = static_cast<size_t>(s.batch * s.seq * s.heads * s.dim);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (auto* v : {&q, &k, &v_}) {
      v->resize(n);
      for (float& x : *v) x = u(rng);
    }
  }
  size_t Bytes() const { return q.size() * sizeof(float); }
  Shape shape;
  std::vector<float> q, k, v_;
};

std::string g_plugin;

core::Kernel* TeplugKernel() { return BenchKernel(g_plugin, true, "attention_bench"); }

TeplugTensor Tensor(void* data, const TeplugDevice* device, std::vector<int64_t> shape) {
  TeplugTensor t = sdk::Versioned<TeplugTensor>();
  t.data = data;
  t.dtype = TEPLUG_DTYPE_FP32;
  t.rank = static_cast<int32_t>(shape.size());
  for (size_t r = 0; r < shape.size(); ++r) t.shape[r] = shape[r];
  t.device = device;
  return t;
}

// Runs the forward on q/k/v/o/lse (host or device addresses of `device`,
// NULL for host) until the benchmark stops; labels the run with the
// implementation the kernel selected.
void RunForward(benchmark::State& state, const Shape& s, const TeplugDevice* device, void* q,
                void* k, void* v, void* o, void* lse) {
  core::Kernel* kernel = TeplugKernel();
  TeplugAttentionParams p = sdk::Versioned<TeplugAttentionParams>();
  p.layout = TEPLUG_LAYOUT_BSHD_BSHD_BSHD;
  p.mask_type = s.mask;
  p.is_training = 1;
  p.batch = s.batch, p.num_heads_q = p.num_heads_kv = s.heads;
  p.head_dim_qk = p.head_dim_v = s.dim, p.max_seqlen_q = p.max_seqlen_kv = s.seq;
  p.window_left = p.window_right = -1;
  p.softmax_scale = 0.125f;
  const std::vector<int64_t> bshd = {s.batch, s.seq, s.heads, s.dim};
  TeplugTensor tq = Tensor(q, device, bshd), tk = Tensor(k, device, bshd),
               tv = Tensor(v, device, bshd), to = Tensor(o, device, bshd),
               tl = Tensor(lse, device, {s.batch, s.heads, s.seq});
  TeplugAttentionFwdArgs a = sdk::Versioned<TeplugAttentionFwdArgs>();
  a.params = &p;
  a.q = &tq, a.k = &tk, a.v = &tv, a.o = &to, a.softmax_lse = &tl;
  auto chosen = kernel->Select(sdk::kIidAttentionV1, TEPLUG_OP_ATTENTION_FORWARD, &a, "");
  if (!chosen.ok()) return state.SkipWithError(std::string(chosen.status().message()).c_str());
  sdk::Ref<TeplugAttentionV1> attention = kernel->Query<TeplugAttentionV1>(sdk::kIidAttentionV1);
  // TimeCalls' warm-up call takes the decision cache and the OpenCL program build.
  TimeCalls(state, Flops(s), chosen->implementation->QualifiedName(),
            [&] { return attention->vtbl->forward(attention.get(), &a); });
}

void Reference(benchmark::State& state, Inputs* in) {
  if (TeplugKernel() == nullptr) return state.SkipWithError("no kernel");
  const Shape& s = in->shape;
  std::vector<float> o(in->q.size()), lse(static_cast<size_t>(s.batch * s.heads * s.seq));
  RunForward(state, s, nullptr, in->q.data(), in->k.data(), in->v_.data(), o.data(), lse.data());
}

void OpenCl(benchmark::State& state, Inputs* in) {
  core::Kernel* kernel = TeplugKernel();
  if (kernel == nullptr) return state.SkipWithError("no kernel");
  const Shape& s = in->shape;
  sdk::Ref<TeplugDeviceV1> devices = kernel->Query<TeplugDeviceV1>(sdk::kIidDeviceV1);
  TeplugDevice device = sdk::Versioned<TeplugDevice>();
  device.kind = TEPLUG_DEVICE_OPENCL;
  std::unique_ptr<sdk::DeviceContext> ctx;
  if (sdk::OwnedError e = sdk::DeviceContext::Open(devices.get(), device, &ctx))
    return state.SkipWithError(e.message().c_str());
  void *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr, *lse = nullptr;
  const size_t bytes = in->Bytes(), lse_bytes = static_cast<size_t>(s.batch * s.heads * s.seq) * 4;
  const bool ok = !ctx->Allocate(bytes, 0, &q) && !ctx->Allocate(bytes, 0, &k) &&
                  !ctx->Allocate(bytes, 0, &v) && !ctx->Allocate(bytes, 0, &o) &&
                  !ctx->Allocate(lse_bytes, 0, &lse) &&
                  !ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, q, in->q.data(), bytes) &&
                  !ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, k, in->k.data(), bytes) &&
                  !ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, v, in->v_.data(), bytes);
  if (!ok) return state.SkipWithError("device memory");
  RunForward(state, s, &device, q, k, v, o, lse);
  ctx->Close();
}

}  // namespace
}  // namespace teplug::opencl::bench

int main(int argc, char** argv) {
  using namespace teplug::opencl::bench;  // NOLINT(build/namespaces): this file's names
  BenchFlags flags;
  if (!ParseBenchFlags(argc, argv, "attention_bench", &flags)) return 2;
  g_plugin = flags.plugin;
  int rest_argc = static_cast<int>(flags.rest.size());
  benchmark::Initialize(&rest_argc, flags.rest.data());
  const std::vector<Shape> shapes = flags.smoke
                                        ? std::vector<Shape>{{1, 2, 32, 16, TEPLUG_MASK_NONE}}
                                        : std::vector<Shape>{{1, 8, 128, 64, TEPLUG_MASK_NONE},
                                                             {1, 8, 256, 64, TEPLUG_MASK_NONE},
                                                             {1, 8, 512, 64, TEPLUG_MASK_CAUSAL}};
  const int rounds = flags.smoke ? 1 : 5;
  std::vector<std::unique_ptr<Inputs>> inputs;
  for (const Shape& s : shapes) inputs.push_back(std::make_unique<Inputs>(s));
  for (int round = 0; round < rounds; ++round) {
    for (auto& in : inputs) {
      Inputs* p = in.get();
      RegisterPair(round, CaseName(p->shape), flags.smoke ? 0.001 : 0.5,
                   {"reference", [p](benchmark::State& st) { Reference(st, p); }},
                   {"opencl", [p](benchmark::State& st) { OpenCl(st, p); }});
    }
  }
  KeepTimes reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf(
      "\nopencl speed-up over the reference (time reference/opencl), %d interleaved rounds:\n",
      rounds);
  int missing = 0;
  for (const Shape& s : shapes) {
    const std::vector<double> ref = reporter.Rounds("reference", CaseName(s)),
                              ocl = reporter.Rounds("opencl", CaseName(s));
    if (ref.empty() || ocl.empty()) {
      std::printf("  %-32s  not measured\n", CaseName(s).c_str());
      ++missing;
      continue;
    }
    const double rm = Median(ref), om = Median(ocl);
    std::printf(
        "  %-32s  reference %9.3f ms (%6.2f GFLOP/s)  opencl %9.3f ms (%6.2f GFLOP/s)  "
        "ratio of medians %.2f  median of paired ratios %.2f\n",
        CaseName(s).c_str(), rm, Flops(s) / rm / 1e6, om, Flops(s) / om / 1e6, rm / om,
        MedianOfPairedRatios(ref, ocl));
  }
  benchmark::Shutdown();
  return missing == 0 ? 0 : 1;
}
