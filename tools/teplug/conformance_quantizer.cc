#include "tools/teplug/conformance_quantizer.h"

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

constexpr int32_t kInputs[] = {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP16, TEPLUG_DTYPE_BF16};
constexpr int32_t kOutputs[] = {TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E5M2};
constexpr int32_t kScalings[] = {TEPLUG_SCALING_PER_TENSOR, TEPLUG_SCALING_MXFP8_1D32};
constexpr const char* kFeatures[] = {"columnwise", "dequantize", "current_scaling",
                                     "delayed_scaling"};

struct QuantizeCase {
  int32_t input = TEPLUG_DTYPE_FP32, output = TEPLUG_DTYPE_FP8_E4M3;
  int32_t scaling = TEPLUG_SCALING_PER_TENSOR;
  bool dequantize = false;
  int64_t rows = 17, cols = 64;
};

std::string Format(const QuantizeCase& c) {
  return absl::StrCat("input_dtype=", sdk::DTypeName(c.input),
                      ",output_dtype=", sdk::DTypeName(c.output),
                      ",scaling=", sdk::ScalingName(c.scaling), ",dequantize=", int{c.dequantize},
                      ",rows=", c.rows, ",cols=", c.cols);
}

absl::StatusOr<QuantizeCase> Parse(const std::string& text) {
  QuantizeCase c;
  const absl::Status parsed =
      ForEachCaseItem(text, [&](const std::string& key, const std::string& value) -> absl::Status {
        auto bad = [&](const std::string& want) { return BadCaseValue(key, value, want); };
        if (key == "input_dtype" || key == "output_dtype") {
          if (!sdk::ParseDType(value, key == "input_dtype" ? &c.input : &c.output))
            return bad("a dtype name (fp32, bf16, fp8_e4m3, ...)");
        } else if (key == "scaling") {
          bool found = false;
          for (int32_t s : kScalings)
            if (value == sdk::ScalingName(s)) c.scaling = s, found = true;
          if (!found) return bad("per_tensor or mxfp8_1d32");
        } else if (key == "dequantize") {
          if (value != "0" && value != "1") return bad("0 or 1");
          c.dequantize = value == "1";
        } else if (key == "rows" || key == "cols") {
          int64_t* n = key == "rows" ? &c.rows : &c.cols;
          if (!absl::SimpleAtoi(value, n) || *n < 1 || *n > 4096)
            return bad("an integer in [1, 4096]");
        } else {
          return absl::InvalidArgumentError(absl::StrCat(
              "--case: unknown key \"", key,
              "\" (keys: input_dtype, output_dtype, scaling, dequantize, rows, cols)"));
        }
        return absl::OkStatus();
      });
  if (!parsed.ok()) return parsed;
  return c;
}

std::vector<std::string> Exercised(const QuantizeCase& c) {
  std::vector<std::string> e = {Claim("input_dtypes", sdk::DTypeName(c.input)),
                                Claim("output_dtypes", sdk::DTypeName(c.output)),
                                Claim("scaling_modes", sdk::ScalingName(c.scaling))};
  if (c.scaling == TEPLUG_SCALING_PER_TENSOR) e.push_back(Claim("features", "current_scaling"));
  if (c.dequantize) e.push_back(Claim("features", "dequantize"));
  return e;
}

std::vector<std::string> AllClaims() {
  std::vector<std::string> all;
  for (const char* field : {"input_dtypes", "output_dtypes"})
    for (int32_t d = 1; d < TEPLUG_DTYPE_COUNT_; ++d)
      all.push_back(Claim(field, sdk::DTypeName(d)));
  for (int32_t s = 1; s < TEPLUG_SCALING_COUNT_; ++s)
    all.push_back(Claim("scaling_modes", sdk::ScalingName(s)));
  for (const char* f : kFeatures) all.push_back(Claim("features", f));
  return all;
}

