#include "native/gemm/testing/gpu_bench.h"

#include <cuda_runtime.h>
#include <errno.h>

#include <cstdio>
#include <cstdlib>

#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native::testing {

void ExitUnless(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "%s: %s\n", program_invocation_short_name, what.c_str());
  std::exit(1);
}
void ExitUnless(const sdk::OwnedError& e, const std::string& what) {
  ExitUnless(!e, what + ": " + (e ? e.message() : ""));
}
void ExitUnless(const absl::Status& s, const std::string& what) {
  ExitUnless(s.ok(), what + ": " + std::string(s.message()));
}

std::unique_ptr<core::Kernel> MakeBenchKernel() {
  core::KernelOptions o;
  o.use_environment = false;
  o.config_text = "log_level: \"error\"\n";
  auto kernel = core::Kernel::Create(o);
  ExitUnless(kernel.status(), "kernel");
  return *std::move(kernel);
}

void OpenBenchDevice(BenchDevice& d) {
  d.kernel = MakeBenchKernel();
  d.device = d.kernel->Query<TeplugDeviceV1>(sdk::kIidDeviceV1);
  ExitUnless(static_cast<bool>(d.device), "the kernel serves no IDevice");
  ExitUnless(cudaGetDeviceProperties(&d.prop, 0) == cudaSuccess, "cudaGetDeviceProperties");
  d.arch = d.prop.major * 10 + d.prop.minor;
  d.cuda = sdk::Versioned<TeplugDevice>();
  d.cuda.kind = TEPLUG_DEVICE_CUDA;
  d.cuda.arch = d.arch;
  ExitUnless(sdk::DeviceContext::Open(d.device.get(), d.cuda, &d.ctx), "open cuda:0");
  ExitUnless(d.ctx->CreateStream(&d.stream), "stream");
}

void CloseBenchDevice(BenchDevice& d) {
  ExitUnless(d.ctx->DestroyStream(d.stream), "stream destroy");
  ExitUnless(d.ctx->Close(), "close");
}

double Bf16FlopPerClockPerSm(int arch) {
  if (arch >= 110) return 0;     // Thor, GeForce Blackwell and later: not in the table
  if (arch >= 100) return 8192;  // Blackwell (B200: 148 SMs, 2.25 PFLOP/s dense)
  if (arch >= 90) return 4096;   // Hopper (H100 SXM: 132 SMs, 989 TFLOP/s at 1.83 GHz)
  if (arch == 89) return 1024;   // Ada (L40S: 142 SMs, 362 TFLOP/s)
  if (arch == 80) return 2048;   // A100: 108 SMs, 312 TFLOP/s at 1.41 GHz
  return 0;
}

// At cudaDevAttrClockRate, the maximum boost clock (1.98 GHz on an H100 or
// H200, where the 989 TFLOP/s of the data sheet is at 1.83 GHz): the peak a
// fraction is taken of is the highest the device could reach.
double DensePeakTflops(int arch, bool fp8) {
  int sms = 0, clock_khz = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess) return 0;
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0) != cudaSuccess) return 0;
  const double per_clock = Bf16FlopPerClockPerSm(arch) * (fp8 && arch >= 89 ? 2 : 1);
  return per_clock * sms * clock_khz * 1e3 / 1e12;
}

}  // namespace teplug::native::testing
