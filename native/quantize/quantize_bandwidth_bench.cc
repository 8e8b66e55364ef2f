// Achieved memory bandwidth of the quantize kernels on a GPU, for bf16 input
// tensors of 64 MiB, 256 MiB and 1 GiB ([n / 4096, 4096]), next to a
// device-to-device copy of the same input bytes measured in the same process.
// Each row reports the bytes the operation must move (input read + codes and
// scales written; dequantize: codes and scales read + bf16 written) per
// second, beside the device's peak bandwidth (2 x memory clock x bus width):
// the fraction of peak is bytes_per_second / peak_bytes_per_second, and the
// copy row of the same size is the in-process baseline. Timed with CUDA
// events. Run with
//   bazel run -c opt //native/quantize:quantize_bandwidth_bench --
//       --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true
//       --benchmark_report_aggregates_only=true
//
// Without a GPU every benchmark stops with the driver's text.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "benchmark/benchmark.h"
#include "native/quantize/quantize_launch.h"

namespace teplug::native::quantize {
namespace {

constexpr int64_t kCols = 4096;
constexpr int64_t kMiB = 1 << 20;

// "" when a GPU is usable, else the driver's words.
std::string WhyNoGpu() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    return std::string("no GPU: cudaGetDeviceCount returned ") + cudaGetErrorName(e) + " (" +
           cudaGetErrorString(e) + ")";
  }
  return count > 0 ? "" : "no GPU: cudaGetDeviceCount reported 0 devices";
}

// Peak DRAM bandwidth of device 0 in bytes per second.
double PeakBytesPerSecond() {
  int khz = 0, bits = 0;
  cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, 0);
  cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, 0);
  return 2.0 * khz * 1e3 * bits / 8.0;
}

// Device buffers of one size, reused across iterations.
struct Buffers {
  explicit Buffers(int64_t input_bytes) : elements(input_bytes / 2) {
    ok = cudaMalloc(&input, static_cast<size_t>(input_bytes)) == cudaSuccess &&
         cudaMalloc(&codes, static_cast<size_t>(elements)) == cudaSuccess &&
         cudaMalloc(&columnwise, static_cast<size_t>(elements)) == cudaSuccess &&
         cudaMalloc(&scales, static_cast<size_t>(elements / 32 * 4 + 64)) == cudaSuccess &&
         cudaMalloc(&output, static_cast<size_t>(input_bytes)) == cudaSuccess &&
         cudaMalloc(&scalars, 16) == cudaSuccess;
    // Every bf16 element 0x3F3F (0.746): an ordinary magnitude.
    if (ok) ok = cudaMemset(input, 0x3F, static_cast<size_t>(input_bytes)) == cudaSuccess;
    const float one = 1.0f;
    if (ok) ok = cudaMemcpy(scalars, &one, sizeof one, cudaMemcpyHostToDevice) == cudaSuccess;
  }
  ~Buffers() {
    for (void* p : {input, static_cast<void*>(codes), static_cast<void*>(columnwise), scales,
                    output, static_cast<void*>(scalars)}) {
      cudaFree(p);
    }
  }
  int64_t elements;
  bool ok = false;
  void* input = nullptr;
  uint8_t* codes = nullptr;
  uint8_t* columnwise = nullptr;
  void* scales = nullptr;
  void* output = nullptr;
  float* scalars = nullptr;  // [0] scale, [1] amax
};

// Calls of `run` per pair of events: one call's window would also hold the
// host's launch latency (a few microseconds, against 20-30 us of work at
// 64 MiB), several back to back keep the GPU busy from event to event.
constexpr int kCallsPerWindow = 10;

