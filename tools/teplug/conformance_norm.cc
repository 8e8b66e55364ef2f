#include "tools/teplug/conformance_norm.h"

#include <algorithm>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "teplug/teplug.h"
#include "tools/teplug/conformance_contract.h"
#include "tools/teplug/tolerances.h"

namespace teplug::cli {
namespace {

constexpr int32_t kHigh[] = {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP16, TEPLUG_DTYPE_BF16};
constexpr int32_t kFp8[] = {TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E5M2};
constexpr int32_t kScalings[] = {TEPLUG_SCALING_PER_TENSOR, TEPLUG_SCALING_MXFP8_1D32};
constexpr const char* kFeatures[] = {"backward", "zero_centered_gamma", "mx_te_scale"};

bool IsFp8(int32_t d) { return d == TEPLUG_DTYPE_FP8_E4M3 || d == TEPLUG_DTYPE_FP8_E5M2; }

struct NormCase {
  int32_t norm_type = TEPLUG_NORM_LAYERNORM;
  int32_t input = TEPLUG_DTYPE_FP32, weight = TEPLUG_DTYPE_FP32, output = TEPLUG_DTYPE_FP32;
  int32_t scaling = TEPLUG_SCALING_NONE;  // of an fp8 output
  bool zero_centered_gamma = false, backward = false;
  int64_t rows = 17, hidden = 64;
  int32_t mx_scale_rule = TEPLUG_MX_SCALE_OCP;  // of an mxfp8_1d32 output
};

std::string Format(const NormCase& c) {
  return absl::StrCat(
      "norm_type=", sdk::NormTypeName(c.norm_type), ",input_dtype=", sdk::DTypeName(c.input),
      ",weight_dtype=", sdk::DTypeName(c.weight), ",output_dtype=", sdk::DTypeName(c.output),
      ",scaling=", sdk::ScalingName(c.scaling), ",zero_centered_gamma=", int{c.zero_centered_gamma},
      ",backward=", int{c.backward}, ",rows=", c.rows, ",hidden=", c.hidden,
      // Named only when not the default, so OCP cases read as they always did.
      c.mx_scale_rule != TEPLUG_MX_SCALE_OCP
          ? absl::StrCat(",mx_scale_rule=", sdk::MxScaleRuleName(c.mx_scale_rule))
          : "");
}

absl::StatusOr<NormCase> Parse(const std::string& text) {
  NormCase c;
  std::map<std::string, int32_t*> dtypes = {
      {"input_dtype", &c.input}, {"weight_dtype", &c.weight}, {"output_dtype", &c.output}};
  const absl::Status parsed =
      ForEachCaseItem(text, [&](const std::string& key, const std::string& value) -> absl::Status {
        auto bad = [&](const std::string& want) { return BadCaseValue(key, value, want); };
        if (auto d = dtypes.find(key); d != dtypes.end()) {
          if (!sdk::ParseDType(value, d->second))
            return bad("a dtype name (fp32, bf16, fp8_e4m3, ...)");
        } else if (key == "norm_type") {
          if (!sdk::ParseNormType(value, &c.norm_type)) return bad("layernorm or rmsnorm");
        } else if (key == "scaling") {
          bool found = value == "none";
          if (found) c.scaling = TEPLUG_SCALING_NONE;
          for (int32_t s : kScalings)
            if (value == sdk::ScalingName(s)) c.scaling = s, found = true;
          if (!found) return bad("none, per_tensor or mxfp8_1d32");
        } else if (key == "mx_scale_rule") {
          if (!sdk::ParseMxScaleRule(value, &c.mx_scale_rule))
            return bad("ocp or transformer_engine");
        } else if (key == "zero_centered_gamma" || key == "backward") {
          if (value != "0" && value != "1") return bad("0 or 1");
          (key == "backward" ? c.backward : c.zero_centered_gamma) = value == "1";
        } else if (key == "rows" || key == "hidden") {
          int64_t* n = key == "rows" ? &c.rows : &c.hidden;
          if (!absl::SimpleAtoi(value, n) || *n < 1 || *n > 4096)
            return bad("an integer in [1, 4096]");
        } else {
          return absl::InvalidArgumentError(
              absl::StrCat("--case: unknown key \"", key,
                           "\" (keys: norm_type, input_dtype, weight_dtype, output_dtype, scaling, "
                           "zero_centered_gamma, backward, rows, hidden, mx_scale_rule)"));
        }
        return absl::OkStatus();
      });
  if (!parsed.ok()) return parsed;
  if (c.mx_scale_rule != TEPLUG_MX_SCALE_OCP &&
      (!IsFp8(c.output) || c.scaling != TEPLUG_SCALING_MXFP8_1D32))
    return BadCaseValue("mx_scale_rule", sdk::MxScaleRuleName(c.mx_scale_rule),
                        "ocp unless the output is fp8 in mxfp8_1d32 scaling");
  return c;
}

std::vector<std::string> Exercised(const NormCase& c) {
  std::vector<std::string> e = {Claim("input_dtypes", sdk::DTypeName(c.input)),
                                Claim("weight_dtypes", sdk::DTypeName(c.weight)),
                                Claim("output_dtypes", sdk::DTypeName(c.output)),
                                Claim("norm_types", sdk::NormTypeName(c.norm_type))};
  if (IsFp8(c.output)) e.push_back(Claim("scaling_modes", sdk::ScalingName(c.scaling)));
  if (c.backward) e.push_back(Claim("features", "backward"));
  if (c.zero_centered_gamma) e.push_back(Claim("features", "zero_centered_gamma"));
  if (c.mx_scale_rule == TEPLUG_MX_SCALE_TRANSFORMER_ENGINE)
    e.push_back(Claim("features", "mx_te_scale"));
  return e;
}

std::vector<std::string> AllClaims() {
  std::vector<std::string> all;
  for (const char* field : {"input_dtypes", "weight_dtypes", "output_dtypes"})
    for (int32_t d = 1; d < TEPLUG_DTYPE_COUNT_; ++d)
      all.push_back(Claim(field, sdk::DTypeName(d)));
  for (int32_t t = 0; t < TEPLUG_NORM_TYPE_COUNT_; ++t)
    all.push_back(Claim("norm_types", sdk::NormTypeName(t)));
  for (int32_t s = 1; s < TEPLUG_SCALING_COUNT_; ++s)
    all.push_back(Claim("scaling_modes", sdk::ScalingName(s)));
  for (const char* f : kFeatures) all.push_back(Claim("features", f));
  return all;
}

bool Checkable(const std::string& claim) {
  std::vector<std::string> can;
  for (int32_t d : kHigh) {
    for (const char* field : {"input_dtypes", "weight_dtypes", "output_dtypes"})
      can.push_back(Claim(field, sdk::DTypeName(d)));
  }
  for (int32_t d : kFp8) can.push_back(Claim("output_dtypes", sdk::DTypeName(d)));
  for (int32_t t = 0; t < TEPLUG_NORM_TYPE_COUNT_; ++t)
    can.push_back(Claim("norm_types", sdk::NormTypeName(t)));
  for (int32_t s : kScalings) can.push_back(Claim("scaling_modes", sdk::ScalingName(s)));
  for (const char* f : kFeatures) can.push_back(Claim("features", f));
  return HasClaim(can, claim);
}

std::vector<PlannedCase> Plan(const std::vector<std::string>& claims, bool quick, uint64_t seed) {
  auto declared = [&](const char* field, const std::string& m) {
    return HasClaim(claims, Claim(field, m));
  };
  auto pick = [&](const char* field, auto&& all) {
    std::vector<int32_t> out;
    for (int32_t d : all)
      if (declared(field, sdk::DTypeName(d))) out.push_back(d);
    return out;
  };
  const std::vector<int32_t> ins = pick("input_dtypes", kHigh),
                             weights = pick("weight_dtypes", kHigh);
  std::vector<int32_t> outs = pick("output_dtypes", kHigh), fp8 = pick("output_dtypes", kFp8);
  std::vector<int32_t> types, modes;
  for (int32_t t = 0; t < TEPLUG_NORM_TYPE_COUNT_; ++t)
    if (declared("norm_types", sdk::NormTypeName(t))) types.push_back(t);
  for (int32_t s : kScalings)
    if (declared("scaling_modes", sdk::ScalingName(s))) modes.push_back(s);
  std::vector<PlannedCase> plan;
  if (ins.empty() || weights.empty() || (outs.empty() && (fp8.empty() || modes.empty())) ||
      types.empty())
    return plan;
  auto add = [&](NormCase c) {
    if (!IsFp8(c.output)) c.scaling = TEPLUG_SCALING_NONE;
    const std::string text = Format(c);
    for (const PlannedCase& p : plan)
      if (p.text == text) return;
    plan.push_back({text, seed + 7919 * plan.size(), Exercised(c)});
  };
  const bool backward = declared("features", "backward");
  NormCase base;
  base.norm_type = types[0];
  base.input = ins[0];
  base.weight = weights[0];
  base.output = outs.empty() ? fp8[0] : outs[0];
  base.scaling = outs.empty() ? modes[0] : TEPLUG_SCALING_NONE;
  add(base);
  for (int32_t t : types) {
    NormCase c = base;
    c.norm_type = t;
    c.backward = backward;
    add(c);
  }
  for (int32_t d : ins) {
    NormCase c = base;
    c.input = d;
    add(c);
  }
  for (int32_t d : weights) {
    NormCase c = base;
    c.weight = d;
    add(c);
  }
  for (int32_t d : outs) {
    NormCase c = base;
    c.output = d;
    add(c);
  }
  for (int32_t d : fp8) {
    for (int32_t s : modes) {
      NormCase c = base;
      c.output = d;
      c.scaling = s;
      add(c);
    }
  }
  if (declared("features", "zero_centered_gamma")) {
    NormCase c = base;
    c.zero_centered_gamma = true;
    c.backward = backward;
    add(c);
  }
  if (declared("features", "mx_te_scale") && !fp8.empty() &&
      std::find(modes.begin(), modes.end(), TEPLUG_SCALING_MXFP8_1D32) != modes.end()) {
    NormCase c = base;
    c.output = fp8[0];
    c.scaling = TEPLUG_SCALING_MXFP8_1D32;
    c.mx_scale_rule = TEPLUG_MX_SCALE_TRANSFORMER_ENGINE;
    add(c);
  }
  if (quick) return plan;
  std::mt19937_64 rng(seed ^ 0x2545f4914f6cdd1dull);
  const size_t covering = plan.size();
  for (size_t i = 0; i < covering; ++i) {
    absl::StatusOr<NormCase> c = Parse(plan[i].text);
    c->norm_type = types[rng() % types.size()];
    c->backward = backward && (rng() & 1);
    c->zero_centered_gamma = declared("features", "zero_centered_gamma") && (rng() & 1);
    c->rows = 1 + static_cast<int64_t>(rng() % 40);
    c->hidden = 32 * (1 + static_cast<int64_t>(rng() % 4));
    add(*c);
  }
  return plan;
}

absl::StatusOr<std::vector<std::string>> ParseCase(const std::string& text) {
  absl::StatusOr<NormCase> c = Parse(text);
  if (!c.ok()) return c.status();
  return Exercised(*c);
}

// Every tensor of forward or backward `args` (the case's own, which staging
// may move), each marked input or output.
std::vector<StagedTensor> StagedTensorsOf(int32_t op, const void* args) {
  auto in = [](const TeplugTensor* t) { return StagedTensor{const_cast<TeplugTensor*>(t), false}; };
  if (op == TEPLUG_NORM_OP_FORWARD) {
    const auto* a = static_cast<const TeplugNormFwdArgs*>(args);
    return {in(a->x), in(a->gamma), in(a->beta), {a->y, true}, {a->mu, true}, {a->rsigma, true}};
  }
  const auto* a = static_cast<const TeplugNormBwdArgs*>(args);
  return {in(a->dy),    in(a->x),        in(a->mu),       in(a->rsigma),
          in(a->gamma), {a->dx, true}, {a->dgamma, true}, {a->dbeta, true}};
}

// Selects `provider`'s norm for `op` with `args` and calls it with exactly
// the workspace it asks for, on `where`'s device (its tensors staged there)
// when given; "" on success, else what failed.
std::string Call(const core::Kernel& kernel, const std::string& provider, int32_t op, void* args,
                 const char* who, const CaseDevice* where = nullptr) {
  DeviceStaging staging(where);
  if (std::string e = staging.Stage(StagedTensorsOf(op, args)); !e.empty())
    return absl::StrCat(who, ": ", e);
  absl::StatusOr<core::Selection> s = kernel.Select(sdk::kIidNormV1, op, args, provider);
  if (!s.ok())
    return absl::StrCat(who, " does not serve it: ", KernelMessageHead(s.status().message()));
  auto* n = s->as<TeplugNormV1>();
  size_t bytes = 0;
  if (std::string e = TakeError(n->vtbl->workspace_size(n, op, args, &bytes), "workspace_size");
      !e.empty())
    return absl::StrCat(who, " failed: ", e);
  void* workspace = nullptr;
  if (std::string e = staging.Workspace(bytes, &workspace); !e.empty())
    return absl::StrCat(who, ": ", e);
  TeplugError* e;
  if (op == TEPLUG_NORM_OP_FORWARD) {
    auto* a = static_cast<TeplugNormFwdArgs*>(args);
    a->workspace = workspace;
    a->workspace_size = bytes;
    a->stream = staging.stream();
    e = n->vtbl->forward(n, a);
  } else {
    auto* a = static_cast<TeplugNormBwdArgs*>(args);
    a->workspace = workspace;
    a->workspace_size = bytes;
    a->stream = staging.stream();
    e = n->vtbl->backward(n, a);
  }
  std::string text = TakeError(e, op == TEPLUG_NORM_OP_FORWARD ? "forward" : "backward");
  if (!text.empty()) return absl::StrCat(who, " failed: ", text);
  if (std::string f = staging.Finish(); !f.empty()) return absl::StrCat(who, ": ", f);
  return "";
}

// The outputs of one run: forward's y, mu, rsigma; backward's dx, dgamma, dbeta.
struct NormOutputs {
  HostTensor y, mu, rsigma, dx, dgamma, dbeta;
};
NormOutputs MakeOutputs(const NormCase& c) {
  NormOutputs o{HostTensor("y", c.output, {c.rows, c.hidden}),
                HostTensor("mu", TEPLUG_DTYPE_FP32, {c.rows}),
                HostTensor("rsigma", TEPLUG_DTYPE_FP32, {c.rows}),
                HostTensor("dx", c.input, {c.rows, c.hidden}),
                HostTensor("dgamma", c.weight, {c.hidden}),
                HostTensor("dbeta", c.weight, {c.hidden})};
  if (IsFp8(c.output)) o.y.AttachQuantization(c.scaling);
  return o;
}

// The forward of `c` on x, gamma (and beta for LayerNorm) into `out`.
TeplugNormFwdArgs ForwardArgs(const NormCase& c, const HostTensor& x, const HostTensor& gamma,
                              const HostTensor& beta, NormOutputs* out) {
  const bool layernorm = c.norm_type == TEPLUG_NORM_LAYERNORM;
  TeplugNormFwdArgs a = sdk::Versioned<TeplugNormFwdArgs>();
  a.norm_type = c.norm_type;
  a.zero_centered_gamma = c.zero_centered_gamma;
  a.epsilon = 1e-5f;
  a.x = x.tensor();
  a.gamma = gamma.tensor();
  a.beta = layernorm ? beta.tensor() : nullptr;
  a.y = out->y.tensor();
  a.mu = layernorm ? out->mu.tensor() : nullptr;
  a.rsigma = out->rsigma.tensor();
  a.mx_scale_rule = c.mx_scale_rule;
  return a;
}

absl::StatusOr<core::Selection> Select(const core::Kernel& plugin, const std::string& provider,
                                       const std::string& text, const CaseDevice* where) {
  absl::StatusOr<NormCase> c = Parse(text);
  if (!c.ok()) return c.status();
  HostTensor x("x", c->input, {c->rows, c->hidden}), gamma("gamma", c->weight, {c->hidden}),
      beta("beta", c->weight, {c->hidden});
  NormOutputs out = MakeOutputs(*c);
  const TeplugNormFwdArgs a = ForwardArgs(*c, x, gamma, beta, &out);
  DeviceStaging staging(where);
  if (std::string e = staging.Stage(StagedTensorsOf(TEPLUG_NORM_OP_FORWARD, &a)); !e.empty())
    return absl::UnavailableError(e);
  return plugin.Select(sdk::kIidNormV1, TEPLUG_NORM_OP_FORWARD, &a, provider);
}

// The plugin's calls run on `where`'s device when given, else on host memory.
CaseOutcome RunOn(const core::Kernel& plugin, const std::string& provider,
                  const core::Kernel& oracle, const std::string& text, uint64_t seed,
                  const CaseDevice* where) {
  absl::StatusOr<NormCase> c = Parse(text);
  if (!c.ok()) return {false, std::string(c.status().message())};
  const bool layernorm = c->norm_type == TEPLUG_NORM_LAYERNORM;
  std::mt19937_64 rng(seed);
  HostTensor x("x", c->input, {c->rows, c->hidden}), gamma("gamma", c->weight, {c->hidden}),
      beta("beta", c->weight, {c->hidden}), dy("dy", c->input, {c->rows, c->hidden});
  for (HostTensor* t : {&x, &gamma, &beta, &dy}) FillNonZero(t, &rng);
  NormOutputs mine = MakeOutputs(*c), ref = MakeOutputs(*c);
  TeplugNormFwdArgs mine_fwd = ForwardArgs(*c, x, gamma, beta, &mine);
  TeplugNormFwdArgs ref_fwd = ForwardArgs(*c, x, gamma, beta, &ref);
  if (std::string e =
          Call(plugin, provider, TEPLUG_NORM_OP_FORWARD, &mine_fwd, "the plugin", where);
      !e.empty())
    return {false, e};
  if (std::string e = Call(oracle, "reference", TEPLUG_NORM_OP_FORWARD, &ref_fwd, "the reference");
      !e.empty())
    return {false, e};
  CaseOutcome o;
  o.Include(NormalizedMaxError(mine.y.Values(), ref.y.Values()),
            IsFp8(c->output) ? kQuantizeVsReferenceTolerance
                             : OutputTolerance(ToleranceKind::kGemm, c->output));
  o.Include(NormalizedMaxError(mine.rsigma.Values(), ref.rsigma.Values()),
            OutputTolerance(ToleranceKind::kGemm, TEPLUG_DTYPE_FP32));
  if (layernorm) {
    o.Include(NormalizedMaxError(mine.mu.Values(), ref.mu.Values()),
              OutputTolerance(ToleranceKind::kGemm, TEPLUG_DTYPE_FP32));
  }
  // quantizer.h's rule (the one mx_scale_rule names) fixes each MX block's
  // scale from the block's fp32 maximum, so implementations whose fp32 y
  // differ in the last bits still agree unless a maximum lies on a
  // power-of-two boundary; the rule followed shows here, where the codes'
  // tolerance would not tell the two rules apart.
  if (IsFp8(c->output) && c->scaling == TEPLUG_SCALING_MXFP8_1D32) {
    if (std::string d = FirstDifference("y's MX block scales", mine.y.tensor()->quant->scale_inv,
                                        ref.y.tensor()->quant->scale_inv);
        !d.empty())
      return {false, d};
  }
  if (c->backward) {
    // Both from the reference's mu and rsigma, so the backward is compared alone.
    auto backward_args = [&](NormOutputs* out) {
      TeplugNormBwdArgs a = sdk::Versioned<TeplugNormBwdArgs>();
      a.norm_type = c->norm_type;
      a.zero_centered_gamma = c->zero_centered_gamma;
      a.dy = dy.tensor();
      a.x = x.tensor();
      a.mu = layernorm ? ref.mu.tensor() : nullptr;
      a.rsigma = ref.rsigma.tensor();
      a.gamma = gamma.tensor();
      a.dx = out->dx.tensor();
      a.dgamma = out->dgamma.tensor();
      a.dbeta = layernorm ? out->dbeta.tensor() : nullptr;
      return a;
    };
    TeplugNormBwdArgs mine_bwd = backward_args(&mine), ref_bwd = backward_args(&ref);
    if (std::string e =
            Call(plugin, provider, TEPLUG_NORM_OP_BACKWARD, &mine_bwd, "the plugin", where);
        !e.empty())
      return {false, e};
    if (std::string e =
            Call(oracle, "reference", TEPLUG_NORM_OP_BACKWARD, &ref_bwd, "the reference");
        !e.empty())
      return {false, e};
    o.Include(NormalizedMaxError(mine.dx.Values(), ref.dx.Values()),
              OutputTolerance(ToleranceKind::kGemm, c->input));
    o.Include(NormalizedMaxError(mine.dgamma.Values(), ref.dgamma.Values()),
              OutputTolerance(ToleranceKind::kGemm, c->weight));
    if (layernorm) {
      o.Include(NormalizedMaxError(mine.dbeta.Values(), ref.dbeta.Values()),
                OutputTolerance(ToleranceKind::kGemm, c->weight));
    }
  }
  o.Decide();
  return o;
}

const std::vector<LimitRule>& Limits() {
  static const std::vector<LimitRule> kRules = {
      {"hidden_min", LimitKind::kMin, {"hidden"}, 4096},
      {"hidden_max", LimitKind::kMax, {"hidden"}, 4096},
      {"hidden_multiple", LimitKind::kMultiple, {"hidden"}, 4096}};
  return kRules;
}

// The forward of `text` on `impl` directly.
RefusalReport Refuses(TeplugObject* impl, const std::string& text, uint64_t seed,
                      const CaseDevice* where) {
  absl::StatusOr<NormCase> c = Parse(text);
  if (!c.ok()) return {std::string(c.status().message())};
  std::mt19937_64 rng(seed);
  HostTensor x("x", c->input, {c->rows, c->hidden}), gamma("gamma", c->weight, {c->hidden}),
      beta("beta", c->weight, {c->hidden});
  for (HostTensor* t : {&x, &gamma, &beta}) FillNonZero(t, &rng);
  NormOutputs out = MakeOutputs(*c);
  TeplugNormFwdArgs a = ForwardArgs(*c, x, gamma, beta, &out);
  DeviceStaging staging(where);
  if (std::string e = staging.Stage(StagedTensorsOf(TEPLUG_NORM_OP_FORWARD, &a)); !e.empty())
    return {e};
  auto* n = reinterpret_cast<TeplugNormV1*>(impl);
  const std::string supports = CheckSupportsReason(n->vtbl->supports, impl,
                                                   TEPLUG_NORM_OP_FORWARD, &a, "the norm forward");
  RefusalReport r = CheckRefusedCall(
      &staging, "norm forward",
      [&](size_t* bytes) {
        return n->vtbl->workspace_size(n, TEPLUG_NORM_OP_FORWARD, &a, bytes);
      },
      [&](void* workspace, size_t bytes, TeplugStream stream) {
        a.workspace = workspace;
        a.workspace_size = bytes;
        a.stream = stream;
        return n->vtbl->forward(n, &a);
      });
  r.supports_reason = supports;
  return r;
}

}  // namespace

const InterfaceConformance& NormConformance() {
  static const InterfaceConformance kNorm = [] {
    InterfaceConformance n = {"norm",
                              &AllClaims,
                              &Checkable,
                              &Plan,
                              &ParseCase,
                              &RunOnHost<&RunOn>,
                              &SelectOnHost<&Select>,
                              nullptr,
                              nullptr};
    n.run_on_device = &RunOnDevice<&RunOn>;
    n.select_on_device = &SelectOnDevice<&Select>;
    n.limit_rules = &Limits;
    n.refuses = &Refuses;
    return n;
  }();
  return kNorm;
}

}  // namespace teplug::cli
