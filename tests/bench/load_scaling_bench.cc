// How loading grows with the number of implementations one plugin registers:
// Kernel::Create with one plugin of 1,000, 5,000, 10,000 or 20,000 attention
// implementations (libteplug_bench_scale_<N>.so, built from
// noop_provider.cc). Each iteration runs the whole load path: dlopen, the
// entry and its registrations (validated and staged), the provider and its
// implementations, the commit into the registry and the load report.
// Unloading is not timed. The "per_impl" counter is the time per
// implementation: it stays flat when loading is linear. Google Benchmark's
// complexity fit (BM_LoadImplementations_BigO) is printed at the end.
//
//   bazel run -c opt //tests/bench:load_scaling_bench
//   bazel run -c opt //tests/bench:load_scaling_bench --
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/kernel/kernel.h"
#include "tools/cpp/runfiles/runfiles.h"

namespace teplug::bench {
namespace {

using bazel::tools::cpp::runfiles::Runfiles;
using core::Kernel;
using core::KernelOptions;

Runfiles* g_runfiles = nullptr;  // set in main

KernelOptions ScaleOptions(int implementations) {
  KernelOptions o;
  o.use_environment = false;
  o.load_builtins = false;
  o.plugin_paths = {g_runfiles->Rlocation("teplug/tests/bench/libteplug_bench_scale_" +
                                          std::to_string(implementations) + ".so")};
  o.config_text = "log_level: \"warn\"\n";
  o.config_source_name = "load_scaling_bench.textproto";
  return o;
}

size_t ImplementationCount(const Kernel& kernel) {
  size_t n = 0;
  for (const core::ProviderListing& p : kernel.ListProviders()) n += p.implementations.size();
  return n;
}

void BM_LoadImplementations(benchmark::State& state) {
  const int implementations = static_cast<int>(state.range(0));
  const KernelOptions options = ScaleOptions(implementations);
  for (auto _ : state) {
    absl::StatusOr<std::unique_ptr<Kernel>> kernel = Kernel::Create(options);
    state.PauseTiming();  // checking and unloading are not part of loading
    if (!kernel.ok()) {
      state.SkipWithError(std::string(kernel.status().message()).c_str());
      break;
    }
    if (ImplementationCount(**kernel) != static_cast<size_t>(implementations)) {
      state.SkipWithError("the plugin did not load every implementation");
      break;
    }
    kernel->reset();
    state.ResumeTiming();
  }
  state.SetComplexityN(implementations);
  state.counters["per_impl"] = benchmark::Counter(
      implementations, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_LoadImplementations)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);

}  // namespace
}  // namespace teplug::bench

int main(int argc, char** argv) {
  std::string error;
  std::unique_ptr<bazel::tools::cpp::runfiles::Runfiles> runfiles(
      bazel::tools::cpp::runfiles::Runfiles::Create(argv[0], &error));
  if (runfiles == nullptr) {
    std::fprintf(stderr, "cannot find the runfiles: %s\n", error.c_str());
    return 1;
  }
  teplug::bench::g_runfiles = runfiles.get();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
