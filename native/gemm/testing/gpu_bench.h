// What the teplug-vs-direct GPU benchmarks share: timing a run of calls with
// CUDA events, the median of their reps, and the device's dense tensor-core
// peak for the achieved fraction (SMs x max clock x the FLOP per clock per
// SM of the generation, from NVIDIA's architecture whitepapers).
#ifndef TEPLUG_NATIVE_GEMM_TESTING_GPU_BENCH_H_
#define TEPLUG_NATIVE_GEMM_TESTING_GPU_BENCH_H_

#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/kernel/kernel.h"
#include "teplug/sdk/device_context.hpp"
#include "teplug/sdk/error.hpp"

namespace teplug::native::testing {

// Ends the benchmark with "<program>: <what>[: <error>]" unless it succeeded.
void ExitUnless(bool ok, const std::string& what);
void ExitUnless(const sdk::OwnedError& e, const std::string& what);
void ExitUnless(const absl::Status& s, const std::string& what);

// A kernel with the built-in providers the binary links, no environment or
// config file, logging errors only.
std::unique_ptr<core::Kernel> MakeBenchKernel();

// cuda:0 as a benchmark drives it: a kernel with the built-in providers the
// binary links, that kernel's IDevice opened on cuda:0, and a stream there.
struct BenchDevice {
  std::unique_ptr<core::Kernel> kernel;
  sdk::Ref<TeplugDeviceV1> device;
  std::unique_ptr<sdk::DeviceContext> ctx;
  TeplugDevice cuda{};
  TeplugStream stream = nullptr;
  cudaDeviceProp prop{};
  int arch = 0;  // major * 10 + minor
};
// Opens it, exiting with the failing step's words; CloseBenchDevice releases it.
void OpenBenchDevice(BenchDevice& d);
void CloseBenchDevice(BenchDevice& d);

// Dense bf16 FLOP per clock per SM of compute capability `arch` (major * 10
// + minor); 0 where the table has no entry.
double Bf16FlopPerClockPerSm(int arch);

// TFLOP/s of cuda:0 (of `arch`) for bf16, or fp8 (twice bf16 from Ada on);
// 0 when the table or the device's attributes have no answer.
double DensePeakTflops(int arch, bool fp8);

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Seconds per call of `run`, called `calls` times on `stream` between two
// CUDA events. Exits on a failed event call or a window that measured
// nothing: after an asynchronous fault the events report no time, which
// would otherwise print an infinite rate.
template <class Run>
double TimePerCall(cudaStream_t stream, int calls, Run run) {
  cudaEvent_t start, stop;
  ExitUnless(cudaEventCreate(&start) == cudaSuccess, "cudaEventCreate");
  ExitUnless(cudaEventCreate(&stop) == cudaSuccess, "cudaEventCreate");
  ExitUnless(cudaEventRecord(start, stream) == cudaSuccess, "cudaEventRecord(start)");
  for (int i = 0; i < calls; ++i) run();
  ExitUnless(cudaEventRecord(stop, stream) == cudaSuccess, "cudaEventRecord(stop)");
  const cudaError_t synchronized = cudaEventSynchronize(stop);
  ExitUnless(synchronized == cudaSuccess,
             std::string("the timed calls: cudaEventSynchronize returned ") +
                 cudaGetErrorName(synchronized) + " (" + cudaGetErrorString(synchronized) + ")");
  float ms = 0;
  ExitUnless(cudaEventElapsedTime(&ms, start, stop) == cudaSuccess, "cudaEventElapsedTime");
  ExitUnless(ms > 0, "the timed calls took no time on the GPU");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms / 1e3 / calls;
}

}  // namespace teplug::native::testing

#endif  // TEPLUG_NATIVE_GEMM_TESTING_GPU_BENCH_H_
