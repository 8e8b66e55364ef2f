#include "tools/teplug/conformance_attention.h"

#include <cmath>
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

constexpr int32_t kDTypes[] = {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP16, TEPLUG_DTYPE_BF16};
constexpr int32_t kLayouts[] = {TEPLUG_LAYOUT_BSHD_BSHD_BSHD, TEPLUG_LAYOUT_SBHD_SBHD_SBHD};
constexpr int32_t kMasks[] = {TEPLUG_MASK_NONE, TEPLUG_MASK_CAUSAL,
                              TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT};

struct AttentionCase {
  int32_t dtype = TEPLUG_DTYPE_FP32, layout = TEPLUG_LAYOUT_BSHD_BSHD_BSHD, mask = TEPLUG_MASK_NONE;
  bool gqa = false;
  int64_t batch = 2, seq_q = 12, seq_kv = 16, heads = 4, head_dim = 32;
};

std::string Format(const AttentionCase& c) {
  return absl::StrCat("qkv_dtype=", sdk::DTypeName(c.dtype), ",layout=", sdk::LayoutName(c.layout),
                      ",mask=", sdk::MaskName(c.mask), ",gqa=", int{c.gqa}, ",batch=", c.batch,
                      ",seq_q=", c.seq_q, ",seq_kv=", c.seq_kv, ",heads=", c.heads,
                      ",head_dim=", c.head_dim);
}

absl::StatusOr<AttentionCase> Parse(const std::string& text) {
  AttentionCase c;
  std::map<std::string, int64_t*> dims = {{"batch", &c.batch},
                                          {"seq_q", &c.seq_q},
                                          {"seq_kv", &c.seq_kv},
                                          {"heads", &c.heads},
                                          {"head_dim", &c.head_dim}};
  const absl::Status parsed =
      ForEachCaseItem(text, [&](const std::string& key, const std::string& value) -> absl::Status {
        auto bad = [&](const std::string& want) { return BadCaseValue(key, value, want); };
        if (key == "qkv_dtype") {
          if (!sdk::ParseDType(value, &c.dtype)) return bad("a dtype name (fp32, fp16, bf16)");
        } else if (key == "layout") {
          bool found = false;
          for (int32_t l : kLayouts)
            if (value == sdk::LayoutName(l)) c.layout = l, found = true;
          if (!found) return bad("bshd_bshd_bshd or sbhd_sbhd_sbhd");
        } else if (key == "mask") {
          bool found = false;
          for (int32_t m : kMasks)
            if (value == sdk::MaskName(m)) c.mask = m, found = true;
          if (!found) return bad("none, causal or causal_bottom_right");
        } else if (key == "gqa") {
          if (value != "0" && value != "1") return bad("0 or 1");
          c.gqa = value == "1";
        } else if (auto d = dims.find(key); d != dims.end()) {
          if (!absl::SimpleAtoi(value, d->second) || *d->second < 1 || *d->second > 512)
            return bad("an integer in [1, 512]");
        } else {
          return absl::InvalidArgumentError(absl::StrCat(
              "--case: unknown key \"", key,
              "\" (keys: qkv_dtype, layout, mask, gqa, batch, seq_q, seq_kv, heads, head_dim)"));
        }
        return absl::OkStatus();
      });
  if (!parsed.ok()) return parsed;
  if (c.gqa && c.heads % 2 != 0)
    return absl::InvalidArgumentError("--case: gqa=1 needs an even heads");
  return c;
}

std::vector<std::string> Exercised(const AttentionCase& c) {
  std::vector<std::string> e = {
      Claim("qkv_dtypes", sdk::DTypeName(c.dtype)), Claim("layouts", sdk::LayoutName(c.layout)),
      Claim("mask_types", sdk::MaskName(c.mask)), Claim("bias_types", "none")};
  if (c.gqa) e.push_back(Claim("features", "gqa"));
  return e;
}

std::vector<std::string> AllClaims() {
  std::vector<std::string> all;
  for (int32_t d = 1; d < TEPLUG_DTYPE_COUNT_; ++d)
    all.push_back(Claim("qkv_dtypes", sdk::DTypeName(d)));
  for (int32_t l = 0; l < TEPLUG_LAYOUT_COUNT_; ++l)
    all.push_back(Claim("layouts", sdk::LayoutName(l)));
  for (int32_t m = 0; m < TEPLUG_MASK_COUNT_; ++m)
    all.push_back(Claim("mask_types", sdk::MaskName(m)));
  for (int32_t b = 0; b < TEPLUG_BIAS_COUNT_; ++b)
    all.push_back(Claim("bias_types", sdk::BiasName(b)));
  for (const char* f :
       {"dropout", "sliding_window", "gqa", "deterministic", "backward", "different_head_dims"})
    all.push_back(Claim("features", f));
  return all;
}