// Times `run` with CUDA events per iteration and reports the rate of `bytes`.
template <class Run>
void Measure(benchmark::State& state, int64_t input_bytes, double bytes, Run run) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  run();  // warm-up
  if (cudaDeviceSynchronize() != cudaSuccess) state.SkipWithError("the kernel failed");
  for (auto _ : state) {
    cudaEventRecord(start);
    int e = 0;
    for (int i = 0; i < kCallsPerWindow && e == 0; ++i) e = run();
    cudaEventRecord(stop);
    const cudaError_t synchronized = cudaEventSynchronize(stop);
    if (e == 0) e = static_cast<int>(synchronized);
    if (e != 0) {
      state.SkipWithError(cudaGetErrorString(static_cast<cudaError_t>(e)));
      break;
    }
    float ms = 0.0f;
    if (cudaEventElapsedTime(&ms, start, stop) != cudaSuccess || ms <= 0.0f) {
      state.SkipWithError("the events measured no time");
      break;
    }
    state.SetIterationTime(ms / 1e3 / kCallsPerWindow);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  state.counters["bytes_per_second"] =
      benchmark::Counter(bytes, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["input_MiB"] = static_cast<double>(input_bytes / kMiB);
  state.counters["peak_bytes_per_second"] = PeakBytesPerSecond();
}

void BM_Copy(benchmark::State& state) {
  const std::string why = WhyNoGpu();
  if (!why.empty()) return state.SkipWithError(why.c_str());
  const int64_t input_bytes = state.range(0) * kMiB;
  Buffers b(input_bytes);
  if (!b.ok) return state.SkipWithError("cudaMalloc failed");
  Measure(state, input_bytes, 2.0 * input_bytes, [&] {
    return static_cast<int>(cudaMemcpyAsync(b.output, b.input, static_cast<size_t>(input_bytes),
                                            cudaMemcpyDeviceToDevice, nullptr));
  });
}

// Quantize bf16 -> fp8 e4m3 row-wise in one mode; bytes: input + codes + scales.
void BM_Quantize(benchmark::State& state, Scaling scaling, bool current) {
  const std::string why = WhyNoGpu();
  if (!why.empty()) return state.SkipWithError(why.c_str());
  const int64_t input_bytes = state.range(0) * kMiB;
  Buffers b(input_bytes);
  if (!b.ok) return state.SkipWithError("cudaMalloc failed");
  QuantizeLaunch l;
  l.input = b.input;
  l.input_type = HighPrecision::kBf16;
  l.rows = b.elements / kCols;
  l.cols = kCols;
  l.scaling = scaling;
  l.current_scaling = current;
  l.scale = b.scalars;
  l.amax = b.scalars + 1;
  l.force_pow2_scales = scaling == Scaling::kBlock1D || scaling == Scaling::kBlock2D;
  l.input_max_finite = kBf16MaxFinite;
  l.rowwise_data = b.codes;
  l.rowwise_scale_inv = b.scales;
  const double scale_bytes = scaling == Scaling::kMx        ? b.elements / 32.0
                             : scaling == Scaling::kBlock1D ? b.elements / 128.0 * 4
                             : scaling == Scaling::kBlock2D ? b.elements / 16384.0 * 4
                                                            : 4.0;
  Measure(state, input_bytes, input_bytes + b.elements + scale_bytes,
          [&] { return LaunchQuantize(l); });
}

void BM_Dequantize(benchmark::State& state) {
  const std::string why = WhyNoGpu();
  if (!why.empty()) return state.SkipWithError(why.c_str());
  const int64_t input_bytes = state.range(0) * kMiB;
  Buffers b(input_bytes);
  if (!b.ok) return state.SkipWithError("cudaMalloc failed");
  DequantizeLaunch l;
  l.codes = b.codes;
  l.scaling = Scaling::kMx;
  l.scale_inv = b.scales;
  l.rows = b.elements / kCols;
  l.cols = kCols;
  l.output = b.output;
  l.output_type = HighPrecision::kBf16;
  cudaMemset(b.codes, 0x38, static_cast<size_t>(b.elements));
  cudaMemset(b.scales, 127, static_cast<size_t>(b.elements / 32));
  Measure(state, input_bytes, b.elements + b.elements / 32.0 + input_bytes,
          [&] { return LaunchDequantize(l); });
}

void Sizes(benchmark::internal::Benchmark* b) {
  b->Arg(64)->Arg(256)->Arg(1024)->UseManualTime()->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_Copy)->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Quantize, per_tensor_delayed, Scaling::kPerTensor, false)->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Quantize, per_tensor_current, Scaling::kPerTensor, true)->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Quantize, mxfp8_1d32, Scaling::kMx, false)->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Quantize, block_1d128, Scaling::kBlock1D, false)->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Quantize, block_2d128, Scaling::kBlock2D, false)->Apply(Sizes);
BENCHMARK(BM_Dequantize)->Apply(Sizes);

}  // namespace
}  // namespace teplug::native::quantize

BENCHMARK_MAIN();
