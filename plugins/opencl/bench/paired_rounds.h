// What the opencl benchmarks share: their flags, the interleaved registration
// of two variants per round (the first variant leads in even rounds, the
// second in odd ones, so load drifts hit both alike), a reporter that keeps
// each run's time, and medians over rounds (tools/bench/paired_rounds.h).
// Benchmarks are named "<variant>/<case>/round<N>".
#ifndef TEPLUG_PLUGINS_OPENCL_BENCH_PAIRED_ROUNDS_H_
#define TEPLUG_PLUGINS_OPENCL_BENCH_PAIRED_ROUNDS_H_

#include <functional>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/kernel/kernel.h"
#include "tools/bench/paired_rounds.h"
#include "teplug/status.h"

namespace teplug::opencl::bench {

// --smoke (tiny shapes, one round) and --plugin=PATH (required); the rest is
// left for benchmark::Initialize.
struct BenchFlags {
  bool smoke = false;
  std::string plugin;
  std::vector<char*> rest;
};
// False (after printing why, naming `program`) when --plugin is missing.
bool ParseBenchFlags(int argc, char** argv, const char* program, BenchFlags* out);

// A kernel (process-wide, never destroyed) that loaded `plugin`, with the
// built-in providers linked into the benchmark when `builtins`; NULL after
// printing why (naming `program`) when it cannot be made.
core::Kernel* BenchKernel(const std::string& plugin, bool builtins, const char* program);

// Calls `call` once (warm-up: the decision cache, program builds), then for
// the benchmark's iterations; a failing call stops the benchmark with its
// message. Counts GFLOP/s from `flops` per call; labels the run `label`.
void TimeCalls(benchmark::State& state, double flops, const std::string& label,
               const std::function<TeplugError*()>& call);

// One variant of a case: its name and body.
struct Variant {
  std::string name;
  std::function<void(benchmark::State&)> run;
};
// Registers `a` and `b` on `case_name` for `round`, in the round's order.
void RegisterPair(int round, const std::string& case_name, double min_time, const Variant& a,
                  const Variant& b);

// The reporter and medians every provider's benchmarks use.
using ::teplug::bench::KeepTimes;
using ::teplug::bench::Median;
using ::teplug::bench::MedianOfPairedRatios;

}  // namespace teplug::opencl::bench

#endif  // TEPLUG_PLUGINS_OPENCL_BENCH_PAIRED_ROUNDS_H_
