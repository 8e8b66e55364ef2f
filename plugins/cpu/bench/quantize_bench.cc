// Quantize bandwidth through teplug against memcpy of the same bytes, paired
// in one process:
//   memcpy    std::memcpy of (input bytes + output bytes) / 2, so that it
//             reads and writes as many bytes as the quantize call does
//   quantize  the call through a Kernel's dispatching IQuantizer object
//             (decision cached), served by cpu/quantizer
// Bandwidth = (input bytes + code bytes + scale bytes) / wall time, for both.
// Cases: 64 MB inputs (fp32 [4096, 4096], bf16 [8192, 4096]) quantized to
// fp8_e4m3 row-wise: per_tensor current scaling (amax pass + cast pass),
// per_tensor delayed scaling (cast only), mxfp8_1d32 by the OCP rule and by
// TransformerEngine's (mx_scale_rule). Rounds interleave the
// two variants (memcpy first in even rounds); the verdict (target >= 0.5) is
// the median over rounds of the paired ratio quantize/memcpy bandwidth.
// TEPLUG_CPU_THREADS sets the quantizer's threads (default: one per core);
// memcpy runs on one thread.
//
//   bazel run -c opt //plugins/cpu:quantize_bench                 # 5 rounds
//   bazel run -c opt //plugins/cpu:quantize_bench -- --smoke      # small, 1 round
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "tools/bench/paired_rounds.h"
#include "core/kernel/kernel.h"
#include "teplug/quantizer.h"
#include "teplug/sdk/iids.hpp"

namespace teplug::cpu::bench {
namespace {

using ::teplug::bench::KeepTimes;
using ::teplug::bench::Median;
using ::teplug::bench::PairedRatios;

struct Case {
  const char* name;
  int32_t dtype;  // input
  int64_t rows, cols;
  int32_t mode;
  int32_t recipe;
  int32_t mx_scale_rule = TEPLUG_MX_SCALE_OCP;
};

constexpr double kTarget = 0.5;

int64_t ScaleBytes(const Case& c) {
  return c.mode == TEPLUG_SCALING_MXFP8_1D32 ? c.rows * ((c.cols + 31) / 32) : 4;
}
int64_t InputBytes(const Case& c) { return c.rows * c.cols * (c.dtype == TEPLUG_DTYPE_FP32 ? 4 : 2); }
int64_t MovedBytes(const Case& c) { return InputBytes(c) + c.rows * c.cols + ScaleBytes(c); }

TeplugTensor Tensor(void* data, int32_t dtype, std::vector<int64_t> shape) {
  TeplugTensor t{};
  t.struct_size = sizeof(t);
  t.data = data;
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) t.shape[i] = shape[i];
  return t;
}

// The buffers of one case, shared by both variants.
struct Buffers {
  explicit Buffers(const Case& c)
      : kase(c),
        input(InputBytes(c)),
        codes(c.rows * c.cols),
        scale_inv(ScaleBytes(c)),
        copy_src(MovedBytes(c) / 2),
        copy_dst(MovedBytes(c) / 2) {
    // Normal samples, as activations and weights are; bf16 inputs are the
    // samples' upper halves (their lower halves would be random bit patterns:
    // about 1 in 256 a NaN or Inf and 1 in 256 a subnormal, which no training
    // tensor holds, and 12% of MX blocks non-finite).
    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0.0f, 3.0f);
    const size_t element = c.dtype == TEPLUG_DTYPE_FP32 ? 4 : 2;
    for (size_t i = 0; i < input.size() / element; ++i) {
      const float v = normal(rng);
      std::memcpy(input.data() + element * i, reinterpret_cast<const char*>(&v) + (4 - element), element);
    }
    std::fill(copy_src.begin(), copy_src.end(), 7);
  }
  Case kase;
  std::vector<uint8_t> input, codes, scale_inv, copy_src, copy_dst;
  float scale = 2.0f, amax = 0.0f;
};

void Memcpy(benchmark::State& state, Buffers* b) {
  for (auto _ : state) {
    std::memcpy(b->copy_dst.data(), b->copy_src.data(), b->copy_src.size());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * 2 * static_cast<int64_t>(b->copy_src.size()));
}

core::Kernel* TeplugKernel() {
  static core::Kernel* kernel = [] {
    core::KernelOptions options;
    options.use_environment = false;
    options.config_text = "log_level: \"warn\"\n";
    options.config_source_name = "quantize_bench.textproto";
    absl::StatusOr<std::unique_ptr<core::Kernel>> k = core::Kernel::Create(std::move(options));
    if (!k.ok()) {
      std::fprintf(stderr, "quantize_bench: no kernel: %s\n",
                   std::string(k.status().message()).c_str());
      return static_cast<core::Kernel*>(nullptr);
    }
    return k->release();
  }();
  return kernel;
}

