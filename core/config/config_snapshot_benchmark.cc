// Measures ConfigSnapshot::Evaluate, which the core runs when its decision
// cache misses: a 24-rule config against random ops, and an op no rule
// matches (the no-allocation path).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "core/config/config_loader.h"
#include "core/config/config_snapshot.h"
#include "core/config/random_op_facts.h"

namespace teplug::config {
namespace {

std::shared_ptr<const ConfigSnapshot> TwentyFourRules() {
  std::string text;
  const char* dtypes[] = {"fp8_e4m3", "bf16", "fp16", "fp32"};
  const char* layouts[] = {"thd", "bshd", "sbhd_sb2hd"};
  for (int i = 0; i < 24; ++i) {
    absl::StrAppend(&text, "rules { name: \"r", i, "\" match { interfaces: \"attention\" ",
                    "dtypes: \"", dtypes[i % 4], "\" layouts: \"", layouts[i % 3],
                    "\" head_dim { min: ", 32 * (i % 5), " } } deny: \"p", i, "\" }\n");
  }
  auto loaded = ParseConfigText(text, "bench");
  if (!loaded.ok()) std::abort();
  return ConfigSnapshot::Create(*std::move(loaded), 1);
}

void BM_EvaluateRandomOps(benchmark::State& state) {
  auto snapshot = TwentyFourRules();
  testing::RandomOpFacts random(1);
  std::vector<OpFacts> ops;
  for (int i = 0; i < 1024; ++i) ops.push_back(random.Next());
  size_t i = 0;
  size_t matched = 0;
  for (auto _ : state) {
    RuleVerdicts verdicts = snapshot->Evaluate(ops[i++ & 1023]);
    matched += verdicts.matched().size();
    benchmark::DoNotOptimize(verdicts);
  }
  state.counters["matched_per_op"] =
      static_cast<double>(matched) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_EvaluateRandomOps);

void BM_EvaluateNoMatch(benchmark::State& state) {
  auto snapshot = TwentyFourRules();
  OpFacts gemm;
  gemm.interface_name = "gemm";
  gemm.op = "gemm";
  gemm.AddName("dtype", "bf16");
  for (auto _ : state) {
    RuleVerdicts verdicts = snapshot->Evaluate(gemm);
    benchmark::DoNotOptimize(verdicts);
  }
}
BENCHMARK(BM_EvaluateNoMatch);

}  // namespace
}  // namespace teplug::config
