// Benchmarks of the kernel's overheads, each
// compared with its baseline in the same run:
//   BM_DirectCall          attention forward through the plugin's own function
//                          table, loaded without the kernel (the ABI tests'
//                          toy host): the baseline
//   BM_SelectedCall        the same through the implementation Kernel::Select
//                          returned (target: within 1.05x of direct)
//   BM_DispatchCachedCall  the same through the dispatching object, decision
//                          cached (target: within 2x of direct)
//   BM_PreparedCall        the same through a dispatching object prepared for
//                          the op (Kernel::Prepare; target: within 2x of direct)
//   BM_ColdSelect64        Kernel::Select among 64 registered implementations;
//                          Select never uses the decision cache (target < 5 us)
//   BM_CreateKernel50 - BM_CreateKernelEmpty
//                          loading 50 small plugins (target < 100 ms)
// The plugins' ops do nothing (noop_provider.cc), so what is timed is
// overhead. main() runs the benchmarks with a reporter that keeps each one's
// time, then prints the five comparisons (bench_ratios.h).
//
//   bazel run -c opt //tests/bench:kernel_bench
//   bazel run -c opt //tests/bench:kernel_bench -- --benchmark_repetitions=5
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/kernel/kernel.h"
#include "interfaces/tests/test_host.hpp"
#include "teplug/sdk/iids.hpp"
#include "tests/bench/bench_ratios.h"
#include "core/kernel/testing/fake_calls.h"
#include "tools/cpp/runfiles/runfiles.h"

