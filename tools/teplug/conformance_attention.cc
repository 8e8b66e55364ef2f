#include "tools/teplug/conformance_attention.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "teplug/sdk/iids.hpp"
#include "tools/teplug/conformance_attention_call.h"
#include "tools/teplug/conformance_attention_case.h"
#include "tools/teplug/conformance_contract.h"
#include "tools/teplug/tolerances.h"

namespace teplug::cli {
namespace {

// The plugin's outputs against the reference's, one named output at a time;
// the output closest to (or furthest past) its tolerance speaks for the case.
class Comparison {
 public:
  void Add(const std::string& what, double error, double tolerance) {
    outcome_.Include(error, tolerance);
    if (outcome_.max_error == error && outcome_.tolerance == tolerance) worst_ = what;
  }
  // `got` against `want`, both dequantized. A gradient is all zero when
  // every row sees at most one key (softmax then has no slope): then the
  // plugin's max |x| is the error.
  void AddTensor(const HostTensor& got, const HostTensor& want, double tolerance) {
    const std::vector<double> g = got.Values(), w = want.Values();
    double scale = 0, largest = 0;
    for (size_t i = 0; i < w.size(); ++i)
      scale = std::max(scale, std::fabs(w[i])), largest = std::max(largest, std::fabs(g[i]));
    Add(got.name(), scale > 0 ? NormalizedMaxError(g, w) : largest, tolerance);
    if (IsFp8DType(got.dtype())) {
      const double want_amax = RecordedAmax(want),
                   difference = std::fabs(RecordedAmax(got) - want_amax);
      Add(got.name() + ".quant.amax", scale > 0 ? difference / want_amax : difference, tolerance);
    }
  }
  // softmax_lse: where the reference has -inf (a padding row or a row with
  // no visible key) the plugin must too; the finite rest is compared.
  void AddLse(const HostTensor& got, const HostTensor& want, const AttentionCase& c) {
    const std::vector<double> g = got.Values(), w = want.Values();
    std::vector<double> finite_got, finite_want;
    for (size_t i = 0; i < w.size(); ++i) {
      if (std::isinf(w[i]) && w[i] < 0) {
        if (g[i] == w[i]) continue;
        const int64_t row = static_cast<int64_t>(i) % c.seq_q;
        const int64_t head = static_cast<int64_t>(i) / c.seq_q % c.heads;
        const int64_t batch = static_cast<int64_t>(i) / c.seq_q / c.heads;
        return Fail(absl::StrFormat(
            "softmax_lse[%d][%d][%d] is %g where the reference has -inf (a padding row or a row "
            "with no visible key)",
            batch, head, row, g[i]));
      }
      finite_got.push_back(g[i]);
      finite_want.push_back(w[i]);
    }
    Add("softmax_lse", NormalizedMaxError(finite_got, finite_want),
        OutputTolerance(ToleranceKind::kAttentionForward, TEPLUG_DTYPE_FP32));
  }
  void Fail(const std::string& problem) {
    if (problem_.empty()) problem_ = problem;
  }
  bool failed() const { return !problem_.empty(); }

  CaseOutcome Outcome() {
    if (!problem_.empty()) return {false, problem_};
    outcome_.Decide();
    if (!outcome_.passed)
      outcome_.problem = absl::StrFormat("error %.3g > tolerance %.3g in %s", outcome_.max_error,
                                         outcome_.tolerance, worst_);
    return outcome_;
  }

