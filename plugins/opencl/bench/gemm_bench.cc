// fp32 GEMM through teplug against CLBlast called directly, paired in one
// process on the ICD loader's first OpenCL device:
//   direct  clblast::Gemm<float> on cl_mem buffers of its own context, then
//           clFinish: CLBlast's own cost
//   teplug  the same GEMM through a Kernel that loaded libteplug_opencl.so:
//           operands in memory from the kernel's IDevice, the dispatching
//           IGemm (decision cached) served by opencl/clblast with no stream,
//           so it also finishes the queue: dispatch, argument checks, address
//           resolution and the beta*C prefill kernel on top of the same call
// Cases: M=N=K=128 (short: the difference per call is teplug's overhead),
// 512 and 1024. Rounds interleave the variants (direct first in even rounds,
// teplug first in odd ones); each variant's time is the median of its rounds.
// Ratios are throughput teplug/direct: the ratio of the medians and the median
// of the per-round ratios (runs adjacent in time, same load); the verdict
// (target >= 0.95) is on the latter. Both variants are warmed up first, so
// CLBlast's one-time kernel compile is in neither.
//
//   bazel run -c opt //plugins/opencl:gemm_bench                 # 5 rounds
//   bazel run -c opt //plugins/opencl:gemm_bench -- --smoke      # tiny shapes, 1 round
#include <CL/cl.h>
#include <clblast.h>

#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/kernel/kernel.h"
#include "plugins/opencl/bench/paired_rounds.h"
#include "teplug/gemm.h"
#include "teplug/sdk/device_context.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::opencl::bench {
namespace {

constexpr double kTarget = 0.95;

struct Shape {
  int64_t m, n, k;
};

std::string CaseName(const Shape& s) {
  return "fp32/" + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}
double Flops(const Shape& s) { return 2.0 * s.m * s.n * s.k; }

// Host values of one case, shared by both variants.
struct Operands {
  explicit Operands(const Shape& s) : shape(s), a(s.m * s.k), b(s.k * s.n) {
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (float& x : a) x = u(rng);
    for (float& x : b) x = u(rng);
  }
  Shape shape;
  std::vector<float> a, b;
};

std::string g_plugin;

void Direct(benchmark::State& state, Operands* o) {
  const Shape& s = o->shape;
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_int e = clGetPlatformIDs(1, &platform, nullptr);
  if (e == CL_SUCCESS) e = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr);
  if (e != CL_SUCCESS) return state.SkipWithError("no OpenCL device");
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &e);
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, nullptr, &e);
  cl_mem a = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, o->a.size() * 4,
                            o->a.data(), &e);
  cl_mem b = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, o->b.size() * 4,
                            o->b.data(), &e);
  cl_mem d =
      clCreateBuffer(context, CL_MEM_READ_WRITE, static_cast<size_t>(s.m * s.n) * 4, nullptr, &e);
  auto run = [&] {
    const clblast::StatusCode status = clblast::Gemm<float>(
        clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kNo, s.m, s.n, s.k,
        1.0f, a, 0, s.k, b, 0, s.n, 0.0f, d, 0, s.n, &queue);
    clFinish(queue);
    return status == clblast::StatusCode::kSuccess;
  };
  if (!run()) state.SkipWithError("clblast::Gemm failed");  // warm-up: CLBlast compiles here
  for (auto _ : state) run();
  state.counters["GFLOP/s"] =
      benchmark::Counter(Flops(s) * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  for (cl_mem m : {a, b, d}) clReleaseMemObject(m);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
}

core::Kernel* TeplugKernel() { return BenchKernel(g_plugin, false, "gemm_bench"); }

TeplugTensor Matrix(void* data, const TeplugDevice* device, int64_t rows, int64_t cols) {
  TeplugTensor t = sdk::Versioned<TeplugTensor>();
  t.data = data;
  t.dtype = TEPLUG_DTYPE_FP32;
  t.rank = 2;
  t.shape[0] = rows;
  t.shape[1] = cols;
  t.device = device;
  return t;
}