namespace teplug::bench {
namespace {

using bazel::tools::cpp::runfiles::Runfiles;
using core::Kernel;
using core::KernelOptions;

constexpr int kLoadPlugins = 50;

Runfiles* g_runfiles = nullptr;  // set in main

std::string BenchPlugin(const std::string& name) {
  return g_runfiles->Rlocation("teplug/tests/bench/libteplug_" + name + ".so");
}

KernelOptions BenchOptions(std::vector<std::string> plugins) {
  KernelOptions o;
  o.use_environment = false;
  o.load_builtins = false;
  o.plugin_paths = std::move(plugins);
  o.config_text = "log_level: \"warn\"\n";
  o.config_source_name = "bench.textproto";
  return o;
}

// Creates a kernel or marks the benchmark failed (returns null).
std::unique_ptr<Kernel> CreateOrSkip(benchmark::State& state, std::vector<std::string> plugins) {
  absl::StatusOr<std::unique_ptr<Kernel>> k = Kernel::Create(BenchOptions(std::move(plugins)));
  if (!k.ok()) {
    state.SkipWithError(std::string(k.status().message()).c_str());
    return nullptr;
  }
  return *std::move(k);
}

// Reports a failed call (an error object) as the benchmark's error.
bool Failed(benchmark::State& state, TeplugError* e) {
  if (e == nullptr) return false;
  std::string msg = e->message != nullptr ? e->message : "call failed";
  e->destroy(e);
  state.SkipWithError(msg.c_str());
  return true;
}

// The attention forward every call benchmark makes: head_dim 128, causal,
// BSHD, fp32. The no-op provider accepts it and touches nothing.
const core::testing::AttentionForwardCall& ForwardCall() {
  static const core::testing::AttentionForwardCall* call = new core::testing::AttentionForwardCall(128, 16, 2, 1);
  return *call;
}

void BM_DirectCall(benchmark::State& state) {
  teplug::testing::TestHost host;
  if (sdk::OwnedError e = host.Load(BenchPlugin("bench_noop")); e) {
    return state.SkipWithError("toy host could not load libteplug_bench_noop.so");
  }
  if (host.recorded.size() != 1)
    return state.SkipWithError("bench_noop should register one implementation");
  auto* attention = reinterpret_cast<TeplugAttentionV1*>(host.recorded[0].object.get());
  const TeplugAttentionFwdArgs* args = ForwardCall().args();
  for (auto _ : state) {
    TeplugError* e = attention->vtbl->forward(attention, args);
    if (Failed(state, e)) break;
  }
}
BENCHMARK(BM_DirectCall);

void BM_SelectedCall(benchmark::State& state) {
  std::unique_ptr<Kernel> kernel = CreateOrSkip(state, {BenchPlugin("bench_noop")});
  if (kernel == nullptr) return;
  const TeplugAttentionFwdArgs* args = ForwardCall().args();
  absl::StatusOr<core::Selection> selection =
      kernel->Select(sdk::kIidAttentionV1, TEPLUG_OP_ATTENTION_FORWARD, args);
  if (!selection.ok())
    return state.SkipWithError(std::string(selection.status().message()).c_str());
  for (auto _ : state) {
    TeplugAttentionV1* attention = selection->as<TeplugAttentionV1>();
    TeplugError* e = attention->vtbl->forward(attention, args);
    if (Failed(state, e)) break;
  }
}
BENCHMARK(BM_SelectedCall);

void BM_DispatchCachedCall(benchmark::State& state) {
  // One kernel for all threads of a multi-threaded run.
  static std::unique_ptr<Kernel> kernel;
  if (state.thread_index() == 0) kernel = CreateOrSkip(state, {BenchPlugin("bench_noop")});
  // Google Benchmark starts every thread's loop together, after setup.
  sdk::Ref<TeplugAttentionV1> attention;
  const TeplugAttentionFwdArgs* args = ForwardCall().args();
  for (auto _ : state) {
    if (!attention) {  // first iteration: query (and fill the decision cache)
      if (kernel == nullptr) return state.SkipWithError("no kernel");
      attention = kernel->Query<TeplugAttentionV1>(sdk::kIidAttentionV1);
    }
    TeplugError* e = attention->vtbl->forward(attention.get(), args);
    if (Failed(state, e)) break;
  }
}
BENCHMARK(BM_DispatchCachedCall);
// Two threads on this 2-core machine: the hot path takes no lock, so the
// time per call should not grow.
BENCHMARK(BM_DispatchCachedCall)->Threads(2)->UseRealTime();

void BM_PreparedCall(benchmark::State& state) {
  std::unique_ptr<Kernel> kernel = CreateOrSkip(state, {BenchPlugin("bench_noop")});
  if (kernel == nullptr) return;
  const TeplugAttentionFwdArgs* args = ForwardCall().args();
  absl::StatusOr<sdk::Ref<TeplugAttentionV1>> attention =
      kernel->Prepare<TeplugAttentionV1>(sdk::kIidAttentionV1, TEPLUG_OP_ATTENTION_FORWARD, args);
  if (!attention.ok()) return state.SkipWithError(std::string(attention.status().message()).c_str());
  for (auto _ : state) {
    TeplugError* e = (*attention)->vtbl->forward(attention->get(), args);
    if (Failed(state, e)) break;
  }
}
BENCHMARK(BM_PreparedCall);

void BM_ColdSelect64(benchmark::State& state) {
  std::unique_ptr<Kernel> kernel = CreateOrSkip(state, {BenchPlugin("bench_many")});
  if (kernel == nullptr) return;
  const TeplugAttentionFwdArgs* args = ForwardCall().args();
  size_t considered = 0;
  for (auto _ : state) {
    absl::StatusOr<core::Selection> s =
        kernel->Select(sdk::kIidAttentionV1, TEPLUG_OP_ATTENTION_FORWARD, args);
    if (!s.ok()) return state.SkipWithError(std::string(s.status().message()).c_str());
    considered = s->decision->candidate_count();
    benchmark::DoNotOptimize(s);
  }
  if (considered != 64) state.SkipWithError("the decision record should list 64 candidates");
}
BENCHMARK(BM_ColdSelect64);

void BM_CreateKernelEmpty(benchmark::State& state) {
  for (auto _ : state) {
    std::unique_ptr<Kernel> kernel = CreateOrSkip(state, {});
    if (kernel == nullptr) break;
    state.PauseTiming();
    kernel.reset();
    state.ResumeTiming();
  }
}
BENCHMARK(BM_CreateKernelEmpty)->Unit(benchmark::kMillisecond);

void BM_CreateKernel50(benchmark::State& state) {
  std::vector<std::string> paths;
  for (int i = 0; i < kLoadPlugins; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "bench_plugin_%02d", i);
    paths.push_back(BenchPlugin(name));
  }
  for (auto _ : state) {
    std::unique_ptr<Kernel> kernel = CreateOrSkip(state, paths);
    if (kernel == nullptr) break;
    state.PauseTiming();  // unloading is not part of loading
    const size_t providers = kernel->ListProviders().size();
    kernel.reset();
    state.ResumeTiming();
    if (providers != kLoadPlugins) {
      state.SkipWithError("not every plugin loaded (see the kernel's warnings above)");
      break;
    }
  }
}
BENCHMARK(BM_CreateKernel50)->Unit(benchmark::kMillisecond);

// Prints what the console reporter prints (colored only on a terminal) and
// keeps every run's CPU time per iteration, in seconds, by benchmark name.
// CPU time, not wall time: this machine is shared with builds, and a
// preempted iteration would charge someone else's work to the kernel.
class KeepingReporter : public benchmark::ConsoleReporter {
 public:
  KeepingReporter() : ConsoleReporter(isatty(STDOUT_FILENO) ? OO_Defaults : OO_Tabular) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.error_occurred) {
        errors_.push_back(r.benchmark_name() + ": " + r.error_message);
        continue;
      }
      const double seconds = r.GetAdjustedCPUTime() / benchmark::GetTimeUnitMultiplier(r.time_unit);
      if (r.run_type == Run::RT_Iteration) {
        samples_[r.run_name.str()].push_back(seconds);
      } else if (r.aggregate_name == "median") {  // --benchmark_report_aggregates_only
        reported_median_[r.run_name.str()] = seconds;
      }
    }
  }

  // The median of the repetitions (or the median Google Benchmark reported
  // when it kept only aggregates); 0 when the benchmark did not run.
  double Median(const std::string& name) const {
    auto it = samples_.find(name);
    if (it == samples_.end() || it->second.empty()) {
      auto reported = reported_median_.find(name);
      return reported == reported_median_.end() ? 0 : reported->second;
    }
    std::vector<double> v = it->second;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  }
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  std::map<std::string, std::vector<double>> samples_;
  std::map<std::string, double> reported_median_;
  std::vector<std::string> errors_;
};

