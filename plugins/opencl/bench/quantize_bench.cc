// Quantize through teplug on the first OpenCL device against the reference
// provider's quantizer (the fp64 CPU oracle), paired in one process:
//   reference  RunReferenceQuantize on host tensors
//   teplug     the same call through a Kernel that loaded libteplug_opencl.so:
//              tensors in memory from the kernel's IDevice, the dispatching
//              IQuantizer (decision cached) served by opencl/opencl-quantizer
//              with no stream, so each call waits for its kernels
// Cases: per_tensor current scaling fp32 -> fp8_e4m3 with the transposed
// column-wise copy (amax, scale, cast), and mxfp8_1d32 bf16 -> fp8_e4m3 row-
// and column-wise by the OCP rule and by TransformerEngine's (mx_scale_rule,
// the "_te_rule" cases), at 256x1024 and 1024x1024. Rounds interleave the
// variants (reference first in even rounds); each variant's time is the
// median of its rounds. The ratio is the speed of teplug over the reference
// (reference time / teplug time): the ratio of the medians and the median of
// the per-round ratios. A last table puts each TE-rule case's teplug time
// over its OCP case's (same round paired). Both variants are warmed up (the
// kernel build is in neither). A report, no target.
//
//   bazel run -c opt //plugins/opencl:quantize_bench                # 5 rounds
//   bazel run -c opt //plugins/opencl:quantize_bench -- --smoke     # tiny, 1 round
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/kernel/kernel.h"
#include "plugins/opencl/bench/paired_rounds.h"
#include "plugins/reference/numerics/float_formats.h"
#include "plugins/reference/provider/quantizer_provider.h"
#include "teplug/quantizer.h"
#include "teplug/sdk/device_context.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::opencl::bench {
namespace {

struct Case {
  int32_t mode;
  int32_t input;
  int64_t rows, cols;
  int32_t mx_scale_rule = TEPLUG_MX_SCALE_OCP;
};

std::string CaseName(const Case& c) {
  return std::string(sdk::ScalingName(c.mode)) +
         (c.mx_scale_rule == TEPLUG_MX_SCALE_TRANSFORMER_ENGINE ? "_te_rule" : "") + "/" +
         sdk::DTypeName(c.input) + "/" + std::to_string(c.rows) + "x" + std::to_string(c.cols);
}
size_t InputBytes(const Case& c) {
  return static_cast<size_t>(c.rows * c.cols) * (c.input == TEPLUG_DTYPE_FP32 ? 4 : 2);
}

// The tensors of one quantize call, wherever their memory is.
struct Call {
  TeplugTensor input{}, codes{}, scale_inv{}, scale{}, amax{}, col_codes{}, col_scale_inv{};
  TeplugQuantization quant{};
  TeplugQuantizeArgs args{};
};

TeplugTensor Tensor(int32_t dtype, std::vector<int64_t> shape, void* data,
                    const TeplugDevice* device) {
  TeplugTensor t = sdk::Versioned<TeplugTensor>();
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) t.shape[i] = shape[i];
  t.data = data;
  t.device = device;
  return t;
}

size_t Bytes(const TeplugTensor& t) {
  int64_t n = 1;
  for (int i = 0; i < t.rank; ++i) n *= t.shape[i];
  return static_cast<size_t>(n * sdk::DTypeBits(t.dtype) / 8);
}

