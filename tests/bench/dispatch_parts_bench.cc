// The steps of a dispatched call with a cached decision, timed one by one,
// to show where BM_DispatchCachedCall's time over BM_DirectCall goes (see
// README.md). Same op as kernel_bench.cc: attention forward, head_dim 128,
// causal, BSHD, fp32. These are not compared with targets; they explain them.
#include <memory>

#include "benchmark/benchmark.h"
#include "core/concurrency/read_mostly.h"
#include "core/kernel/decision_cache.h"
#include "core/ops/modules.h"
#include "core/ops/gemm.h"
#include "core/ops/attention.h"
#include "core/ops/quantizer.h"
#include "core/ops/collective.h"
#include "core/ops/op_signature.h"
#include "core/kernel/testing/fake_calls.h"

namespace teplug::bench {
namespace {

const TeplugAttentionFwdArgs* PartsCallArgs() {
  static const core::testing::AttentionForwardCall* call = new core::testing::AttentionForwardCall(128, 16, 2, 1);
  return call->args();
}

// Taking and dropping the reader guard on the kernel state, as the kernel
// does (the asymmetric fence where membarrier is available)...
void BM_Part1_ReadGuard(benchmark::State& state) {
  core::ReadMostly<int> value(std::make_unique<int>(1));
  for (auto _ : state) {
    auto guard = value.Read();
    benchmark::DoNotOptimize(guard.get());
  }
  state.SetLabel(core::DefaultReaderFence() == core::ReaderFence::kAsymmetric ? "asymmetric" : "symmetric");
}
BENCHMARK(BM_Part1_ReadGuard);

// ...and with the fallback for processes without membarrier: locked
// increments on the thread's own slot.
void BM_Part1_ReadGuardSymmetric(benchmark::State& state) {
  core::ReadMostly<int> value(std::make_unique<int>(1), core::ReaderFence::kSymmetric);
  for (auto _ : state) {
    auto guard = value.Read();
    benchmark::DoNotOptimize(guard.get());
  }
}
BENCHMARK(BM_Part1_ReadGuardSymmetric);

// Building the op signature (the cache key) from the call's arguments; the
// hash is computed as the words are written.
void BM_Part2_BuildSignature(benchmark::State& state) {
  const TeplugAttentionFwdArgs* args = PartsCallArgs();
  int words = 0;
  for (auto _ : state) {
    core::OpSignature sig;
    if (!core::BuildSignature(core::AttentionModule(), TEPLUG_OP_ATTENTION_FORWARD, args,
                              &sig)) {
      return state.SkipWithError("BuildSignature refused the benchmark's args");
    }
    words = sig.size();
    benchmark::DoNotOptimize(sig);
  }
  state.counters["words"] = words;
}
BENCHMARK(BM_Part2_BuildSignature);

// Finding it in the decision cache (a hit: full key comparison).
void BM_Part3_CacheHit(benchmark::State& state) {
  core::DecisionCache cache;
  auto entry = std::make_unique<core::CachedDecision>();
  if (!core::BuildSignature(core::AttentionModule(), TEPLUG_OP_ATTENTION_FORWARD,
                            PartsCallArgs(), &entry->key)) {
    return state.SkipWithError("BuildSignature refused the benchmark's args");
  }
  const core::OpSignature key = entry->key;
  if (cache.Insert(entry) == nullptr) return state.SkipWithError("an empty cache refused an entry");
  for (auto _ : state) {
    benchmark::DoNotOptimize(&key);
    const core::CachedDecision* hit = cache.Find(key);
    benchmark::DoNotOptimize(hit);
  }
}
BENCHMARK(BM_Part3_CacheHit);

}  // namespace
}  // namespace teplug::bench
