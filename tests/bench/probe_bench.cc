// What the pre-flight probe (core/loader/plugin_probe.h) costs per plugin.
//   bazel run -c opt //tests/bench:probe_bench --
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Times are wall-clock (the child's work is not this process's CPU time).
//   BM_Probe/<MiB>          ProbePluginFile on a small plugin (bench_plugin_00:
//                           one implementation) from a process with <MiB> of
//                           extra touched heap: fork copies the page tables,
//                           so the cost grows with the host's resident size.
//   BM_LoadWithoutProbe     LoadPluginFile of the same plugin, probe off
//                           (dlopen, entry, validation; the dlclose when the
//                           result is dropped is timed too).
//   BM_LoadWithProbe        The same with the probe on: the difference is what
//                           turning the probe on costs a load.
// Each iteration fails the benchmark (SkipWithError) when the plugin is refused.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/loader/plugin_loader.h"
#include "core/loader/plugin_probe.h"
#include "tools/cpp/runfiles/runfiles.h"

namespace teplug::core {
namespace {

std::string g_plugin;  // the resolved path of the small plugin, set in main

const ProviderNameTaken kNoneTaken = [](absl::string_view) -> std::optional<std::string> { return std::nullopt; };

void BM_Probe(benchmark::State& state) {
  // Resident memory the forked child's page tables must copy.
  std::vector<char> ballast(static_cast<size_t>(state.range(0)) << 20);
  // (memset on an empty vector's data(), which may be NULL, is undefined.)
  if (!ballast.empty()) std::memset(ballast.data(), 1, ballast.size());
  benchmark::DoNotOptimize(ballast.data());
  LoadPolicy policy;
  for (auto _ : state) {
    absl::Status probed = ProbePluginFile(g_plugin, policy);
    if (!probed.ok()) {
      state.SkipWithError(std::string(probed.message()).c_str());
      break;
    }
  }
}
BENCHMARK(BM_Probe)->Arg(0)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

void Load(benchmark::State& state, bool probe) {
  LoadPolicy policy;
  policy.probe = probe;
  auto logger = std::make_shared<Logger>(LogLevel::kError);
  for (auto _ : state) {
    absl::StatusOr<LoadedProvider> loaded = LoadPluginFile({g_plugin, "api"}, policy, kNoneTaken, logger);
    if (!loaded.ok()) {
      state.SkipWithError(std::string(loaded.status().message()).c_str());
      break;
    }
  }
}

void BM_LoadWithoutProbe(benchmark::State& state) { Load(state, false); }
void BM_LoadWithProbe(benchmark::State& state) { Load(state, true); }
BENCHMARK(BM_LoadWithoutProbe)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LoadWithProbe)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace teplug::core

int main(int argc, char** argv) {
  std::string error;
  using bazel::tools::cpp::runfiles::Runfiles;
  std::unique_ptr<Runfiles> runfiles(Runfiles::Create(argv[0], &error));
  if (runfiles == nullptr) {
    std::fprintf(stderr, "probe_bench: cannot find the runfiles: %s\n", error.c_str());
    return 1;
  }
  char resolved[4096];
  const std::string path = runfiles->Rlocation("teplug/tests/bench/libteplug_bench_plugin_00.so");
  if (::realpath(path.c_str(), resolved) == nullptr) {
    std::fprintf(stderr, "probe_bench: %s: %s\n", path.c_str(), std::strerror(errno));
    return 1;
  }
  teplug::core::g_plugin = resolved;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