// Builds the call of `c` with `alloc(bytes)` providing each tensor's memory.
template <class Alloc>
void BuildCall(const Case& c, Call* call, const TeplugDevice* device, Alloc alloc) {
  const bool mx = c.mode == TEPLUG_SCALING_MXFP8_1D32;
  const int64_t r = c.rows, k = c.cols;
  auto make = [&](int32_t dtype, std::vector<int64_t> shape) {
    TeplugTensor t = Tensor(dtype, shape, nullptr, device);
    t.data = alloc(Bytes(t));
    return t;
  };
  call->input = make(c.input, {r, k});
  call->codes = make(TEPLUG_DTYPE_FP8_E4M3, {r, k});
  call->col_codes = make(TEPLUG_DTYPE_FP8_E4M3, mx ? std::vector<int64_t>{r, k}
                                                   : std::vector<int64_t>{k, r});
  call->quant = sdk::Versioned<TeplugQuantization>();
  call->quant.mode = c.mode;
  if (mx) {
    call->scale_inv = make(TEPLUG_DTYPE_E8M0, {r, (k + 31) / 32});
    call->col_scale_inv = make(TEPLUG_DTYPE_E8M0, {(r + 31) / 32, k});
  } else {
    call->scale_inv = make(TEPLUG_DTYPE_FP32, {1});
    call->col_scale_inv = make(TEPLUG_DTYPE_FP32, {1});
    call->scale = make(TEPLUG_DTYPE_FP32, {1});
    call->amax = make(TEPLUG_DTYPE_FP32, {1});
    call->quant.scale = &call->scale;
    call->quant.amax = &call->amax;
  }
  call->quant.scale_inv = &call->scale_inv;
  call->quant.columnwise_data = &call->col_codes;
  call->quant.columnwise_scale_inv = &call->col_scale_inv;
  call->codes.quant = &call->quant;
  call->args = sdk::Versioned<TeplugQuantizeArgs>();
  call->args.input = &call->input;
  call->args.output = &call->codes;
  call->args.recipe = TEPLUG_RECIPE_CURRENT;
  call->args.rowwise = 1;
  call->args.columnwise = 1;
  call->args.mx_scale_rule = c.mx_scale_rule;
}

// Random non-zero input bytes of `c`.
std::vector<uint8_t> InputOf(const Case& c) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(0.01f, 4.f);
  std::vector<uint8_t> bytes(InputBytes(c));
  for (int64_t i = 0; i < c.rows * c.cols; ++i) {
    const float v = (i % 2 ? -1.f : 1.f) * u(rng);
    if (c.input == TEPLUG_DTYPE_FP32) {
      std::memcpy(&bytes[4 * i], &v, 4);
    } else {
      const uint16_t h = reference::EncodeBf16(v);
      std::memcpy(&bytes[2 * i], &h, 2);
    }
  }
  return bytes;
}

std::string g_plugin;

void Reference(benchmark::State& state, const Case* c) {
  std::vector<std::vector<uint8_t>> memory;
  Call call;
  BuildCall(*c, &call, nullptr, [&](size_t bytes) {
    memory.emplace_back(std::max<size_t>(bytes, 1));
    return static_cast<void*>(memory.back().data());
  });
  const std::vector<uint8_t> input = InputOf(*c);
  std::memcpy(call.input.data, input.data(), input.size());
  for (auto _ : state) {
    const absl::Status s = reference::provider::RunReferenceQuantize(call.args);
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      break;
    }
  }
  state.counters["GB/s"] = benchmark::Counter(
      static_cast<double>(InputBytes(*c)) * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

// The message of `e` (destroyed), or "" when it is NULL.
std::string Message(TeplugError* e) {
  if (e == nullptr) return "";
  std::string m = e->message != nullptr ? e->message : "failed";
  e->destroy(e);
  return m.empty() ? "failed" : m;
}

void Teplug(benchmark::State& state, const Case* c) {
  core::Kernel* kernel = BenchKernel(g_plugin, /*builtins=*/false, "quantize_bench");
  if (kernel == nullptr) return state.SkipWithError("no kernel");
  sdk::Ref<TeplugDeviceV1> devices = kernel->Query<TeplugDeviceV1>(sdk::kIidDeviceV1);
  TeplugDevice device = sdk::Versioned<TeplugDevice>();
  device.kind = TEPLUG_DEVICE_OPENCL;
  std::unique_ptr<sdk::DeviceContext> ctx;
  if (sdk::OwnedError e = sdk::DeviceContext::Open(devices.get(), device, &ctx))
    return state.SkipWithError(e.message().c_str());
  bool ok = true;
  std::vector<void*> allocations;
  Call call;
  BuildCall(*c, &call, &device, [&](size_t bytes) {
    void* p = nullptr;
    ok = ok && !ctx->Allocate(bytes, 0, &p);
    allocations.push_back(p);
    return p;
  });
  const std::vector<uint8_t> input = InputOf(*c);
  ok = ok && !ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, call.input.data, input.data(), input.size());
  if (!ok) return state.SkipWithError("device memory");
  auto chosen = kernel->Select(sdk::kIidQuantizerV1, TEPLUG_OP_QUANTIZE, &call.args, "");
  if (!chosen.ok()) return state.SkipWithError(std::string(chosen.status().message()).c_str());
  sdk::Ref<TeplugQuantizerV1> q = kernel->Query<TeplugQuantizerV1>(sdk::kIidQuantizerV1);
  // Warm-up: the decision cache and the kernel build.
  if (std::string m = Message(q->vtbl->quantize(q.get(), &call.args)); !m.empty())
    return state.SkipWithError(m.c_str());
  for (auto _ : state) {
    if (std::string m = Message(q->vtbl->quantize(q.get(), &call.args)); !m.empty()) {
      state.SkipWithError(m.c_str());
      break;
    }
  }
  state.counters["GB/s"] = benchmark::Counter(
      static_cast<double>(InputBytes(*c)) * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  state.SetLabel(chosen->implementation->QualifiedName());
  for (void* p : allocations) ctx->Deallocate(p);
  ctx->Close();
}

}  // namespace
}  // namespace teplug::opencl::bench