 private:
  CaseOutcome outcome_;
  std::string worst_, problem_;
};

double Tolerance(ToleranceKind kind, int32_t dtype) {
  return IsFp8DType(dtype) ? Fp8AttentionTolerance(kind, dtype) : OutputTolerance(kind, dtype);
}

// With deterministic=1, a second run must give the first run's bytes.
std::string FirstDifference(const std::vector<const HostTensor*>& first,
                            const std::vector<const HostTensor*>& second, const char* op) {
  for (size_t i = 0; i < first.size(); ++i) {
    if (!SameBytes(*first[i], *second[i]))
      return absl::StrCat("deterministic=1 but two ", op, " runs wrote different ",
                          first[i]->name());
  }
  return "";
}

std::vector<const HostTensor*> Gradients(const BackwardOutputs& g) {
  std::vector<const HostTensor*> all = g.d.Buffers();
  if (g.dbias.tensor()->rank > 0) all.push_back(&g.dbias);
  return all;
}

// The backward of the plugin and of the reference, both given the
// reference's forward outputs, compared.
void CompareBackward(const core::Kernel& plugin, const std::string& provider,
                     const core::Kernel& oracle, AttentionInputs* in, const ForwardOutputs& fwd,
                     const CaseDevice* where, Comparison* cmp) {
  BackwardOutputs mine = MakeBackwardOutputs(*in), ref = MakeBackwardOutputs(*in);
  if (std::string e =
          CallBackward(plugin, provider, BackwardArgs(in, fwd, &mine), "the plugin", where);
      !e.empty())
    return cmp->Fail(e);
  if (std::string e =
          CallBackward(oracle, "reference", BackwardArgs(in, fwd, &ref), "the reference");
      !e.empty())
    return cmp->Fail(e);
  if (in->c.deterministic) {
    BackwardOutputs again = MakeBackwardOutputs(*in);
    if (std::string e = CallBackward(plugin, provider, BackwardArgs(in, fwd, &again),
                                     "the plugin (second run)", where);
        !e.empty())
      return cmp->Fail(e);
    if (std::string e = FirstDifference(Gradients(mine), Gradients(again), "backward"); !e.empty())
      return cmp->Fail(e);
  }
  const std::vector<const HostTensor*> got = Gradients(mine), want = Gradients(ref);
  for (size_t i = 0; i < got.size(); ++i) {
    cmp->AddTensor(*got[i], *want[i],
                   Tolerance(ToleranceKind::kAttentionBackward, got[i]->dtype()));
  }
}

// The plugin's calls run on `where`'s device when given, else on host memory.
CaseOutcome RunOn(const core::Kernel& plugin, const std::string& provider,
                  const core::Kernel& oracle, const std::string& text, uint64_t seed,
                  const CaseDevice* where) {
  absl::StatusOr<AttentionCase> c = ParseAttentionCase(text);
  if (!c.ok()) return {false, std::string(c.status().message())};
  std::unique_ptr<AttentionInputs> in = MakeAttentionInputs(*c, seed);
  ForwardOutputs mine = MakeForwardOutputs(*in), ref = MakeForwardOutputs(*in);
  if (std::string e =
          CallForward(plugin, provider, ForwardArgs(in.get(), &mine), "the plugin", where);
      !e.empty())
    return {false, e};
  if (std::string e =
          CallForward(oracle, "reference", ForwardArgs(in.get(), &ref), "the reference");
      !e.empty())
    return {false, e};
  Comparison cmp;
  if (c->deterministic) {
    ForwardOutputs again = MakeForwardOutputs(*in);
    if (std::string e =
            CallForward(plugin, provider, ForwardArgs(in.get(), &again), "the plugin (second run)",
                        where);
        !e.empty())
      return {false, e};
    cmp.Fail(FirstDifference({&mine.o, &mine.lse}, {&again.o, &again.lse}, "forward"));
  }
  cmp.AddTensor(mine.o, ref.o, Tolerance(ToleranceKind::kAttentionForward, c->dtype));
  cmp.AddLse(mine.lse, ref.lse, *c);
  if (c->backward && !cmp.failed())
    CompareBackward(plugin, provider, oracle, in.get(), ref, where, &cmp);
  return cmp.Outcome();
}

std::vector<PlannedCase> Plan(const std::vector<std::string>& claims, bool quick, uint64_t seed) {
  std::vector<PlannedCase> plan;
  for (const PlannedAttentionCase& p : PlanAttentionCases(claims, quick, seed))
    plan.push_back({FormatAttentionCase(p.c), p.seed, AttentionCaseClaims(p.c)});
  return plan;
}

absl::StatusOr<std::vector<std::string>> ParseCase(const std::string& text) {
  absl::StatusOr<AttentionCase> c = ParseAttentionCase(text);
  if (!c.ok()) return c.status();
  return AttentionCaseClaims(*c);
}

absl::StatusOr<core::Selection> Select(const core::Kernel& plugin, const std::string& provider,
                                       const std::string& text, const CaseDevice* where) {
  absl::StatusOr<AttentionCase> c = ParseAttentionCase(text);
  if (!c.ok()) return c.status();
  std::unique_ptr<AttentionInputs> in = MakeAttentionInputs(*c, 0);
  ForwardOutputs out = MakeForwardOutputs(*in);
  const TeplugAttentionFwdArgs a = ForwardArgs(in.get(), &out);
  DeviceStaging staging(where);
  if (std::string e = staging.Stage(StagedTensorsOf(a)); !e.empty())
    return absl::UnavailableError(e);
  return plugin.Select(sdk::kIidAttentionV1, TEPLUG_OP_ATTENTION_FORWARD, &a, provider);
}

// Both head dims together (a case without different head dims keeps them
// equal; fitting to a multiple keeps different ones different); each
// maximum sequence length its own extent.
const std::vector<LimitRule>& Limits() {
  static const std::vector<LimitRule> kRules = {
      {"head_dim_min", LimitKind::kMin, {"head_dim", "head_dim_v"}, 512},
      {"head_dim_max", LimitKind::kMax, {"head_dim", "head_dim_v"}, 512},
      {"head_dim_multiple", LimitKind::kMultiple, {"head_dim", "head_dim_v"}, 512, 1, 8},
      {"max_seqlen_q", LimitKind::kMax, {"seq_q"}, 512},
      {"max_seqlen_kv", LimitKind::kMax, {"seq_kv"}, 512}};
  return kRules;
}

// The forward of `text` on `impl` directly.
RefusalReport Refuses(TeplugObject* impl, const std::string& text, uint64_t seed,
                      const CaseDevice* where) {
  absl::StatusOr<AttentionCase> c = ParseAttentionCase(text);
  if (!c.ok()) return {std::string(c.status().message())};
  std::unique_ptr<AttentionInputs> in = MakeAttentionInputs(*c, seed);
  ForwardOutputs out = MakeForwardOutputs(*in);
  TeplugAttentionFwdArgs a = ForwardArgs(in.get(), &out);
  DeviceStaging staging(where);
  if (std::string e = staging.Stage(StagedTensorsOf(a)); !e.empty()) return {e};
  auto* at = reinterpret_cast<TeplugAttentionV1*>(impl);
  const std::string supports = CheckSupportsReason(
      at->vtbl->supports, impl, TEPLUG_OP_ATTENTION_FORWARD, &a, "the attention forward");
  RefusalReport r = CheckRefusedCall(
      &staging, "attention forward",
      [&](size_t* bytes) {
        return at->vtbl->workspace_size(at, TEPLUG_OP_ATTENTION_FORWARD, &a, bytes);
      },
      [&](void* workspace, size_t bytes, TeplugStream stream) {
        a.workspace = workspace;
        a.workspace_size = bytes;
        a.stream = stream;
        return at->vtbl->forward(at, &a);
      });
  r.supports_reason = supports;
  return r;
}

}  // namespace

const InterfaceConformance& AttentionConformance() {
  static const InterfaceConformance kAttention = [] {
    InterfaceConformance a = {"attention",
                              &AllAttentionClaims,
                              &AttentionClaimCheckable,
                              &Plan,
                              &ParseCase,
                              &RunOnHost<&RunOn>,
                              &SelectOnHost<&Select>,
                              nullptr,
                              nullptr};
    a.run_on_device = &RunOnDevice<&RunOn>;
    a.select_on_device = &SelectOnDevice<&Select>;
    a.limit_rules = &Limits;
    a.refuses = &Refuses;
    return a;
  }();
  return kAttention;
}

}  // namespace teplug::cli
