#include "tools/teplug/conformance_gemm.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/log/untrusted_text.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "teplug/teplug.h"
#include "tools/teplug/conformance_contract.h"
#include "tools/teplug/conformance_gemm_call.h"
#include "tools/teplug/host_tensor.h"
#include "tools/teplug/tolerances.h"

namespace teplug::cli {
namespace {

constexpr const char* kEpilogueNames[] = {"bias", "gelu", "gelu_aux", "accumulate"};
constexpr int32_t kOperandDTypes[] = {TEPLUG_DTYPE_FP32,     TEPLUG_DTYPE_FP16,
                                      TEPLUG_DTYPE_BF16,     TEPLUG_DTYPE_FP8_E4M3,
                                      TEPLUG_DTYPE_FP8_E5M2, TEPLUG_DTYPE_FP4_E2M1};
constexpr int32_t kOutputDTypes[] = {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP16, TEPLUG_DTYPE_BF16,
                                     TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E5M2};
constexpr int32_t kScalings[] = {TEPLUG_SCALING_PER_TENSOR, TEPLUG_SCALING_MXFP8_1D32,
                                 TEPLUG_SCALING_BLOCK_1D128, TEPLUG_SCALING_BLOCK_2D128};

bool IsFp8Output(int32_t d) { return d == TEPLUG_DTYPE_FP8_E4M3 || d == TEPLUG_DTYPE_FP8_E5M2; }
bool Has(const std::vector<std::string>& claims, const std::string& claim) {
  return HasClaim(claims, claim);
}

}  // namespace

std::string FormatGemmCase(const GemmCase& c) {
  return absl::StrCat("a_dtype=", sdk::DTypeName(c.a_dtype), ",b_dtype=", sdk::DTypeName(c.b_dtype),
                      ",d_dtype=", sdk::DTypeName(c.d_dtype),
                      ",scaling=", sdk::ScalingName(c.scaling), ",bias=", int{c.bias},
                      ",gelu=", int{c.gelu}, ",gelu_aux=", int{c.gelu_aux},
                      ",accumulate=", int{c.accumulate}, ",trans_a=", int{c.trans_a},
                      ",trans_b=", int{c.trans_b}, ",m=", c.m, ",n=", c.n, ",k=", c.k);
}

absl::StatusOr<GemmCase> ParseGemmCase(const std::string& text) {
  GemmCase c;
  std::map<std::string, bool*> flags = {{"bias", &c.bias},         {"gelu", &c.gelu},
                                        {"gelu_aux", &c.gelu_aux}, {"accumulate", &c.accumulate},
                                        {"trans_a", &c.trans_a},   {"trans_b", &c.trans_b}};
  std::map<std::string, int32_t*> dtypes = {
      {"a_dtype", &c.a_dtype}, {"b_dtype", &c.b_dtype}, {"d_dtype", &c.d_dtype}};
  std::map<std::string, int64_t*> dims = {{"m", &c.m}, {"n", &c.n}, {"k", &c.k}};
  const absl::Status parsed =
      ForEachCaseItem(text, [&](const std::string& key, const std::string& value) -> absl::Status {
        auto bad = [&](const std::string& want) { return BadCaseValue(key, value, want); };
        if (auto f = flags.find(key); f != flags.end()) {
          if (value != "0" && value != "1") return bad("0 or 1");
          *f->second = value == "1";
        } else if (auto d = dtypes.find(key); d != dtypes.end()) {
          if (!sdk::ParseDType(value, d->second))
            return bad("a dtype name (fp32, bf16, fp8_e4m3, ...)");
        } else if (auto n = dims.find(key); n != dims.end()) {
          if (!absl::SimpleAtoi(value, n->second) || *n->second < 1 || *n->second > 4096)
            return bad("an integer in [1, 4096]");
        } else if (key == "scaling") {
          bool found = false;
          for (int32_t s = 0; s < TEPLUG_SCALING_COUNT_; ++s) {
            if (value == sdk::ScalingName(s)) c.scaling = s, found = true;
          }
          if (!found) return bad("a scaling mode name (none, per_tensor, mxfp8_1d32, ...)");
        } else {
          return absl::InvalidArgumentError(
              absl::StrCat("--case: unknown key \"", key,
                           "\" (keys: a_dtype, b_dtype, d_dtype, scaling, bias, gelu, "
                           "gelu_aux, accumulate, trans_a, trans_b, m, n, k)"));
        }
        return absl::OkStatus();
      });
  if (!parsed.ok()) return parsed;
  const bool fp4 = c.a_dtype == TEPLUG_DTYPE_FP4_E2M1 || c.b_dtype == TEPLUG_DTYPE_FP4_E2M1;
  if (fp4 && c.k % 2 != 0)
    return BadCaseValue("k", std::to_string(c.k), "even with an fp4_e2m1 operand (two per byte)");
  return c;
}

std::vector<std::string> AllGemmClaims() {
  std::vector<std::string> all;
  for (const char* field : {"a_dtypes", "b_dtypes", "d_dtypes"}) {
    for (int32_t d = 1; d < TEPLUG_DTYPE_COUNT_; ++d)
      all.push_back(Claim(field, sdk::DTypeName(d)));
  }
  for (const char* e : kEpilogueNames) all.push_back(Claim("epilogues", e));
  for (int32_t s = 1; s < TEPLUG_SCALING_COUNT_; ++s)
    all.push_back(Claim("scaling_modes", sdk::ScalingName(s)));
  return all;
}

std::vector<std::string> ClaimsExercised(const GemmCase& c) {
  std::vector<std::string> e = {Claim("a_dtypes", sdk::DTypeName(c.a_dtype)),
                                Claim("b_dtypes", sdk::DTypeName(c.b_dtype)),
                                Claim("d_dtypes", sdk::DTypeName(c.d_dtype))};
  const bool on[] = {c.bias, c.gelu || c.gelu_aux, c.gelu_aux, c.accumulate};
  for (size_t i = 0; i < 4; ++i)
    if (on[i]) e.push_back(Claim("epilogues", kEpilogueNames[i]));
  if (IsQuantizedOperand(c.a_dtype) || IsQuantizedOperand(c.b_dtype))
    e.push_back(Claim("scaling_modes", sdk::ScalingName(c.scaling)));
  return e;
}

bool GemmClaimCheckable(const std::string& claim) {
  std::vector<std::string> can;
  for (const char* field : {"a_dtypes", "b_dtypes"})
    for (int32_t d : kOperandDTypes) can.push_back(Claim(field, sdk::DTypeName(d)));
  for (int32_t d : kOutputDTypes) can.push_back(Claim("d_dtypes", sdk::DTypeName(d)));
  for (const char* e : kEpilogueNames) can.push_back(Claim("epilogues", e));
  for (int32_t s : kScalings) can.push_back(Claim("scaling_modes", sdk::ScalingName(s)));
  return Has(can, claim);
}

std::vector<PlannedGemmCase> PlanGemmCases(const std::vector<std::string>& claims, bool quick,
                                           uint64_t seed) {
  auto declared = [&](const char* field, int32_t d) {
    return Has(claims, Claim(field, sdk::DTypeName(d)));
  };
  auto first = [&](const char* field, std::initializer_list<int32_t> prefer) {
    for (int32_t d : prefer)
      if (declared(field, d)) return d;
    return int32_t{0};
  };
  const int32_t out = first("d_dtypes", {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_FP16,
                                         TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E5M2});
  int32_t scaling = 0;
  for (int32_t s : kScalings)
    if (scaling == 0 && Has(claims, Claim("scaling_modes", sdk::ScalingName(s)))) scaling = s;
  // An operand dtype the other operand can pair with.
  auto partner = [&](const char* field, int32_t d) {
    if (declared(field, d)) return d;
    return IsQuantizedOperand(d)
               ? first(field, {TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E5M2, TEPLUG_DTYPE_FP4_E2M1})
               : first(field, {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_FP16});
  };
  auto buildable = [&](const GemmCase& c) {
    if (c.a_dtype == 0 || c.b_dtype == 0 || c.d_dtype == 0) return false;
    if (IsQuantizedOperand(c.a_dtype) != IsQuantizedOperand(c.b_dtype)) return false;
    if (IsFp8Output(c.d_dtype) && c.accumulate) return false;  // D's old codes have no scale
    return !IsQuantizedOperand(c.a_dtype) || c.scaling != 0;
  };
  std::vector<PlannedGemmCase> plan;
  auto add = [&](GemmCase c) {
    if (!IsQuantizedOperand(c.a_dtype)) c.scaling = 0;
    // Block-scaled cases span several blocks: two 128-element blocks along
    // K (the second partial) and, for block_2d128, two 128-row blocks of A.
    if (c.scaling == TEPLUG_SCALING_BLOCK_1D128 || c.scaling == TEPLUG_SCALING_BLOCK_2D128)
      c.k = 160;
    if (c.scaling == TEPLUG_SCALING_BLOCK_2D128) c.m = 136;
    if (!buildable(c)) return;
    for (const PlannedGemmCase& p : plan)
      if (FormatGemmCase(p.gemm) == FormatGemmCase(c)) return;
    plan.push_back({c, seed + 7919 * plan.size(), ClaimsExercised(c)});
  };
  const int32_t base_in =
      first("a_dtypes", {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_FP16});
  GemmCase base;
  base.a_dtype = base_in;
  base.b_dtype = partner("b_dtypes", base_in);
  base.d_dtype = declared("d_dtypes", base_in) ? base_in : out;
  add(base);
  for (int32_t d : kOperandDTypes) {
    GemmCase c = base;
    c.scaling = scaling;
    if (declared("a_dtypes", d)) {
      c.a_dtype = d;
      c.b_dtype = partner("b_dtypes", d);
      c.d_dtype = IsQuantizedOperand(d) || !declared("d_dtypes", d) ? out : d;
      add(c);
    }
    if (declared("b_dtypes", d)) {
      c.b_dtype = d;
      c.a_dtype = partner("a_dtypes", d);
      c.d_dtype = IsQuantizedOperand(d) || !declared("d_dtypes", d) ? out : d;
      add(c);
    }
  }
  for (int32_t d : kOutputDTypes) {
    if (!declared("d_dtypes", d)) continue;
    GemmCase c = base;
    c.d_dtype = d;
    add(c);
  }
  for (size_t i = 0; i < 4; ++i) {
    if (!Has(claims, Claim("epilogues", kEpilogueNames[i]))) continue;
    GemmCase c = base;
    (i == 0 ? c.bias : i == 1 ? c.gelu : i == 2 ? c.gelu_aux : c.accumulate) = true;
    add(c);
  }
  for (int32_t s : kScalings) {
    if (!Has(claims, Claim("scaling_modes", sdk::ScalingName(s)))) continue;
    GemmCase c = base;
    c.a_dtype = partner("a_dtypes", TEPLUG_DTYPE_FP8_E4M3);
    c.b_dtype = partner("b_dtypes", TEPLUG_DTYPE_FP8_E4M3);
    c.scaling = s;
    c.d_dtype = out;
    add(c);
  }
  if (quick) return plan;
  // Sampled combinations: the covering cases again with random epilogues,
  // transposes and shapes (k stays a multiple of 32 for MXFP8's blocks).
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  const size_t covering = plan.size();
  for (size_t i = 0; i < covering; ++i) {
    GemmCase c = plan[i].gemm;
    for (size_t e = 0; e < 4; ++e) {
      const bool want = Has(claims, Claim("epilogues", kEpilogueNames[e])) && (rng() & 1);
      (e == 0 ? c.bias : e == 1 ? c.gelu : e == 2 ? c.gelu_aux : c.accumulate) = want;
    }
    if (!IsQuantizedOperand(c.a_dtype)) {
      c.trans_a = rng() & 1;
      c.trans_b = rng() & 1;
    }
    if (IsFp8Output(c.d_dtype)) c.accumulate = false;
    c.m = 1 + static_cast<int64_t>(rng() % 40);
    c.n = 1 + static_cast<int64_t>(rng() % 40);
    c.k = 32 * (1 + static_cast<int64_t>(rng() % 3));
    add(c);
  }
  return plan;
}

CaseOutcome RunGemmCase(const core::Kernel& plugin, const std::string& provider,
                        const core::Kernel& oracle, const GemmCase& c, uint64_t seed,
                        const CaseDevice* where) {
  CaseOutcome o;
  // The plugin's inputs are its own (equal) copies: staging moves them.
  GemmInputs mine_in = MakeInputs(c, seed);
  const GemmInputs in = MakeInputs(c, seed);
  GemmOutputs mine = MakeOutputs(c, mine_in), ref = MakeOutputs(c, in);
  const TeplugGemmArgs mine_args = ArgsFor(c, mine_in, &mine), ref_args = ArgsFor(c, in, &ref);
  DeviceStaging staging(where);
  if (std::string e = staging.Stage(StagedTensorsOf(mine_args)); !e.empty()) {
    o.problem = e;
    return o;
  }
  absl::StatusOr<core::Selection> s =
      plugin.Select(sdk::kIidGemmV1, TEPLUG_OP_GEMM, &mine_args, provider);
  if (!s.ok()) {
    o.problem = absl::StrCat("the plugin does not serve a case it declares: ",
                             KernelMessageHead(s.status().message()));
    return o;
  }
  absl::StatusOr<core::Selection> r =
      oracle.Select(sdk::kIidGemmV1, TEPLUG_OP_GEMM, &ref_args, "reference");
  if (!r.ok()) {
    o.problem = absl::StrCat("the reference cannot run this case: ", r.status().message());
    return o;
  }
  if (std::string e = CallWithWorkspace(GemmOf(*s), mine_args, &staging); !e.empty()) {
    o.problem = absl::StrCat("the plugin failed: ", e);
    return o;
  }
  if (std::string e = staging.Finish(); !e.empty()) {
    o.problem = e;
    return o;
  }
  if (std::string e = CallWithWorkspace(GemmOf(*r), ref_args); !e.empty()) {
    o.problem = absl::StrCat("the reference failed: ", e);
    return o;
  }
  // An fp8 D is compared as code * the scale_inv each wrote, and by the amax
  // each recorded (max |result| before the cast: fp32 accumulation error).
  o.Include(NormalizedMaxError(mine.d.Values(), ref.d.Values()),
            OutputTolerance(ToleranceKind::kGemm, c.d_dtype));
  if (IsFp8Output(c.d_dtype)) {
    const TeplugTensor* mine_amax = mine.d.tensor()->quant->amax;
    const TeplugTensor* ref_amax = ref.d.tensor()->quant->amax;
    o.Include(NormalizedMaxError({*static_cast<const float*>(mine_amax->data)},
                                 {*static_cast<const float*>(ref_amax->data)}),
              OutputTolerance(ToleranceKind::kGemm, TEPLUG_DTYPE_FP32));
  }
  if (c.gelu_aux)
    o.Include(NormalizedMaxError(mine.pre_gelu.Values(), ref.pre_gelu.Values()),
              OutputTolerance(ToleranceKind::kGemm, AuxDType(c.d_dtype)));
  o.Decide();
  return o;
}

}  // namespace teplug::cli

