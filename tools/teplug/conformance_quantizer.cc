#include "tools/teplug/conformance_quantizer.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <random>

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
constexpr int32_t kScalings[] = {TEPLUG_SCALING_PER_TENSOR, TEPLUG_SCALING_MXFP8_1D32,
                                 TEPLUG_SCALING_BLOCK_1D128, TEPLUG_SCALING_BLOCK_2D128};
constexpr const char* kFeatures[] = {"columnwise", "dequantize", "current_scaling",
                                     "delayed_scaling", "mx_te_scale"};

struct QuantizeCase {
  int32_t input = TEPLUG_DTYPE_FP32, output = TEPLUG_DTYPE_FP8_E4M3;
  int32_t scaling = TEPLUG_SCALING_PER_TENSOR;
  int32_t recipe = TEPLUG_RECIPE_CURRENT;  // per_tensor only; block modes ignore it
  bool columnwise = false, dequantize = false;
  int64_t rows = 17, cols = 64;
  int32_t mx_scale_rule = TEPLUG_MX_SCALE_OCP;  // mxfp8_1d32 only
};

std::string Format(const QuantizeCase& c) {
  return absl::StrCat("input_dtype=", sdk::DTypeName(c.input),
                      ",output_dtype=", sdk::DTypeName(c.output),
                      ",scaling=", sdk::ScalingName(c.scaling),
                      ",recipe=", c.recipe == TEPLUG_RECIPE_DELAYED ? "delayed" : "current",
                      ",columnwise=", int{c.columnwise}, ",dequantize=", int{c.dequantize},
                      ",rows=", c.rows, ",cols=", c.cols,
                      // Named only when not the default, so OCP cases read as they always did.
                      c.mx_scale_rule != TEPLUG_MX_SCALE_OCP
                          ? absl::StrCat(",mx_scale_rule=", sdk::MxScaleRuleName(c.mx_scale_rule))
                          : "");
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
          if (!found) return bad("per_tensor, mxfp8_1d32, block_1d128 or block_2d128");
        } else if (key == "recipe") {
          if (value != "current" && value != "delayed") return bad("current or delayed");
          c.recipe = value == "delayed" ? TEPLUG_RECIPE_DELAYED : TEPLUG_RECIPE_CURRENT;
        } else if (key == "mx_scale_rule") {
          if (!sdk::ParseMxScaleRule(value, &c.mx_scale_rule))
            return bad("ocp or transformer_engine");
        } else if (key == "dequantize" || key == "columnwise") {
          if (value != "0" && value != "1") return bad("0 or 1");
          (key == "dequantize" ? c.dequantize : c.columnwise) = value == "1";
        } else if (key == "rows" || key == "cols") {
          int64_t* n = key == "rows" ? &c.rows : &c.cols;
          if (!absl::SimpleAtoi(value, n) || *n < 1 || *n > 4096)
            return bad("an integer in [1, 4096]");
        } else {
          return absl::InvalidArgumentError(
              absl::StrCat("--case: unknown key \"", key,
                           "\" (keys: input_dtype, output_dtype, scaling, recipe, columnwise, "
                           "dequantize, rows, cols, mx_scale_rule)"));
        }
        return absl::OkStatus();
      });
  if (!parsed.ok()) return parsed;
  if (c.recipe == TEPLUG_RECIPE_DELAYED && c.scaling != TEPLUG_SCALING_PER_TENSOR)
    return BadCaseValue("recipe", "delayed", "current outside per_tensor scaling");
  if (c.mx_scale_rule != TEPLUG_MX_SCALE_OCP && c.scaling != TEPLUG_SCALING_MXFP8_1D32)
    return BadCaseValue("mx_scale_rule", sdk::MxScaleRuleName(c.mx_scale_rule),
                        "ocp outside mxfp8_1d32 scaling");
  return c;
}

