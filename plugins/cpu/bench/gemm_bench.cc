// GEMM through teplug against the same oneDNN matmul called directly, paired
// in one process:
//   direct  the primitive the cpu provider builds for the call (same memory
//           descriptors, same attributes), created once, with its memory
//           objects and stream created once: oneDNN's own cost only
//   teplug  the same GEMM through a Kernel's dispatching IGemm object
//           (decision cached), which the cpu provider serves: dispatch,
//           argument checks, the signature key, the plan cache lookup and
//           per-call memory objects on top of the same primitive
// Cases: fp32 and bf16 (bf16 in, bf16 out) at M=N=K=1024 and at M=N=4096,
// K=1024, and at M=N=K=128, where the GEMM is short enough that the
// difference per call shows teplug's own overhead. fp8 cases (e4m3 A and B,
// per-tensor and MXFP8 scales, bf16 D) at 1024^3 and 4096x4096x1024 compare
// with the bf16 matmul their decoded operands feed: the ratio is what
// decoding the fp8 operands costs. Rounds interleave the two variants (direct first
// in even rounds, teplug first in odd ones); each variant's time is the median of its rounds (wall
// time: oneDNN runs on several threads). Ratios are throughput teplug/direct: the ratio of the
// medians, and the median of the five per-round ratios, which pairs runs made under the same load;
// the verdict (target >= 0.95) is on the latter.
//
//   bazel run -c opt //plugins/cpu:gemm_bench                 # 5 rounds
//   bazel run -c opt //plugins/cpu:gemm_bench -- --smoke      # tiny shapes, 1 round
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "benchmark/benchmark.h"
#include "tools/bench/paired_rounds.h"
#include "core/kernel/kernel.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "teplug/gemm.h"
#include "teplug/sdk/iids.hpp"