bool Checkable(const std::string& claim) {
  std::vector<std::string> can;
  for (int32_t d : kInputs) can.push_back(Claim("input_dtypes", sdk::DTypeName(d)));
  for (int32_t d : kOutputs) can.push_back(Claim("output_dtypes", sdk::DTypeName(d)));
  for (int32_t s : kScalings) can.push_back(Claim("scaling_modes", sdk::ScalingName(s)));
  can.push_back(Claim("features", "current_scaling"));
  can.push_back(Claim("features", "dequantize"));
  return HasClaim(can, claim);
}

std::vector<PlannedCase> Plan(const std::vector<std::string>& claims, bool quick, uint64_t seed) {
  auto declared = [&](const char* field, const std::string& m) {
    return HasClaim(claims, Claim(field, m));
  };
  std::vector<int32_t> ins, outs, modes;
  for (int32_t d : kInputs)
    if (declared("input_dtypes", sdk::DTypeName(d))) ins.push_back(d);
  for (int32_t d : kOutputs)
    if (declared("output_dtypes", sdk::DTypeName(d))) outs.push_back(d);
  for (int32_t s : kScalings) {
    // Per-tensor scaling is served with the current-scaling recipe.
    const bool usable = s != TEPLUG_SCALING_PER_TENSOR || declared("features", "current_scaling");
    if (declared("scaling_modes", sdk::ScalingName(s)) && usable) modes.push_back(s);
  }
  std::vector<PlannedCase> plan;
  if (ins.empty() || outs.empty() || modes.empty()) return plan;
  const bool dequantize = declared("features", "dequantize");
  auto add = [&](QuantizeCase c) {
    const std::string text = Format(c);
    for (const PlannedCase& p : plan)
      if (p.text == text) return;
    plan.push_back({text, seed + 7919 * plan.size(), Exercised(c)});
  };
  QuantizeCase base{ins[0], outs[0], modes[0], dequantize, 17, 64};
  add(base);
  for (int32_t d : ins) add({d, outs[0], modes[0], dequantize, 17, 64});
  for (int32_t d : outs) add({ins[0], d, modes[0], dequantize, 17, 64});
  for (int32_t s : modes) add({ins[0], outs[0], s, dequantize, 17, 64});
  if (quick) return plan;
  std::mt19937_64 rng(seed ^ 0x51ed270b27a5c3a1ull);
  for (int i = 0; i < 6; ++i) {
    add({ins[rng() % ins.size()], outs[rng() % outs.size()], modes[rng() % modes.size()],
         dequantize && (rng() & 1), 1 + static_cast<int64_t>(rng() % 40),
         32 * (1 + static_cast<int64_t>(rng() % 4))});
  }
  return plan;
}

absl::StatusOr<std::vector<std::string>> ParseCase(const std::string& text) {
  absl::StatusOr<QuantizeCase> c = Parse(text);
  if (!c.ok()) return c.status();
  return Exercised(*c);
}

TeplugQuantizerV1* QuantizerOf(const core::Selection& s) { return s.as<TeplugQuantizerV1>(); }

// Selects `provider`'s quantizer for `op` with `args` in `kernel` and calls
// it; "" on success, else what failed.
std::string Call(const core::Kernel& kernel, const std::string& provider, int32_t op,
                 const void* args, const char* who) {
  absl::StatusOr<core::Selection> s = kernel.Select(sdk::kIidQuantizerV1, op, args, provider);
  if (!s.ok())
    return absl::StrCat(who, " does not serve it: ", KernelMessageHead(s.status().message()));
  TeplugQuantizerV1* q = QuantizerOf(*s);
  TeplugError* e = op == TEPLUG_OP_QUANTIZE
                       ? q->vtbl->quantize(q, static_cast<const TeplugQuantizeArgs*>(args))
                       : q->vtbl->dequantize(q, static_cast<const TeplugDequantizeArgs*>(args));
  std::string text = TakeError(e, op == TEPLUG_OP_QUANTIZE ? "quantize" : "dequantize");
  return text.empty() ? "" : absl::StrCat(who, " failed: ", text);
}