void Teplug(benchmark::State& state, Operands* o) {
  const Shape& s = o->shape;
  core::Kernel* kernel = TeplugKernel();
  if (kernel == nullptr) return state.SkipWithError("no kernel");
  sdk::Ref<TeplugDeviceV1> devices = kernel->Query<TeplugDeviceV1>(sdk::kIidDeviceV1);
  TeplugDevice device = sdk::Versioned<TeplugDevice>();
  device.kind = TEPLUG_DEVICE_OPENCL;
  std::unique_ptr<sdk::DeviceContext> ctx;
  if (sdk::OwnedError e = sdk::DeviceContext::Open(devices.get(), device, &ctx)) {
    return state.SkipWithError(e.message().c_str());
  }
  void *a = nullptr, *b = nullptr, *d = nullptr;
  bool ok = !ctx->Allocate(o->a.size() * 4, 0, &a) && !ctx->Allocate(o->b.size() * 4, 0, &b) &&
            !ctx->Allocate(static_cast<size_t>(s.m * s.n) * 4, 0, &d) &&
            !ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, a, o->a.data(), o->a.size() * 4) &&
            !ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, b, o->b.data(), o->b.size() * 4);
  if (!ok) return state.SkipWithError("device memory");
  TeplugTensor ta = Matrix(a, &device, s.m, s.k), tb = Matrix(b, &device, s.k, s.n),
               td = Matrix(d, &device, s.m, s.n);
  TeplugGemmArgs args = sdk::Versioned<TeplugGemmArgs>();
  args.a = &ta;
  args.b = &tb;
  args.d = &td;
  args.alpha = 1.f;
  auto chosen = kernel->Select(sdk::kIidGemmV1, TEPLUG_OP_GEMM, &args, "");
  if (!chosen.ok()) return state.SkipWithError(std::string(chosen.status().message()).c_str());
  sdk::Ref<TeplugGemmV1> gemm = kernel->Query<TeplugGemmV1>(sdk::kIidGemmV1);
  // TimeCalls' warm-up call takes the decision cache and our kernels' and CLBlast's compiles.
  TimeCalls(state, Flops(s), chosen->implementation->QualifiedName(),
            [&] { return gemm->vtbl->gemm(gemm.get(), &args); });
  ctx->Close();
}

}  // namespace
}  // namespace teplug::opencl::bench

int main(int argc, char** argv) {
  using namespace teplug::opencl::bench;  // NOLINT(build/namespaces): this file's names
  BenchFlags flags;
  if (!ParseBenchFlags(argc, argv, "gemm_bench", &flags)) return 2;
  g_plugin = flags.plugin;
  const bool smoke = flags.smoke;
  int rest_argc = static_cast<int>(flags.rest.size());
  benchmark::Initialize(&rest_argc, flags.rest.data());
  const std::vector<Shape> shapes =
      smoke ? std::vector<Shape>{{64, 48, 32}}
            : std::vector<Shape>{{128, 128, 128}, {512, 512, 512}, {1024, 1024, 1024}};
  const int rounds = smoke ? 1 : 5;
  std::vector<std::unique_ptr<Operands>> operands;
  for (const Shape& s : shapes) operands.push_back(std::make_unique<Operands>(s));
  for (int round = 0; round < rounds; ++round) {
    for (auto& o : operands) {
      Operands* p = o.get();
      RegisterPair(round, CaseName(p->shape), smoke ? 0.001 : 1.0,
                   {"direct", [p](benchmark::State& st) { Direct(st, p); }},
                   {"teplug", [p](benchmark::State& st) { Teplug(st, p); }});
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
    const double d = Median(direct), t = Median(teplug),
                 ratio = MedianOfPairedRatios(direct, teplug);
    std::printf(
        "  %-20s  direct %9.3f ms (%7.1f GFLOP/s)  teplug %9.3f ms  (%+.1f us/call)  "
        "ratio of medians %.3f  median of paired ratios %.3f: %s\n",
        CaseName(s).c_str(), d, Flops(s) / d / 1e6, t, (t - d) * 1e3, d / t, ratio,
        ratio >= kTarget ? "met" : "NOT met");
  }
  benchmark::Shutdown();
  return missing == 0 ? 0 : 1;
}