bool Checkable(const std::string& claim) {
  std::vector<std::string> can = {Claim("bias_types", "none"), Claim("features", "gqa")};
  for (int32_t d : kDTypes) can.push_back(Claim("qkv_dtypes", sdk::DTypeName(d)));
  for (int32_t l : kLayouts) can.push_back(Claim("layouts", sdk::LayoutName(l)));
  for (int32_t m : kMasks) can.push_back(Claim("mask_types", sdk::MaskName(m)));
  return HasClaim(can, claim);
}

std::vector<PlannedCase> Plan(const std::vector<std::string>& claims, bool quick, uint64_t seed) {
  std::vector<int32_t> dtypes, layouts, masks;
  for (int32_t d : kDTypes)
    if (HasClaim(claims, Claim("qkv_dtypes", sdk::DTypeName(d)))) dtypes.push_back(d);
  for (int32_t l : kLayouts)
    if (HasClaim(claims, Claim("layouts", sdk::LayoutName(l)))) layouts.push_back(l);
  for (int32_t m : kMasks)
    if (HasClaim(claims, Claim("mask_types", sdk::MaskName(m)))) masks.push_back(m);
  std::vector<PlannedCase> plan;
  if (dtypes.empty() || layouts.empty() || masks.empty() ||
      !HasClaim(claims, Claim("bias_types", "none")))
    return plan;
  auto add = [&](const AttentionCase& c) {
    const std::string text = Format(c);
    for (const PlannedCase& p : plan)
      if (p.text == text) return;
    plan.push_back({text, seed + 7919 * plan.size(), Exercised(c)});
  };
  AttentionCase base;
  base.dtype = dtypes[0];
  base.layout = layouts[0];
  base.mask = masks[0];
  add(base);
  for (int32_t d : dtypes) {
    AttentionCase c = base;
    c.dtype = d;
    add(c);
  }
  for (int32_t l : layouts) {
    AttentionCase c = base;
    c.layout = l;
    add(c);
  }
  for (int32_t m : masks) {
    AttentionCase c = base;
    c.mask = m;
    add(c);
  }
  const bool gqa = HasClaim(claims, Claim("features", "gqa"));
  if (gqa) {
    AttentionCase c = base;
    c.gqa = true;
    add(c);
  }
  if (quick) return plan;
  std::mt19937_64 rng(seed ^ 0x6a09e667f3bcc908ull);
  for (int i = 0; i < 4; ++i) {
    AttentionCase c;
    c.dtype = dtypes[rng() % dtypes.size()];
    c.layout = layouts[rng() % layouts.size()];
    c.mask = masks[rng() % masks.size()];
    c.gqa = gqa && (rng() & 1);
    c.batch = 1 + static_cast<int64_t>(rng() % 3);
    c.seq_q = 1 + static_cast<int64_t>(rng() % 24);
    c.seq_kv = c.seq_q + static_cast<int64_t>(rng() % 8);
    add(c);
  }
  return plan;
}

absl::StatusOr<std::vector<std::string>> ParseCase(const std::string& text) {
  absl::StatusOr<AttentionCase> c = Parse(text);
  if (!c.ok()) return c.status();
  return Exercised(*c);
}

int64_t KvHeads(const AttentionCase& c) { return c.gqa ? c.heads / 2 : c.heads; }

// [B, S, H, D] for bshd, [S, B, H, D] for sbhd.
std::vector<int64_t> Shape(const AttentionCase& c, int64_t seq, int64_t heads) {
  if (c.layout == TEPLUG_LAYOUT_SBHD_SBHD_SBHD) return {seq, c.batch, heads, c.head_dim};
  return {c.batch, seq, heads, c.head_dim};
}

TeplugAttentionParams ParamsOf(const AttentionCase& c) {
  TeplugAttentionParams p = sdk::Versioned<TeplugAttentionParams>();
  p.layout = c.layout;
  p.mask_type = c.mask;
  p.bias_type = TEPLUG_BIAS_NONE;
  p.is_training = 1;
  p.batch = c.batch;
  p.num_heads_q = c.heads;
  p.num_heads_kv = KvHeads(c);
  p.head_dim_qk = p.head_dim_v = c.head_dim;
  p.max_seqlen_q = c.seq_q;
  p.max_seqlen_kv = c.seq_kv;
  p.window_left = p.window_right = -1;
  p.softmax_scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.head_dim)));
  return p;
}

