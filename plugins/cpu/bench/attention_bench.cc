// The cpu provider's attention forward and backward, paired in one process
// with two baselines:
//   gemm       the cpu provider's GEMM (oneDNN) at the same precision on the
//              score product of one head, [seq, d] x [d, seq]: the rate a
//              tiled attention would reach if it ran at GEMM speed
//   attention  the cpu provider's flash-style forward, batch 1, `heads`
//              heads, no mask (4 * seq^2 * d FLOP per head), or its backward
//              (10 * seq^2 * d FLOP per head: five products; half of that
//              with a causal mask), given the forward's O and LSE
//   reference  the reference provider's fp64 forward or backward (small
//              sizes only)
// The backward cases include the main job's shape (bf16, bs3hd, causal,
// batch 2, 4 heads of 32, at --seq 512).
// Both cpu variants use TEPLUG_CPU_THREADS threads (unset: every CPU the
// process may use). Rounds interleave the variants (order reversed in odd rounds); each
// variant's time is the median of its rounds. Ratios are achieved GFLOP/s
// attention/gemm (target >= 0.5) and time reference/attention, as the
// median of the per-round ratios, which pairs runs made under the same load.
//
//   bazel run -c opt //plugins/cpu:attention_bench             # 5 rounds
//   bazel run -c opt //plugins/cpu:attention_bench -- --smoke  # tiny, 1 round
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "tools/bench/paired_rounds.h"
#include "plugins/cpu/provider/attention_provider.h"
#include "plugins/cpu/provider/gemm_provider.h"
#include "plugins/cpu/provider/thread_budget.h"
#include "plugins/reference/provider/attention_provider.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::cpu::bench {
namespace {

using ::teplug::bench::KeepTimes;
using ::teplug::bench::Median;
using ::teplug::bench::PairedRatios;

struct Case {
  int32_t dtype;
  int64_t seq, head_dim, heads;
  bool with_reference;
  bool backward = false;
  int64_t batch = 1;
  // The main job's attention: bs3hd (q = k = v one buffer), causal mask.
  // Otherwise bshd_bshd_bshd without a mask.
  bool packed_causal = false;
};

constexpr double kTarget = 0.5;

// TEPLUG_CPU_THREADS, read once (a malformed value ends the run).
int Threads() {
  static const int threads = [] {
    absl::StatusOr<int> t = provider::ParseCpuThreads(std::getenv(provider::kCpuThreadsVariable));
    if (!t.ok()) {
      std::fprintf(stderr, "attention_bench: %s\n", std::string(t.status().message()).c_str());
      std::exit(2);
    }
    return *t;
  }();
  return threads;
}

const char* DTypeLabel(int32_t d) { return d == TEPLUG_DTYPE_BF16 ? "bf16" : "fp32"; }
std::string CaseName(const Case& c) {
  return std::string(c.backward ? "bwd_" : "") + DTypeLabel(c.dtype) +
         (c.packed_causal ? "/bs3hd_causal" : "") + "/b" + std::to_string(c.batch) + "_s" +
         std::to_string(c.seq) + "_d" + std::to_string(c.head_dim) + "_h" +
         std::to_string(c.heads);
}
double AttentionFlops(const Case& c) {
  const double visible = c.packed_causal ? (c.seq + 1.0) / (2.0 * c.seq) : 1.0;
  return (c.backward ? 10.0 : 4.0) * visible * c.seq * c.seq * c.head_dim * c.heads * c.batch;
}
double GemmFlops(const Case& c) { return 2.0 * c.seq * c.seq * c.head_dim; }

TeplugTensor Tensor(void* data, int32_t dtype, std::vector<int64_t> shape) {
  TeplugTensor t = sdk::Versioned<TeplugTensor>();
  t.data = data;
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(shape.size());
  for (size_t r = 0; r < shape.size(); ++r) t.shape[r] = shape[r];
  return t;
}

// Random bytes of one case, shared by every variant.
struct Operands {
  explicit Operands(const Case& c) : kase(c) {
    const size_t element = c.dtype == TEPLUG_DTYPE_BF16 ? 2 : 4;
    const size_t qkv = static_cast<size_t>(c.batch * c.seq * c.heads * c.head_dim) * element;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    // Packed: q holds Q, K and V; k and v are not read.
    for (std::vector<uint8_t>* v : {&q, &k, &v_, &d_o}) {
      v->resize(v == &q && c.packed_causal ? 3 * qkv : qkv);
      for (size_t i = 0; i < v->size() / element; ++i) {
        const float x = u(rng);
        uint32_t bits;
        std::memcpy(&bits, &x, 4);
        if (element == 4)
          std::memcpy(v->data() + 4 * i, &x, 4);
        else {
          const uint16_t top = static_cast<uint16_t>(bits >> 16);
          std::memcpy(v->data() + 2 * i, &top, 2);
        }
      }
    }
    o.resize(qkv);
    scores.resize(static_cast<size_t>(c.seq * c.seq) * element);
    lse.resize(static_cast<size_t>(c.batch * c.heads * c.seq));
    dq.resize(q.size());
    dk.resize(k.size());
    dv.resize(v_.size());
  }
  Case kase;
  std::vector<uint8_t> q, k, v_, o, scores, d_o, dq, dk, dv;
  std::vector<float> lse;
};

void Gemm(benchmark::State& state, Operands* ops) {
  const Case& c = ops->kase;
  provider::CpuGemm gemm(provider::kGemmPlanCacheCapacity, Threads());
  // D[seq, seq] = Q[seq, d] x K^T: A = Q, B = K given as [seq, d] with trans_b.
  TeplugTensor a = Tensor(ops->q.data(), c.dtype, {c.seq, c.head_dim});
  TeplugTensor b = Tensor(ops->k.data(), c.dtype, {c.seq, c.head_dim});
  TeplugTensor d = Tensor(ops->scores.data(), c.dtype, {c.seq, c.seq});
  TeplugGemmArgs args = sdk::Versioned<TeplugGemmArgs>();
  args.a = &a;
  args.b = &b;
  args.d = &d;
  args.trans_b = 1;
  args.alpha = 1.f;
  if (absl::Status s = gemm.Run(args); !s.ok())
    return state.SkipWithError(std::string(s.message()).c_str());
  for (auto _ : state) benchmark::DoNotOptimize(gemm.Run(args));
  state.counters["GFLOP/s"] =
      benchmark::Counter(GemmFlops(c) * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

// Forward and backward args over one case's operands (training: LSE kept).
struct AttentionArgs {
  explicit AttentionArgs(Operands* ops) {
    const Case& c = ops->kase;
    params = sdk::Versioned<TeplugAttentionParams>();
    params.layout = c.packed_causal ? TEPLUG_LAYOUT_BS3HD : TEPLUG_LAYOUT_BSHD_BSHD_BSHD;
    params.mask_type = c.packed_causal ? TEPLUG_MASK_CAUSAL : TEPLUG_MASK_NONE;
    params.is_training = c.backward ? 1 : 0;
    params.batch = c.batch;
    params.num_heads_q = params.num_heads_kv = c.heads;
    params.head_dim_qk = params.head_dim_v = c.head_dim;
    params.max_seqlen_q = params.max_seqlen_kv = c.seq;
    params.window_left = params.window_right = -1;
    params.softmax_scale = 0.088f;
    const std::vector<int64_t> shape{c.batch, c.seq, c.heads, c.head_dim};
    const std::vector<int64_t> packed{c.batch, c.seq, 3, c.heads, c.head_dim};
    q = Tensor(ops->q.data(), c.dtype, c.packed_causal ? packed : shape);
    k = Tensor(ops->k.data(), c.dtype, shape);
    v = Tensor(ops->v_.data(), c.dtype, shape);
    o = Tensor(ops->o.data(), c.dtype, shape);
    d_o = Tensor(ops->d_o.data(), c.dtype, shape);
    lse = Tensor(ops->lse.data(), TEPLUG_DTYPE_FP32, {c.batch, c.heads, c.seq});
    dq = Tensor(ops->dq.data(), c.dtype, c.packed_causal ? packed : shape);
    dk = Tensor(ops->dk.data(), c.dtype, shape);
    dv = Tensor(ops->dv.data(), c.dtype, shape);
    const TeplugTensor* kt = c.packed_causal ? &q : &k;
    const TeplugTensor* vt = c.packed_causal ? &q : &v;
    args = sdk::Versioned<TeplugAttentionFwdArgs>();
    args.params = &params;
    args.q = &q;
    args.k = kt;
    args.v = vt;
    args.o = &o;
    args.softmax_lse = c.backward ? &lse : nullptr;
    bwd = sdk::Versioned<TeplugAttentionBwdArgs>();
    bwd.params = &params;
    bwd.q = &q;
    bwd.k = kt;
    bwd.v = vt;
    bwd.o = &o;
    bwd.d_o = &d_o;
    bwd.softmax_lse = &lse;
    bwd.dq = &dq;
    bwd.dk = c.packed_causal ? &dq : &dk;
    bwd.dv = c.packed_causal ? &dq : &dv;
  }
  TeplugAttentionParams params;
  TeplugTensor q, k, v, o, d_o, lse, dq, dk, dv;
  TeplugAttentionFwdArgs args;
  TeplugAttentionBwdArgs bwd;
};

// The cpu forward, or for a backward case the cpu backward (after one
// forward for O and LSE).
void Attention(benchmark::State& state, Operands* ops) {
  AttentionArgs a(ops);
  provider::CpuAttention attention(Threads());
  if (absl::Status s = attention.RunForward(a.args); !s.ok()) {
    return state.SkipWithError(std::string(s.message()).c_str());
  }
  const bool backward = ops->kase.backward;
  if (backward) {
    if (absl::Status s = attention.RunBackward(a.bwd); !s.ok())
      return state.SkipWithError(std::string(s.message()).c_str());
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(backward ? attention.RunBackward(a.bwd) : attention.RunForward(a.args));
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      AttentionFlops(ops->kase) * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

// The reference's forward or backward (its backward given the cpu forward's
// O and LSE).
void Reference(benchmark::State& state, Operands* ops) {
  AttentionArgs a(ops);
  const bool backward = ops->kase.backward;
  if (backward) {
    if (absl::Status s = provider::CpuAttention(Threads()).RunForward(a.args); !s.ok())
      return state.SkipWithError(std::string(s.message()).c_str());
  }
  for (auto _ : state) {
    const absl::Status s = backward ? reference::provider::RunReferenceAttentionBackward(a.bwd)
                                    : reference::provider::RunReferenceAttentionForward(a.args);
    if (!s.ok()) return state.SkipWithError(std::string(s.message()).c_str());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      AttentionFlops(ops->kase) * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}


}  // namespace
}  // namespace teplug::cpu::bench

int main(int argc, char** argv) {
  using namespace teplug::cpu::bench;  // NOLINT(build/namespaces): this file's names
  bool smoke = false;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::string(argv[i]) == "--smoke")
      smoke = true;
    else
      rest.push_back(argv[i]);
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  // {dtype, seq, head_dim, heads, with_reference, backward, batch, packed_causal}
  const std::vector<Case> cases =
      smoke ? std::vector<Case>{{TEPLUG_DTYPE_FP32, 64, 32, 2, true},
                                {TEPLUG_DTYPE_BF16, 64, 32, 2, false},
                                {TEPLUG_DTYPE_BF16, 64, 32, 4, true, true, 2, true}}
            : std::vector<Case>{{TEPLUG_DTYPE_FP32, 256, 64, 2, true},
                                {TEPLUG_DTYPE_FP32, 2048, 128, 2, false},
                                {TEPLUG_DTYPE_BF16, 2048, 128, 2, false},
                                {TEPLUG_DTYPE_BF16, 512, 32, 4, true, true, 2, true},
                                {TEPLUG_DTYPE_FP32, 2048, 128, 2, false, true},
                                {TEPLUG_DTYPE_BF16, 2048, 128, 2, false, true}};
  const int rounds = smoke ? 1 : 5;
  const double min_time = smoke ? 0.001 : 0.3;
  std::vector<std::unique_ptr<Operands>> operands;
  for (const Case& c : cases) operands.push_back(std::make_unique<Operands>(c));
  for (int round = 0; round < rounds; ++round) {
    for (auto& o : operands) {
      using Fn = void (*)(benchmark::State&, Operands*);
      std::vector<std::pair<std::string, Fn>> variants = {{"gemm", Gemm}, {"attention", Attention}};
      if (o->kase.with_reference) variants.push_back({"reference", Reference});
      if (round % 2 == 1) std::reverse(variants.begin(), variants.end());
      for (const auto& [kind, fn] : variants) {
        const std::string name = kind + "/" + CaseName(o->kase) + "/round" + std::to_string(round);
        benchmark::RegisterBenchmark(name.c_str(), fn, o.get())
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond)
            ->MinTime(min_time);
      }
    }
  }
  KeepTimes reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf(
      "\nattention forward and backward (bwd_) vs baselines over %d interleaved rounds "
      "(medians):\n",
      rounds);
  int missing = 0;
  for (const Case& c : cases) {
    const std::vector<double> gemm = reporter.Rounds("gemm", CaseName(c)),
                              attention = reporter.Rounds("attention", CaseName(c)),
                              reference = reporter.Rounds("reference", CaseName(c));
    if (gemm.empty() || attention.empty() || (c.with_reference && reference.empty())) {
      std::printf("  %-36s  not measured\n", CaseName(c).c_str());
      ++missing;
      continue;
    }
    const double gemm_rate = GemmFlops(c) / Median(gemm) / 1e6;
    const double attention_rate = AttentionFlops(c) / Median(attention) / 1e6;
    // Rate ratio per round: (attention FLOP / attention time) / (gemm FLOP / gemm time).
    std::vector<double> rate_ratios = PairedRatios(gemm, attention);
    for (double& r : rate_ratios) r *= AttentionFlops(c) / GemmFlops(c);
    const double ratio = Median(rate_ratios);
    std::printf("  %-36s  attention %8.2f GFLOP/s  gemm %8.2f GFLOP/s  attention/gemm %.3f: %s",
                CaseName(c).c_str(), attention_rate, gemm_rate, ratio,
                ratio >= kTarget ? "met" : "NOT met");
    if (c.with_reference) {
      std::printf("  reference %8.3f GFLOP/s  speedup over reference %.1fx",
                  AttentionFlops(c) / Median(reference) / 1e6,
                  Median(PairedRatios(reference, attention)));
    }
    std::printf("\n");
  }
  benchmark::Shutdown();
  return missing == 0 ? 0 : 1;
}