std::vector<std::string> Exercised(const QuantizeCase& c) {
  std::vector<std::string> e = {Claim("input_dtypes", sdk::DTypeName(c.input)),
                                Claim("output_dtypes", sdk::DTypeName(c.output)),
                                Claim("scaling_modes", sdk::ScalingName(c.scaling))};
  if (c.scaling == TEPLUG_SCALING_PER_TENSOR)
    e.push_back(Claim("features",
                      c.recipe == TEPLUG_RECIPE_DELAYED ? "delayed_scaling" : "current_scaling"));
  if (c.columnwise) e.push_back(Claim("features", "columnwise"));
  if (c.dequantize) e.push_back(Claim("features", "dequantize"));
  if (c.mx_scale_rule == TEPLUG_MX_SCALE_TRANSFORMER_ENGINE)
    e.push_back(Claim("features", "mx_te_scale"));
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
  for (const char* f : kFeatures) can.push_back(Claim("features", f));
  return HasClaim(can, claim);
}

std::vector<PlannedCase> Plan(const std::vector<std::string>& claims, bool quick, uint64_t seed) {
  auto declared = [&](const char* field, const std::string& m) {
    return HasClaim(claims, Claim(field, m));
  };
  std::vector<int32_t> ins, outs, modes, per_tensor_recipes;
  for (int32_t d : kInputs)
    if (declared("input_dtypes", sdk::DTypeName(d))) ins.push_back(d);
  for (int32_t d : kOutputs)
    if (declared("output_dtypes", sdk::DTypeName(d))) outs.push_back(d);
  // Per-tensor scaling is served with the recipes the features declare.
  if (declared("features", "current_scaling")) per_tensor_recipes.push_back(TEPLUG_RECIPE_CURRENT);
  if (declared("features", "delayed_scaling")) per_tensor_recipes.push_back(TEPLUG_RECIPE_DELAYED);
  for (int32_t s : kScalings) {
    const bool usable = s != TEPLUG_SCALING_PER_TENSOR || !per_tensor_recipes.empty();
    if (declared("scaling_modes", sdk::ScalingName(s)) && usable) modes.push_back(s);
  }
  std::vector<PlannedCase> plan;
  if (ins.empty() || outs.empty() || modes.empty()) return plan;
  const bool dequantize = declared("features", "dequantize");
  const bool columnwise = declared("features", "columnwise");
  auto add = [&](QuantizeCase c) {
    if (c.scaling != TEPLUG_SCALING_PER_TENSOR) c.recipe = TEPLUG_RECIPE_CURRENT;
    const std::string text = Format(c);
    for (const PlannedCase& p : plan)
      if (p.text == text) return;
    plan.push_back({text, seed + 7919 * plan.size(), Exercised(c)});
  };
  // Block-scaled cases span several blocks, the last ones partial.
  auto shaped = [](QuantizeCase c) {
    if (c.scaling == TEPLUG_SCALING_BLOCK_1D128 || c.scaling == TEPLUG_SCALING_BLOCK_2D128) {
      c.rows = std::max<int64_t>(c.rows, 136);
      c.cols = std::max<int64_t>(c.cols, 160);
    }
    return c;
  };
  const int32_t recipe = per_tensor_recipes.empty() ? TEPLUG_RECIPE_CURRENT : per_tensor_recipes[0];
  const QuantizeCase base{ins[0], outs[0], modes[0], recipe, false, dequantize, 17, 64};
  add(shaped(base));
  for (int32_t d : ins) add(shaped({d, outs[0], modes[0], recipe, false, dequantize, 17, 64}));
  for (int32_t d : outs) add(shaped({ins[0], d, modes[0], recipe, false, dequantize, 17, 64}));
  for (int32_t s : modes) {
    add(shaped({ins[0], outs[0], s, recipe, false, dequantize, 17, 64}));
    if (columnwise) add(shaped({ins[0], outs[0], s, recipe, true, false, 17, 64}));
  }
  for (int32_t r : per_tensor_recipes)
    if (HasClaim(claims, Claim("scaling_modes", "per_tensor")))
      add({ins[0], outs[0], TEPLUG_SCALING_PER_TENSOR, r, columnwise, dequantize, 17, 64});
  // TransformerEngine's MX rule, each direction (uniform inputs put most
  // block maxima where it and the OCP rule differ).
  if (declared("features", "mx_te_scale") &&
      std::find(modes.begin(), modes.end(), TEPLUG_SCALING_MXFP8_1D32) != modes.end()) {
    QuantizeCase te{ins[0], outs[0], TEPLUG_SCALING_MXFP8_1D32, recipe, false, dequantize, 17, 64};
    te.mx_scale_rule = TEPLUG_MX_SCALE_TRANSFORMER_ENGINE;
    add(te);
    if (columnwise) {
      te.columnwise = true;
      te.dequantize = false;
      add(te);
    }
  }
  if (quick) return plan;
  std::mt19937_64 rng(seed ^ 0x51ed270b27a5c3a1ull);
  for (int i = 0; i < 8; ++i) {
    const int32_t r = per_tensor_recipes.empty()
                          ? TEPLUG_RECIPE_CURRENT
                          : per_tensor_recipes[rng() % per_tensor_recipes.size()];
    add(shaped({ins[rng() % ins.size()], outs[rng() % outs.size()], modes[rng() % modes.size()], r,
                columnwise && (rng() & 1), dequantize && (rng() & 1),
                1 + static_cast<int64_t>(rng() % 40), 32 * (1 + static_cast<int64_t>(rng() % 4))}));
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

// Call on `where`'s device (host memory when null): `tensors` staged there
// around the call (conformance_staging.h).
std::string CallOn(const CaseDevice* where, const std::vector<StagedTensor>& tensors,
                   const core::Kernel& kernel, const std::string& provider, int32_t op,
                   const void* args, const char* who) {
  DeviceStaging staging(where);
  if (std::string e = staging.Stage(tensors); !e.empty()) return e;
  if (std::string e = Call(kernel, provider, op, args, who); !e.empty()) return e;
  return staging.Finish();
}

// Where one quantize call writes: the row-wise codes with their scales
// (HostTensor's quantization), and the column-wise copy with its scales in
// the mode's layout (quantizer.h), joined in one TeplugQuantization.
struct QuantizeOutputs {
  HostTensor rowwise, columnwise, columnwise_scale_inv;
  TeplugQuantization quant{};
  TeplugTensor view{};  // rowwise's tensor, pointing at `quant`
};

// The outputs of `c`, with `delayed_scale` as the given scale of the
// delayed recipe.
std::unique_ptr<QuantizeOutputs> MakeOutputs(const QuantizeCase& c, float delayed_scale) {
  auto o = std::make_unique<QuantizeOutputs>();
  o->rowwise = HostTensor("output", c.output, {c.rows, c.cols});
  o->rowwise.AttachQuantization(c.scaling);
  if (c.recipe == TEPLUG_RECIPE_DELAYED)
    std::memcpy(o->rowwise.tensor()->quant->scale->data, &delayed_scale, sizeof delayed_scale);
  o->quant = *o->rowwise.tensor()->quant;
  if (c.columnwise) {
    const bool mx = c.scaling == TEPLUG_SCALING_MXFP8_1D32;
    auto grid = [](int64_t n, int64_t block) { return (n + block - 1) / block; };
    std::vector<int64_t> scales;
    switch (c.scaling) {
      case TEPLUG_SCALING_PER_TENSOR:
        scales = {1};
        break;
      case TEPLUG_SCALING_MXFP8_1D32:
        scales = {grid(c.rows, 32), c.cols};
        break;
      case TEPLUG_SCALING_BLOCK_1D128:
        scales = {c.cols, grid(c.rows, 128)};
        break;
      default:
        scales = {grid(c.cols, 128), grid(c.rows, 128)};
        break;
    }
    o->columnwise = HostTensor(
        "output.columnwise_data", c.output,
        mx ? std::vector<int64_t>{c.rows, c.cols} : std::vector<int64_t>{c.cols, c.rows});
    o->columnwise_scale_inv = HostTensor("output.columnwise_scale_inv",
                                         mx ? TEPLUG_DTYPE_E8M0 : TEPLUG_DTYPE_FP32, scales);
    o->quant.columnwise_data = o->columnwise.tensor();
    o->quant.columnwise_scale_inv = o->columnwise_scale_inv.tensor();
  }
  o->view = *o->rowwise.tensor();
  o->view.quant = &o->quant;
  return o;
}

TeplugQuantizeArgs QuantizeArgs(const QuantizeCase& c, const HostTensor& input,
                                QuantizeOutputs* out) {
  TeplugQuantizeArgs a = sdk::Versioned<TeplugQuantizeArgs>();
  a.input = input.tensor();
  a.output = &out->view;
  a.recipe = c.recipe;
  a.rowwise = 1;
  a.columnwise = c.columnwise;
  a.mx_scale_rule = c.mx_scale_rule;
  return a;
}

absl::StatusOr<core::Selection> Select(const core::Kernel& plugin, const std::string& provider,
                                       const std::string& text, const CaseDevice* where) {
  absl::StatusOr<QuantizeCase> c = Parse(text);
  if (!c.ok()) return c.status();
  HostTensor input("input", c->input, {c->rows, c->cols});
  std::unique_ptr<QuantizeOutputs> out = MakeOutputs(*c, 1.0f);
  const TeplugQuantizeArgs a = QuantizeArgs(*c, input, out.get());
  DeviceStaging staging(where);
  if (std::string e = staging.Stage({{input.tensor(), false}, {&out->view, true}}); !e.empty())
    return absl::UnavailableError(e);
  return plugin.Select(sdk::kIidQuantizerV1, TEPLUG_OP_QUANTIZE, &a, provider);
}

// The quantize of `text` on `impl` directly.
RefusalReport Refuses(TeplugObject* impl, const std::string& text, uint64_t seed,
                      const CaseDevice* where) {
  absl::StatusOr<QuantizeCase> c = Parse(text);
  if (!c.ok()) return {std::string(c.status().message())};
  std::mt19937_64 rng(seed);
  HostTensor input("input", c->input, {c->rows, c->cols});
  FillNonZero(&input, &rng);
  std::unique_ptr<QuantizeOutputs> out = MakeOutputs(*c, 1.0f);
  const TeplugQuantizeArgs a = QuantizeArgs(*c, input, out.get());
  DeviceStaging staging(where);
  if (std::string e = staging.Stage({{input.tensor(), false}, {&out->view, true}}); !e.empty())
    return {e};
  auto* q = reinterpret_cast<TeplugQuantizerV1*>(impl);
  const std::string supports =
      CheckSupportsReason(q->vtbl->supports, impl, TEPLUG_OP_QUANTIZE, &a, "the quantize");
  RefusalReport r = CheckRefusedCall(
      &staging, "quantize",
      [](size_t* bytes) -> TeplugError* {
        *bytes = 0;  // IQuantizer has no workspace
        return nullptr;
      },
      [&](void*, size_t, TeplugStream stream) {
        TeplugQuantizeArgs on_stream = a;
        on_stream.stream = stream;
        return q->vtbl->quantize(q, &on_stream);
      });
  r.supports_reason = supports;
  return r;
}

// The plugin's and the reference's dequantization of the plugin's codes.
void CompareDequantize(const core::Kernel& plugin, const std::string& provider,
                       const core::Kernel& oracle, const QuantizeCase& c, HostTensor& codes,
                       const CaseDevice* where, CaseOutcome* o) {
  HostTensor mine_back("dequantized", c.input, {c.rows, c.cols});
  HostTensor ref_back = mine_back.Clone("dequantized");
  TeplugDequantizeArgs d = sdk::Versioned<TeplugDequantizeArgs>();
  d.input = codes.tensor();
  d.output = mine_back.tensor();
  TeplugDequantizeArgs rd = d;
  rd.output = ref_back.tensor();
  d.stream = where == nullptr ? nullptr : where->stream;
  if (std::string e = CallOn(where, {{codes.tensor(), false}, {mine_back.tensor(), true}}, plugin,
                             provider, TEPLUG_OP_DEQUANTIZE, &d, "the plugin");
      !e.empty()) {
    o->problem = e;
    return;
  }
  if (std::string e = Call(oracle, "reference", TEPLUG_OP_DEQUANTIZE, &rd, "the reference");
      !e.empty()) {
    o->problem = e;
    return;
  }
  o->Include(NormalizedMaxError(mine_back.Values(), ref_back.Values()),
             c.input == TEPLUG_DTYPE_FP32 ? kDequantizeTolerance
                                          : OutputTolerance(ToleranceKind::kGemm, c.input));
}

// Quantizes one random input with the plugin and the reference. quantizer.h
// defines every mode's rule bit for bit, so codes, scales, amax and the
// column-wise copy must equal the reference's; the dequantized row-wise
// values' error is reported beside that.
CaseOutcome RunOn(const core::Kernel& plugin, const std::string& provider,
                  const core::Kernel& oracle, const std::string& text, uint64_t seed,
                  const CaseDevice* where) {
  CaseOutcome o;
  absl::StatusOr<QuantizeCase> c = Parse(text);
  if (!c.ok()) return {false, std::string(c.status().message())};
  std::mt19937_64 rng(seed);
  HostTensor input("input", c->input, {c->rows, c->cols});
  FillNonZero(&input, &rng);
  // A delayed scale as an earlier step's amax might give: 448 / amax for an
  // amax in [1, 4].
  const float delayed_scale = 448.0f / std::uniform_real_distribution<float>(1.0f, 4.0f)(rng);
  std::unique_ptr<QuantizeOutputs> mine = MakeOutputs(*c, delayed_scale),
                                   ref = MakeOutputs(*c, delayed_scale);
  HostTensor mine_input = input.Clone("input");  // its own: staging moves it
  TeplugQuantizeArgs mine_args = QuantizeArgs(*c, mine_input, mine.get());
  const TeplugQuantizeArgs ref_args = QuantizeArgs(*c, input, ref.get());
  mine_args.stream = where == nullptr ? nullptr : where->stream;
  if (std::string e = CallOn(where, {{mine_input.tensor(), false}, {&mine->view, true}}, plugin,
                             provider, TEPLUG_OP_QUANTIZE, &mine_args, "the plugin");
      !e.empty())
    return {false, e};
  if (std::string e = Call(oracle, "reference", TEPLUG_OP_QUANTIZE, &ref_args, "the reference");
      !e.empty())
    return {false, e};
  o.Include(NormalizedMaxError(mine->rowwise.Values(), ref->rowwise.Values()),
            kQuantizeVsReferenceTolerance);
  if (c->dequantize) CompareDequantize(plugin, provider, oracle, *c, mine->rowwise, where, &o);
  o.Decide();
  if (!o.problem.empty()) o.passed = false;
  const TeplugQuantization& mq = mine->quant;
  const TeplugQuantization& rq = ref->quant;
  const std::pair<std::string, std::pair<const TeplugTensor*, const TeplugTensor*>> parts[] = {
      {"codes", {mine->rowwise.tensor(), ref->rowwise.tensor()}},
      {"scale_inv", {mq.scale_inv, rq.scale_inv}},
      {"scale", {mq.scale, rq.scale}},
      {"amax", {mq.amax, rq.amax}},
      {"columnwise_data", {mq.columnwise_data, rq.columnwise_data}},
      {"columnwise_scale_inv", {mq.columnwise_scale_inv, rq.columnwise_scale_inv}}};
  for (const auto& [what, tensors] : parts) {
    if (!o.problem.empty()) break;
    std::string d = FirstDifference(what, tensors.first, tensors.second);
    if (d.empty()) continue;
    o.passed = false;
    o.problem = absl::StrCat("not bit-exact (quantizer.h defines every bit): ", d);
  }
  return o;
}

}  // namespace

const InterfaceConformance& QuantizerConformance() {
  static const InterfaceConformance kQuantizer = [] {
    InterfaceConformance q = {"quantizer",
                              &AllClaims,
                              &Checkable,
                              &Plan,
                              &ParseCase,
                              &RunOnHost<&RunOn>,
                              &SelectOnHost<&Select>,
                              nullptr,
                              nullptr};
    q.run_on_device = &RunOnDevice<&RunOn>;
    q.select_on_device = &SelectOnDevice<&Select>;
    q.refuses = &Refuses;
    return q;
  }();
  return kQuantizer;
}

}  // namespace teplug::cli