absl::StatusOr<core::Selection> Select(const core::Kernel& plugin, const std::string& provider,
                                       const std::string& text) {
  absl::StatusOr<QuantizeCase> c = Parse(text);
  if (!c.ok()) return c.status();
  HostTensor input("input", c->input, {c->rows, c->cols}),
      output("output", c->output, {c->rows, c->cols});
  output.AttachQuantization(c->scaling);
  TeplugQuantizeArgs a = sdk::Versioned<TeplugQuantizeArgs>();
  a.input = input.tensor();
  a.output = output.tensor();
  a.recipe = TEPLUG_RECIPE_CURRENT;
  a.rowwise = 1;
  return plugin.Select(sdk::kIidQuantizerV1, TEPLUG_OP_QUANTIZE, &a, provider);
}

CaseOutcome Run(const core::Kernel& plugin, const std::string& provider, const core::Kernel& oracle,
                const std::string& text, uint64_t seed) {
  CaseOutcome o;
  absl::StatusOr<QuantizeCase> c = Parse(text);
  if (!c.ok()) return {false, std::string(c.status().message())};
  std::mt19937_64 rng(seed);
  HostTensor input("input", c->input, {c->rows, c->cols});
  FillNonZero(&input, &rng);
  HostTensor mine("output", c->output, {c->rows, c->cols}), ref = mine.Clone("output");
  mine.AttachQuantization(c->scaling);
  ref.AttachQuantization(c->scaling);
  auto args_for = [&](HostTensor* out) {
    TeplugQuantizeArgs a = sdk::Versioned<TeplugQuantizeArgs>();
    a.input = input.tensor();
    a.output = out->tensor();
    a.recipe = TEPLUG_RECIPE_CURRENT;
    a.rowwise = 1;
    return a;
  };
  const TeplugQuantizeArgs mine_args = args_for(&mine), ref_args = args_for(&ref);
  if (std::string e = Call(plugin, provider, TEPLUG_OP_QUANTIZE, &mine_args, "the plugin");
      !e.empty())
    return {false, e};
  if (std::string e = Call(oracle, "reference", TEPLUG_OP_QUANTIZE, &ref_args, "the reference");
      !e.empty())
    return {false, e};
  o.Include(NormalizedMaxError(mine.Values(), ref.Values()), kQuantizeVsReferenceTolerance);
  if (c->dequantize) {
    // Both dequantize the plugin's codes: the plugin's values against the reference's.
    HostTensor mine_back("dequantized", c->input, {c->rows, c->cols});
    HostTensor ref_back = mine_back.Clone("dequantized");
    TeplugDequantizeArgs d = sdk::Versioned<TeplugDequantizeArgs>();
    d.input = mine.tensor();
    d.output = mine_back.tensor();
    TeplugDequantizeArgs rd = d;
    rd.output = ref_back.tensor();
    if (std::string e = Call(plugin, provider, TEPLUG_OP_DEQUANTIZE, &d, "the plugin"); !e.empty())
      return {false, e};
    if (std::string e = Call(oracle, "reference", TEPLUG_OP_DEQUANTIZE, &rd, "the reference");
        !e.empty())
      return {false, e};
    o.Include(NormalizedMaxError(mine_back.Values(), ref_back.Values()),
              c->input == TEPLUG_DTYPE_FP32 ? kDequantizeTolerance
                                            : OutputTolerance(ToleranceKind::kGemm, c->input));
  }
  o.Decide();
  return o;
}

}  // namespace

const InterfaceConformance& QuantizerConformance() {
  static const InterfaceConformance kQuantizer = {
      "quantizer", &AllClaims, &Checkable, &Plan, &ParseCase, &Run, &Select, nullptr, nullptr};
  return kQuantizer;
}

}  // namespace teplug::cli