void Quantize(benchmark::State& state, Buffers* b) {
  const Case& c = b->kase;
  core::Kernel* kernel = TeplugKernel();
  if (kernel == nullptr) return state.SkipWithError("no kernel");
  const bool mx = c.mode == TEPLUG_SCALING_MXFP8_1D32;
  TeplugTensor input = Tensor(b->input.data(), c.dtype, {c.rows, c.cols});
  TeplugTensor scale_inv = mx ? Tensor(b->scale_inv.data(), TEPLUG_DTYPE_E8M0,
                                       {c.rows, (c.cols + 31) / 32})
                              : Tensor(b->scale_inv.data(), TEPLUG_DTYPE_FP32, {1});
  TeplugTensor scale = Tensor(&b->scale, TEPLUG_DTYPE_FP32, {1});
  TeplugTensor amax = Tensor(&b->amax, TEPLUG_DTYPE_FP32, {1});
  TeplugQuantization quant{};
  quant.struct_size = sizeof(quant);
  quant.mode = c.mode;
  quant.scale_inv = &scale_inv;
  if (!mx) {
    quant.scale = &scale;
    quant.amax = &amax;
  }
  TeplugTensor output = Tensor(b->codes.data(), TEPLUG_DTYPE_FP8_E4M3, {c.rows, c.cols});
  output.quant = &quant;
  TeplugQuantizeArgs args{};
  args.struct_size = sizeof(args);
  args.input = &input;
  args.output = &output;
  args.recipe = c.recipe;
  args.rowwise = 1;
  args.mx_scale_rule = c.mx_scale_rule;
  absl::StatusOr<core::Selection> chosen =
      kernel->Select(sdk::kIidQuantizerV1, TEPLUG_OP_QUANTIZE, &args, "");
  if (!chosen.ok()) return state.SkipWithError(std::string(chosen.status().message()).c_str());
  sdk::Ref<TeplugQuantizerV1> q = kernel->Query<TeplugQuantizerV1>(sdk::kIidQuantizerV1);
  for (auto _ : state) {
    if (TeplugError* e = q->vtbl->quantize(q.get(), &args); e != nullptr) {
      const std::string message = e->message != nullptr ? e->message : "quantize failed";
      e->destroy(e);
      state.SkipWithError(message.c_str());
      break;
    }
  }
  state.SetBytesProcessed(state.iterations() * MovedBytes(c));
  state.SetLabel(chosen->implementation->QualifiedName());
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
  const int64_t r32 = smoke ? 64 : 4096, r16 = smoke ? 128 : 8192, cols = smoke ? 256 : 4096;
  const std::vector<Case> cases = {
      {"fp32/per_tensor_current", TEPLUG_DTYPE_FP32, r32, cols, TEPLUG_SCALING_PER_TENSOR,
       TEPLUG_RECIPE_CURRENT},
      {"fp32/per_tensor_delayed", TEPLUG_DTYPE_FP32, r32, cols, TEPLUG_SCALING_PER_TENSOR,
       TEPLUG_RECIPE_DELAYED},
      {"fp32/mxfp8", TEPLUG_DTYPE_FP32, r32, cols, TEPLUG_SCALING_MXFP8_1D32, 0},
      {"fp32/mxfp8_te_rule", TEPLUG_DTYPE_FP32, r32, cols, TEPLUG_SCALING_MXFP8_1D32, 0,
       TEPLUG_MX_SCALE_TRANSFORMER_ENGINE},
      {"bf16/per_tensor_current", TEPLUG_DTYPE_BF16, r16, cols, TEPLUG_SCALING_PER_TENSOR,
       TEPLUG_RECIPE_CURRENT},
      {"bf16/mxfp8", TEPLUG_DTYPE_BF16, r16, cols, TEPLUG_SCALING_MXFP8_1D32, 0},
      {"bf16/mxfp8_te_rule", TEPLUG_DTYPE_BF16, r16, cols, TEPLUG_SCALING_MXFP8_1D32, 0,
       TEPLUG_MX_SCALE_TRANSFORMER_ENGINE},
  };
  const int rounds = smoke ? 1 : 5;
  std::vector<std::unique_ptr<Buffers>> buffers;
  for (const Case& c : cases) buffers.push_back(std::make_unique<Buffers>(c));
  for (int round = 0; round < rounds; ++round) {
    for (auto& b : buffers) {
      const std::string suffix = std::string("/") + b->kase.name + "/round" + std::to_string(round);
      auto copy = [&] {
        benchmark::RegisterBenchmark(("memcpy" + suffix).c_str(), Memcpy, b.get())
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond)
            ->MinTime(smoke ? 0.001 : 0.3);
      };
      auto quantize = [&] {
        benchmark::RegisterBenchmark(("quantize" + suffix).c_str(), Quantize, b.get())
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond)
            ->MinTime(smoke ? 0.001 : 0.3);
      };
      if (round % 2 == 0) {
        copy();
        quantize();
      } else {
        quantize();
        copy();
      }
    }
  }
  KeepTimes reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\nquantize/memcpy bandwidth over %d interleaved rounds (target >= %.2f):\n", rounds,
              kTarget);
  int missing = 0;
  for (const Case& c : cases) {
    const std::vector<double> copy = reporter.Rounds("memcpy", c.name),
                              quantize = reporter.Rounds("quantize", c.name);
    if (copy.empty() || quantize.empty()) {
      std::printf("  %-26s  not measured\n", c.name);
      ++missing;
      continue;
    }
    const double m = Median(copy), q = Median(quantize),
                 ratio = Median(PairedRatios(copy, quantize));
    const double gb = static_cast<double>(MovedBytes(c)) / 1e9;
    std::printf("  %-26s  %6.1f MB moved  memcpy %8.3f ms (%5.2f GB/s)  quantize %8.3f ms (%5.2f GB/s)  "
                "ratio of medians %.3f  median of paired ratios %.3f: %s\n",
                c.name, gb * 1e3, m, gb / m * 1e3, q, gb / q * 1e3, m / q, ratio,
                ratio >= kTarget ? "met" : "NOT met");
  }
  benchmark::Shutdown();
  return missing == 0 ? 0 : 1;
}