int main(int argc, char** argv) {
  using namespace teplug::opencl::bench;  // NOLINT(build/namespaces): this file's names
  BenchFlags flags;
  if (!ParseBenchFlags(argc, argv, "quantize_bench", &flags)) return 2;
  g_plugin = flags.plugin;
  const bool smoke = flags.smoke;
  int rest_argc = static_cast<int>(flags.rest.size());
  benchmark::Initialize(&rest_argc, flags.rest.data());
  std::vector<Case> cases;
  for (int32_t mode : {TEPLUG_SCALING_PER_TENSOR, TEPLUG_SCALING_MXFP8_1D32}) {
    const int32_t input = mode == TEPLUG_SCALING_PER_TENSOR ? TEPLUG_DTYPE_FP32 : TEPLUG_DTYPE_BF16;
    const bool mx = mode == TEPLUG_SCALING_MXFP8_1D32;
    for (int64_t rows : smoke ? std::vector<int64_t>{40} : std::vector<int64_t>{256, 1024}) {
      const int64_t cols = smoke ? 96 : 1024;
      cases.push_back({mode, input, rows, cols});
      if (mx) cases.push_back({mode, input, rows, cols, TEPLUG_MX_SCALE_TRANSFORMER_ENGINE});
    }
  }
  const int rounds = smoke ? 1 : 5;
  for (int round = 0; round < rounds; ++round) {
    for (const Case& c : cases) {
      RegisterPair(round, CaseName(c), smoke ? 0.001 : 0.5,
                   {"reference", [&c](benchmark::State& st) { Reference(st, &c); }},
                   {"teplug", [&c](benchmark::State& st) { Teplug(st, &c); }});
    }
  }
  KeepTimes reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\nteplug (opencl) speed over the reference quantizer, %d interleaved rounds:\n",
              rounds);
  int missing = 0;
  for (const Case& c : cases) {
    const std::vector<double> ref = reporter.Rounds("reference", CaseName(c)),
                              tep = reporter.Rounds("teplug", CaseName(c));
    if (ref.empty() || tep.empty()) {
      std::printf("  %-34s  not measured\n", CaseName(c).c_str());
      ++missing;
      continue;
    }
    const double rm = Median(ref), tm = Median(tep);
    std::printf(
        "  %-34s  reference %9.3f ms  teplug %8.3f ms (%6.2f GB/s in)  ratio of medians %.2f  "
        "median of paired ratios %.2f\n",
        CaseName(c).c_str(), rm, tm, InputBytes(c) / tm / 1e6, rm / tm,
        MedianOfPairedRatios(ref, tep));
  }
  std::printf("\nteplug (opencl) time of TransformerEngine's MX rule over the OCP rule's:\n");
  for (const Case& te : cases) {
    if (te.mx_scale_rule != TEPLUG_MX_SCALE_TRANSFORMER_ENGINE) continue;
    Case ocp = te;
    ocp.mx_scale_rule = TEPLUG_MX_SCALE_OCP;
    const std::vector<double> t = reporter.Rounds("teplug", CaseName(te)),
                              o = reporter.Rounds("teplug", CaseName(ocp));
    if (t.empty() || o.empty()) continue;  // counted above
    std::printf("  %-34s  ratio of medians %.3f  median of paired ratios %.3f\n",
                CaseName(te).c_str(), Median(t) / Median(o), MedianOfPairedRatios(t, o));
  }
  benchmark::Shutdown();
  return missing == 0 ? 0 : 1;
}