namespace teplug::cpu::bench {
namespace {

using ::teplug::bench::KeepTimes;
using ::teplug::bench::Median;
using ::teplug::bench::PairedRatios;

using dnnl::memory;

struct Shape {
  int64_t m, n, k;
  int32_t dtype;       // A and B; D too, but bf16 for fp8 A and B
  int32_t scaling = 0;  // fp8 A and B: their TeplugScalingMode
};

constexpr double kTarget = 0.95;

bool IsFp8(const Shape& s) { return s.dtype == TEPLUG_DTYPE_FP8_E4M3; }
// The dtype the direct matmul reads and D's dtype: bf16 for fp8 cases.
int32_t MatmulDType(const Shape& s) { return IsFp8(s) ? TEPLUG_DTYPE_BF16 : s.dtype; }
std::string DTypeLabel(const Shape& s) {
  if (s.scaling == TEPLUG_SCALING_MXFP8_1D32) return "fp8-mxfp8";
  if (IsFp8(s)) return "fp8-per_tensor";
  return s.dtype == TEPLUG_DTYPE_BF16 ? "bf16" : "fp32";
}
std::string CaseName(const Shape& s) {
  return DTypeLabel(s) + "/" + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
         std::to_string(s.k);
}

// Host buffers of random values shared by both variants of one case: for
// fp8 cases, fp8 codes and scales (teplug) and bf16 operands (direct).
struct Operands {
  explicit Operands(const Shape& s) : shape(s) {
    const size_t element = MatmulDType(s) == TEPLUG_DTYPE_BF16 ? 2 : 4;
    a.resize(s.m * s.k * element);
    b.resize(s.k * s.n * element);
    d.resize(s.m * s.n * element);
    std::mt19937 rng(1);
    if (IsFp8(s)) {
      a8.resize(s.m * s.k);
      b8.resize(s.k * s.n);
      // e4m3 codes without the NaN code (exponent's top bit clear).
      for (std::vector<uint8_t>* v : {&a8, &b8})
        for (uint8_t& c : *v) c = static_cast<uint8_t>(rng()) & 0xBF;
      if (s.scaling == TEPLUG_SCALING_MXFP8_1D32) {
        a_scales.assign(s.m * ((s.k + 31) / 32), 127);  // 2^0
        b_scales.assign(s.k * ((s.n + 31) / 32), 126);  // 2^-1
      } else {
        const float half = 0.5f;
        a_scales.resize(sizeof half);
        b_scales.resize(sizeof half);
        std::memcpy(a_scales.data(), &half, sizeof half);
        std::memcpy(b_scales.data(), &half, sizeof half);
      }
    }
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (std::vector<uint8_t>* v : {&a, &b}) {
      for (size_t i = 0; i < v->size() / element; ++i) {
        const float x = u(rng);
        if (element == 4) {
          std::memcpy(v->data() + 4 * i, &x, 4);
        } else {
          uint32_t bits;
          std::memcpy(&bits, &x, 4);
          const uint16_t top = static_cast<uint16_t>(bits >> 16);  // truncation is fine for data
          std::memcpy(v->data() + 2 * i, &top, 2);
        }
      }
    }
  }
  Shape shape;
  std::vector<uint8_t> a, b, d;
  std::vector<uint8_t> a8, b8, a_scales, b_scales;  // fp8 cases
};

TeplugTensor Matrix(void* data, int32_t dtype, int64_t rows, int64_t cols) {
  TeplugTensor t{};
  t.struct_size = sizeof(t);
  t.data = data;
  t.dtype = dtype;
  t.rank = 2;
  t.shape[0] = rows;
  t.shape[1] = cols;
  return t;
}

double Flops(const Shape& s) { return 2.0 * s.m * s.n * s.k; }

void Direct(benchmark::State& state, Operands* o) {
  const Shape& s = o->shape;
  const memory::data_type type = MatmulDType(s) == TEPLUG_DTYPE_BF16 ? memory::data_type::bf16
                                                                       : memory::data_type::f32;
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const memory::desc a_md({s.m, s.k}, type, {s.k, 1}), b_md({s.k, s.n}, type, {s.n, 1}),
      d_md({s.m, s.n}, type, {s.n, 1});
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, d_md), attr, engine);
  const dnnl::matmul matmul(pd);
  std::vector<uint8_t> pad(std::max<size_t>(pd.scratchpad_desc().get_size(), 1));
  const std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, memory(a_md, engine, o->a.data())},
      {DNNL_ARG_WEIGHTS, memory(b_md, engine, o->b.data())},
      {DNNL_ARG_DST, memory(d_md, engine, o->d.data())},
      {DNNL_ARG_SCRATCHPAD, memory(pd.scratchpad_desc(), engine, pad.data())}};
  matmul.execute(stream, args);  // warm-up: OpenMP threads, caches
  stream.wait();
  for (auto _ : state) {
    matmul.execute(stream, args);
    stream.wait();
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(Flops(s) * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  state.SetLabel(pd.impl_info_str());
}

core::Kernel* TeplugKernel() {
  static core::Kernel* kernel = [] {
    core::KernelOptions options;
    options.use_environment = false;
    options.config_text = "log_level: \"warn\"\n";
    options.config_source_name = "gemm_bench.textproto";
    absl::StatusOr<std::unique_ptr<core::Kernel>> k = core::Kernel::Create(std::move(options));
    if (!k.ok()) {
      std::fprintf(stderr, "gemm_bench: no kernel: %s\n",
                   std::string(k.status().message()).c_str());
      return static_cast<core::Kernel*>(nullptr);
    }
    return k->release();
  }();
  return kernel;
}

void Teplug(benchmark::State& state, Operands* o) {
  const Shape& s = o->shape;
  core::Kernel* kernel = TeplugKernel();
  if (kernel == nullptr) return state.SkipWithError("no kernel");
  TeplugTensor a = Matrix(o->a.data(), s.dtype, s.m, s.k),
               b = Matrix(o->b.data(), s.dtype, s.k, s.n),
               d = Matrix(o->d.data(), MatmulDType(s), s.m, s.n);
  // fp8 cases: the codes with their row-wise scales.
  const bool mx = s.scaling == TEPLUG_SCALING_MXFP8_1D32;
  TeplugTensor a_scale = Matrix(o->a_scales.data(), mx ? TEPLUG_DTYPE_E8M0 : TEPLUG_DTYPE_FP32,
                                mx ? s.m : 1, mx ? (s.k + 31) / 32 : 1);
  TeplugTensor b_scale = Matrix(o->b_scales.data(), mx ? TEPLUG_DTYPE_E8M0 : TEPLUG_DTYPE_FP32,
                                mx ? s.k : 1, mx ? (s.n + 31) / 32 : 1);
  TeplugQuantization a_quant{}, b_quant{};
  if (IsFp8(s)) {
    for (auto [t, q, scale, codes] : {std::make_tuple(&a, &a_quant, &a_scale, &o->a8),
                                      std::make_tuple(&b, &b_quant, &b_scale, &o->b8)}) {
      q->struct_size = sizeof(TeplugQuantization);
      q->mode = s.scaling;
      q->scale_inv = scale;
      t->data = codes->data();
      t->quant = q;
    }
  }
  TeplugGemmArgs args{};
  args.struct_size = sizeof(args);
  args.a = &a;
  args.b = &b;
  args.d = &d;
  args.alpha = 1.f;
  absl::StatusOr<core::Selection> chosen =
      kernel->Select(sdk::kIidGemmV1, TEPLUG_OP_GEMM, &args, "");
  if (!chosen.ok()) return state.SkipWithError(std::string(chosen.status().message()).c_str());
  sdk::Ref<TeplugGemmV1> gemm = kernel->Query<TeplugGemmV1>(sdk::kIidGemmV1);
  // Warm-up: the decision and plan caches, OpenMP threads.
  if (TeplugError* e = gemm->vtbl->gemm(gemm.get(), &args); e != nullptr) {
    const std::string message = e->message != nullptr ? e->message : "gemm failed";
    e->destroy(e);
    return state.SkipWithError(message.c_str());
  }
  for (auto _ : state) {
    TeplugError* e = gemm->vtbl->gemm(gemm.get(), &args);
    if (e != nullptr) {
      const std::string message = e->message != nullptr ? e->message : "gemm failed";
      e->destroy(e);
      state.SkipWithError(message.c_str());
      break;
    }
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(Flops(s) * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  const std::string served = chosen->implementation->QualifiedName();
  state.SetLabel(served);
}


}  // namespace
}  // namespace teplug::cpu::bench

int main(int argc, char** argv) {
  using namespace teplug::cpu::bench;  // NOLINT(build/namespaces): this file's names
  bool smoke = false;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::string(argv[i]) == "--smoke") {
      smoke = true;
    } else {
      rest.push_back(argv[i]);
    }
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  const std::vector<Shape> shapes =
      smoke ? std::vector<Shape>{{64, 48, 32, TEPLUG_DTYPE_FP32},
                                 {64, 48, 32, TEPLUG_DTYPE_BF16},
                                 {64, 48, 32, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_SCALING_MXFP8_1D32}}
            : std::vector<Shape>{
                  {128, 128, 128, TEPLUG_DTYPE_FP32},    {128, 128, 128, TEPLUG_DTYPE_BF16},
                  {1024, 1024, 1024, TEPLUG_DTYPE_FP32}, {1024, 1024, 1024, TEPLUG_DTYPE_BF16},
                  {4096, 4096, 1024, TEPLUG_DTYPE_FP32}, {4096, 4096, 1024, TEPLUG_DTYPE_BF16},
                  {1024, 1024, 1024, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_SCALING_PER_TENSOR},
                  {1024, 1024, 1024, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_SCALING_MXFP8_1D32},
                  {4096, 4096, 1024, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_SCALING_PER_TENSOR},
                  {4096, 4096, 1024, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_SCALING_MXFP8_1D32}};
  const int rounds = smoke ? 1 : 5;
  std::vector<std::unique_ptr<Operands>> operands;
  for (const Shape& s : shapes) operands.push_back(std::make_unique<Operands>(s));
  for (int round = 0; round < rounds; ++round) {
    for (auto& o : operands) {
      const std::string name = CaseName(o->shape);
      auto direct = [&] {
        benchmark::RegisterBenchmark(("direct/" + name + "/round" + std::to_string(round)).c_str(),
                                     Direct, o.get())
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond)
            ->MinTime(smoke ? 0.001 : 0.5);
      };
      auto teplug = [&] {
        benchmark::RegisterBenchmark(("teplug/" + name + "/round" + std::to_string(round)).c_str(),
                                     Teplug, o.get())
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond)
            ->MinTime(smoke ? 0.001 : 0.5);
      };
      if (round % 2 == 0) {
        direct();
        teplug();
      } else {
        teplug();
        direct();
      }
    }
  }
  KeepTimes reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\nteplug/direct throughput over %d interleaved rounds (target >= %.2f):\n", rounds,
              kTarget);
  int missing = 0;
  for (const Shape& s : shapes) {
    const std::vector<double> direct = reporter.Rounds("direct", CaseName(s)),
                              teplug = reporter.Rounds("teplug", CaseName(s));
    if (direct.empty() || teplug.empty()) {
      std::printf("  %-20s  not measured\n", CaseName(s).c_str());
      ++missing;
      continue;
    }
    // Round r's two runs were adjacent in time, so their ratio sees the same
    // machine load.
    const double d = Median(direct), t = Median(teplug),
                 ratio = Median(PairedRatios(direct, teplug));
    std::printf(
        "  %-20s  direct %9.3f ms (%7.1f GFLOP/s)  teplug %9.3f ms  (%+.1f us/call)  "
        "ratio of medians %.3f  median of paired ratios %.3f: %s\n",
        CaseName(s).c_str(), d, Flops(s) / d / 1e6, t, (t - d) * 1e3, d / t, ratio,
        IsFp8(s) ? "reported (the decode's cost)" : (ratio >= kTarget ? "met" : "NOT met"));
  }
  benchmark::Shutdown();
  return missing == 0 ? 0 : 1;
}
