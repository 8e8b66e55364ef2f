// The steps of a dispatched call with a cached decision, timed one by one,
// to show where BM_DispatchCachedCall's time over BM_DirectCall goes (see
// README.md). Same op as kernel_bench.cc: attention forward, head_dim 128,
// causal, BSHD, fp32. These are not compared with targets; they explain them.
#include <memory>

#include "benchmark/benchmark.h"
#include "core/concurrency/read_mostly.h"
#include "core/kernel/decision_cache.h"
#include "core/select/op_description.h"
#include "core/select/op_signature.h"
#include "core/kernel/testing/fake_calls.h"

namespace teplug::bench {
namespace {

const TeplugAttentionFwdArgs* PartsCallArgs() {
  static const core::testing::AttentionForwardCall* call = new core::testing::AttentionForwardCall(128, 16, 2, 1);
  return call->args();
}

// Taking and dropping the reader guard on the kernel state.
void BM_Part1_ReadGuard(benchmark::State& state) {
  core::ReadMostly<int> value(std::make_unique<int>(1));
  for (auto _ : state) {
    auto guard = value.Read();
    benchmark::DoNotOptimize(guard.get());
  }
}
BENCHMARK(BM_Part1_ReadGuard);

// Building the op signature (the cache key) from the call's arguments.
void BM_Part2_BuildSignature(benchmark::State& state) {
  const TeplugAttentionFwdArgs* args = PartsCallArgs();
  int words = 0;
  for (auto _ : state) {
    core::OpSignature sig;
    if (!core::BuildSignature(core::InterfaceKind::kAttention, TEPLUG_OP_ATTENTION_FORWARD, args,
                              &sig)) {
      return state.SkipWithError("BuildSignature refused the benchmark's args");
    }
    words = sig.size();
    benchmark::DoNotOptimize(sig);
  }
  state.counters["words"] = words;
}
BENCHMARK(BM_Part2_BuildSignature);

// Hashing it.
void BM_Part3_HashSignature(benchmark::State& state) {
  core::OpSignature sig;
  core::BuildSignature(core::InterfaceKind::kAttention, TEPLUG_OP_ATTENTION_FORWARD,
                       PartsCallArgs(), &sig);
  for (auto _ : state) {
    benchmark::DoNotOptimize(&sig);
    uint64_t h = sig.Hash();
    benchmark::DoNotOptimize(h);
  }
}
BENCHMARK(BM_Part3_HashSignature);

// The fix README.md proposes for the hash, measured on the same words: the
// same multiply-xorshift mix run as four independent lanes (words i, i+4,
// ...) combined at the end, so the multiplies overlap instead of forming one
// dependency chain of 59 steps. Not used by the core; here to size the fix.
inline uint64_t Mix(uint64_t h, uint64_t w) {
  h ^= w;
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 31);
}
uint64_t FourLaneHash(const core::OpSignature& sig) {
  uint64_t a = 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(sig.size()), b = 0x632BE59BD9B4E019ull,
           c = 0x85EBCA77C2B2AE63ull, d = 0xC2B2AE3D27D4EB4Full;
  const int64_t* w = sig.words();
  int i = 0;
  for (; i + 4 <= sig.size(); i += 4) {
    a = Mix(a, static_cast<uint64_t>(w[i]));
    b = Mix(b, static_cast<uint64_t>(w[i + 1]));
    c = Mix(c, static_cast<uint64_t>(w[i + 2]));
    d = Mix(d, static_cast<uint64_t>(w[i + 3]));
  }
  for (; i < sig.size(); ++i) a = Mix(a, static_cast<uint64_t>(w[i]));
  return Mix(Mix(Mix(a, b), c), d);
}

void BM_Part3_HashSignatureFourLanes(benchmark::State& state) {
  core::OpSignature sig;
  core::BuildSignature(core::InterfaceKind::kAttention, TEPLUG_OP_ATTENTION_FORWARD,
                       PartsCallArgs(), &sig);
  for (auto _ : state) {
    benchmark::DoNotOptimize(&sig);
    uint64_t h = FourLaneHash(sig);
    benchmark::DoNotOptimize(h);
  }
}
BENCHMARK(BM_Part3_HashSignatureFourLanes);

// Finding it in the decision cache (a hit: full key comparison).
void BM_Part4_CacheHit(benchmark::State& state) {
  core::DecisionCache cache;
  auto entry = std::make_unique<core::CachedDecision>();
  core::BuildSignature(core::InterfaceKind::kAttention, TEPLUG_OP_ATTENTION_FORWARD,
                       PartsCallArgs(), &entry->key);
  entry->hash = entry->key.Hash();
  const core::OpSignature key = entry->key;
  const uint64_t hash = entry->hash;
  if (cache.Insert(entry) == nullptr) return state.SkipWithError("an empty cache refused an entry");
  for (auto _ : state) {
    benchmark::DoNotOptimize(&key);
    const core::CachedDecision* hit = cache.Find(key, hash);
    benchmark::DoNotOptimize(hit);
  }
}
BENCHMARK(BM_Part4_CacheHit);

}  // namespace
}  // namespace teplug::bench