int Main(int argc, char** argv) {
  std::string error;
  std::unique_ptr<Runfiles> runfiles(Runfiles::Create(argv[0], &error));
  if (runfiles == nullptr) {
    std::fprintf(stderr, "kernel_bench: cannot find its runfiles (run it with bazel run): %s\n",
                 error.c_str());
    return 1;
  }
  g_runfiles = runfiles.get();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  KeepingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  for (const std::string& e : reporter.errors())
    std::fprintf(stderr, "kernel_bench: FAILED %s\n", e.c_str());
  BenchTimes t;
  t.direct_call = reporter.Median("BM_DirectCall");
  t.selected_call = reporter.Median("BM_SelectedCall");
  t.dispatch_call = reporter.Median("BM_DispatchCachedCall");
  t.prepared_call = reporter.Median("BM_PreparedCall");
  t.cold_select_64 = reporter.Median("BM_ColdSelect64");
  t.create_empty = reporter.Median("BM_CreateKernelEmpty");
  t.create_50 = reporter.Median("BM_CreateKernel50");
  if (t.direct_call == 0 || t.selected_call == 0 || t.dispatch_call == 0 || t.prepared_call == 0 ||
      t.cold_select_64 == 0 ||
      t.create_empty == 0 || t.create_50 == 0) {
    std::fprintf(
        stderr,
        "kernel_bench: a benchmark the comparisons need did not run (filtered out or failed)\n");
    return 1;
  }
  std::printf("\nComparisons (same run; medians when --benchmark_repetitions > 1):\n");
  for (const RatioLine& line : ComputeRatios(t)) std::printf("  %s\n", line.text.c_str());
  return reporter.errors().empty() ? 0 : 1;
}

}  // namespace
}  // namespace teplug::bench

int main(int argc, char** argv) { return teplug::bench::Main(argc, argv); }