struct AttentionTensors {
  HostTensor q, k, v, o, lse;
};
AttentionTensors MakeTensors(const AttentionCase& c) {
  return {HostTensor("q", c.dtype, Shape(c, c.seq_q, c.heads)),
          HostTensor("k", c.dtype, Shape(c, c.seq_kv, KvHeads(c))),
          HostTensor("v", c.dtype, Shape(c, c.seq_kv, KvHeads(c))),
          HostTensor("o", c.dtype, Shape(c, c.seq_q, c.heads)),
          HostTensor("softmax_lse", TEPLUG_DTYPE_FP32, {c.batch, c.heads, c.seq_q})};
}
TeplugAttentionFwdArgs ArgsOf(const TeplugAttentionParams* params, const AttentionTensors& in,
                              AttentionTensors* out) {
  TeplugAttentionFwdArgs a = sdk::Versioned<TeplugAttentionFwdArgs>();
  a.params = params;
  a.q = in.q.tensor();
  a.k = in.k.tensor();
  a.v = in.v.tensor();
  a.o = out->o.tensor();
  a.softmax_lse = out->lse.tensor();
  return a;
}

absl::StatusOr<core::Selection> Select(const core::Kernel& plugin, const std::string& provider,
                                       const std::string& text) {
  absl::StatusOr<AttentionCase> c = Parse(text);
  if (!c.ok()) return c.status();
  AttentionTensors t = MakeTensors(*c);
  const TeplugAttentionParams params = ParamsOf(*c);
  const TeplugAttentionFwdArgs a = ArgsOf(&params, t, &t);
  return plugin.Select(sdk::kIidAttentionV1, TEPLUG_OP_ATTENTION_FORWARD, &a, provider);
}

// Runs `provider`'s forward in `kernel` with exactly the workspace it asks for.
std::string Call(const core::Kernel& kernel, const std::string& provider, TeplugAttentionFwdArgs a,
                 const char* who) {
  absl::StatusOr<core::Selection> s =
      kernel.Select(sdk::kIidAttentionV1, TEPLUG_OP_ATTENTION_FORWARD, &a, provider);
  if (!s.ok())
    return absl::StrCat(who, " does not serve it: ", KernelMessageHead(s.status().message()));
  auto* at = s->as<TeplugAttentionV1>();
  size_t bytes = 0;
  if (std::string e = TakeError(
          at->vtbl->workspace_size(at, TEPLUG_OP_ATTENTION_FORWARD, &a, &bytes), "workspace_size");
      !e.empty())
    return absl::StrCat(who, " failed: ", e);
  std::vector<uint8_t> workspace(bytes);
  a.workspace = bytes == 0 ? nullptr : workspace.data();
  a.workspace_size = bytes;
  std::string e = TakeError(at->vtbl->forward(at, &a), "forward");
  return e.empty() ? "" : absl::StrCat(who, " failed: ", e);
}

CaseOutcome Run(const core::Kernel& plugin, const std::string& provider, const core::Kernel& oracle,
                const std::string& text, uint64_t seed) {
  absl::StatusOr<AttentionCase> c = Parse(text);
  if (!c.ok()) return {false, std::string(c.status().message())};
  std::mt19937_64 rng(seed);
  AttentionTensors in = MakeTensors(*c), ref = MakeTensors(*c);
  for (HostTensor* t : {&in.q, &in.k, &in.v}) FillNonZero(t, &rng);
  const TeplugAttentionParams params = ParamsOf(*c);
  if (std::string e = Call(plugin, provider, ArgsOf(&params, in, &in), "the plugin"); !e.empty())
    return {false, e};
  if (std::string e = Call(oracle, "reference", ArgsOf(&params, in, &ref), "the reference");
      !e.empty())
    return {false, e};
  CaseOutcome o;
  o.Include(NormalizedMaxError(in.o.Values(), ref.o.Values()),
            OutputTolerance(ToleranceKind::kAttentionForward, c->dtype));
  o.Include(NormalizedMaxError(in.lse.Values(), ref.lse.Values()),
            OutputTolerance(ToleranceKind::kAttentionForward, TEPLUG_DTYPE_FP32));
  o.Decide();
  return o;
}

}  // namespace

const InterfaceConformance& AttentionConformance() {
  static const InterfaceConformance kAttention = {
      "attention", &AllClaims, &Checkable, &Plan, &ParseCase, &Run, &Select, nullptr, nullptr};
  return kAttention;
}

}  // namespace teplug::cli