namespace teplug::cli {
namespace {

std::vector<PlannedCase> PlanGemm(const std::vector<std::string>& claims, bool quick,
                                  uint64_t seed) {
  std::vector<PlannedCase> out;
  for (const PlannedGemmCase& p : PlanGemmCases(claims, quick, seed))
    out.push_back({FormatGemmCase(p.gemm), p.seed, p.exercises});
  return out;
}

absl::StatusOr<std::vector<std::string>> ParseGemm(const std::string& text) {
  absl::StatusOr<GemmCase> c = ParseGemmCase(text);
  if (!c.ok()) return c.status();
  return ClaimsExercised(*c);
}

CaseOutcome RunGemm(const core::Kernel& plugin, const std::string& provider,
                    const core::Kernel& oracle, const std::string& text, uint64_t seed,
                    const CaseDevice* where) {
  absl::StatusOr<GemmCase> c = ParseGemmCase(text);
  if (!c.ok()) return {false, std::string(c.status().message())};
  return RunGemmCase(plugin, provider, oracle, *c, seed, where);
}

absl::StatusOr<core::Selection> SelectGemm(const core::Kernel& plugin, const std::string& provider,
                                           const std::string& text, const CaseDevice* where) {
  absl::StatusOr<GemmCase> c = ParseGemmCase(text);
  if (!c.ok()) return c.status();
  GemmInputs in = MakeInputs(*c, 0);  // not const: staging may move it
  GemmOutputs out = MakeOutputs(*c, in);
  const TeplugGemmArgs args = ArgsFor(*c, in, &out);
  DeviceStaging staging(where);
  if (std::string e = staging.Stage(StagedTensorsOf(args)); !e.empty())
    return absl::UnavailableError(e);
  return plugin.Select(sdk::kIidGemmV1, TEPLUG_OP_GEMM, &args, provider);
}

std::vector<ContractOutcome> GemmContract(const core::Kernel& plugin, const std::string& provider,
                                          const std::vector<std::string>& claims,
                                          const std::string& base, uint64_t seed,
                                          const std::string& only) {
  absl::StatusOr<GemmCase> c = ParseGemmCase(base);
  if (!c.ok()) return {{"contract", false, std::string(c.status().message())}};
  return RunGemmContractChecks(plugin, provider, claims, *c, seed, only);
}

std::vector<ContractOutcome> GemmContractOnDevice(const core::Kernel& plugin,
                                                  const std::string& provider,
                                                  const std::vector<std::string>& claims,
                                                  const std::string& base, uint64_t seed,
                                                  const std::string& only,
                                                  const CaseDevice& where) {
  absl::StatusOr<GemmCase> c = ParseGemmCase(base);
  if (!c.ok()) return {{"contract", false, std::string(c.status().message())}};
  return RunGemmContractChecks(plugin, provider, claims, *c, seed, only, &where);
}

// max_dim bounds each of M, N and K (probed one at a time); alignment, in
// bytes, every leading dimension: k and n are leading dimensions without
// transposes (A [m,k], B [n,k], D [m,n]), m is one of A^T.
const std::vector<LimitRule>& GemmLimitRules() {
  static const std::vector<LimitRule> kRules = [] {
    std::vector<LimitRule> r;
    for (const char* key : {"m", "n", "k"}) {
      LimitRule max{"max_dim", LimitKind::kMax, {key}, 4096};
      r.push_back(max);
      LimitRule align{"alignment", LimitKind::kMultiple, {key}, 4096, 2};
      align.probe_with = "trans_a=0,trans_b=1";
      align.outside_from = 8;
      align.probe = std::string(key) != "m";
      r.push_back(align);
    }
    return r;
  }();
  return kRules;
}

RefusalReport RefusesGemm(TeplugObject* impl, const std::string& text, uint64_t seed,
                          const CaseDevice* where) {
  absl::StatusOr<GemmCase> c = ParseGemmCase(text);
  if (!c.ok()) return {std::string(c.status().message())};
  GemmInputs in = MakeInputs(*c, seed);  // not const: staging may move it
  GemmOutputs out = MakeOutputs(*c, in);
  TeplugGemmArgs args = ArgsFor(*c, in, &out);
  DeviceStaging staging(where);
  if (std::string e = staging.Stage(StagedTensorsOf(args)); !e.empty()) return {e};
  auto* g = reinterpret_cast<TeplugGemmV1*>(impl);
  const std::string supports =
      CheckSupportsReason(g->vtbl->supports, impl, TEPLUG_OP_GEMM, &args, "the gemm");
  RefusalReport r = CheckRefusedCall(
      &staging, "gemm", [&](size_t* bytes) { return g->vtbl->workspace_size(g, &args, bytes); },
      [&](void* workspace, size_t bytes, TeplugStream stream) {
        args.workspace = workspace;
        args.workspace_size = bytes;
        args.stream = stream;
        return g->vtbl->gemm(g, &args);
      });
  r.supports_reason = supports;
  return r;
}

}  // namespace

const InterfaceConformance& GemmConformance() {
  static const InterfaceConformance kGemm = [] {
    InterfaceConformance g = {"gemm",
                              &AllGemmClaims,
                              &GemmClaimCheckable,
                              &PlanGemm,
                              &ParseGemm,
                              &RunOnHost<&RunGemm>,
                              &SelectOnHost<&SelectGemm>,
                              &GemmContractCheckNames,
                              &GemmContract};
    g.run_on_device = &RunOnDevice<&RunGemm>;
    g.select_on_device = &SelectOnDevice<&SelectGemm>;
    g.device_contract_names = &GemmDeviceContractCheckNames;
    g.device_contract = &GemmContractOnDevice;
    g.limit_rules = &GemmLimitRules;
    g.refuses = &RefusesGemm;
    return g;
  }();
  return kGemm;
}

}  // namespace teplug::cli
