#include "tools/teplug/conformance_attention_case.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "teplug/sdk/names.hpp"
#include "tools/teplug/conformance_interface.h"

namespace teplug::cli {
namespace {

constexpr int32_t kDTypes[] = {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP16, TEPLUG_DTYPE_BF16,
                               TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E5M2};
constexpr const char* kFeatures[] = {"dropout",       "sliding_window", "gqa",
                                     "deterministic", "backward",       "different_head_dims"};
// The layouts and masks a plan starts from, most common first.
constexpr int32_t kLayoutPreference[] = {
    TEPLUG_LAYOUT_BSHD_BSHD_BSHD, TEPLUG_LAYOUT_SBHD_SBHD_SBHD, TEPLUG_LAYOUT_BSHD_BS2HD,
    TEPLUG_LAYOUT_BSHD_BSH2D,     TEPLUG_LAYOUT_SBHD_SB2HD,     TEPLUG_LAYOUT_SBHD_SBH2D,
    TEPLUG_LAYOUT_BS3HD,          TEPLUG_LAYOUT_BSH3D,          TEPLUG_LAYOUT_SB3HD,
    TEPLUG_LAYOUT_SBH3D,          TEPLUG_LAYOUT_THD_THD_THD,    TEPLUG_LAYOUT_THD_T2HD,
    TEPLUG_LAYOUT_THD_TH2D,       TEPLUG_LAYOUT_T3HD,           TEPLUG_LAYOUT_TH3D};
constexpr int32_t kMaskPreference[] = {
    TEPLUG_MASK_NONE,    TEPLUG_MASK_CAUSAL,         TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT,
    TEPLUG_MASK_PADDING, TEPLUG_MASK_PADDING_CAUSAL, TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT};

bool IsCausalMask(int32_t m) {
  return m == TEPLUG_MASK_CAUSAL || m == TEPLUG_MASK_PADDING_CAUSAL ||
         m == TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT || m == TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
}

// The padding mask with the same diagonal: none -> padding, causal ->
// padding_causal, causal_bottom_right -> padding_causal_bottom_right.
int32_t PaddingVariant(int32_t m) {
  switch (m) {
    case TEPLUG_MASK_NONE:
      return TEPLUG_MASK_PADDING;
    case TEPLUG_MASK_CAUSAL:
      return TEPLUG_MASK_PADDING_CAUSAL;
    case TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT:
      return TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
    default:
      return m;
  }
}

// A window other than the one a causal mask implies (core/ops/attention.cc's rule).
bool UsesSlidingWindow(const AttentionCase& c) {
  return c.window_left >= 0 ||
         (c.window_right >= 0 && !(IsCausalMask(c.mask) && c.window_right == 0));
}

const char* BiasShapeName(const AttentionCase& c) {
  static const char* const kNames[2][2] = {{"11", "1h"}, {"b1", "bh"}};
  return kNames[c.bias_full_batch][c.bias_full_heads];
}

bool TakesBiasTensor(int32_t bias) {
  return bias == TEPLUG_BIAS_PRE_SCALE || bias == TEPLUG_BIAS_POST_SCALE;
}

// "" when the ABI allows the combination, else what it forbids.
std::string Illegal(const AttentionCase& c) {
  const QkvPacking packing = PackingOf(c.layout);
  const std::string layout = sdk::LayoutName(c.layout);
  if (c.gqa && c.heads % 2 != 0) return "gqa=1 needs an even heads";
  if (IsCausalMask(c.mask) && c.window_right > 0)
    return absl::StrCat("mask=", sdk::MaskName(c.mask),
                        " implies window_right 0: give window_right=-1 or 0");
  if (FormatOf(c.layout) == QkvFormat::kThd && !IsPaddingMask(c.mask))
    return absl::StrCat("layout ", layout,
                        " needs a padding mask (padding, padding_causal or "
                        "padding_causal_bottom_right), not mask=",
                        sdk::MaskName(c.mask));
  if (packing == QkvPacking::kQkvPacked && (c.gqa || c.seq_q != c.seq_kv))
    return absl::StrCat("layout ", layout,
                        " packs Q, K and V in one buffer: it needs gqa=0 and seq_q = seq_kv");
  if (packing != QkvPacking::kSeparate && c.head_dim != c.head_dim_v)
    return absl::StrCat("layout ", layout,
                        " packs K and V in one buffer: it needs head_dim = head_dim_v");
  return "";
}

struct Declared {
  std::vector<int32_t> dtypes, layouts, masks, biases;
  std::set<std::string> features;
  bool Has(const char* feature) const { return features.count(feature) != 0; }
  bool HasMask(int32_t m) const { return std::count(masks.begin(), masks.end(), m) != 0; }
};

Declared ReadDeclared(const std::vector<std::string>& claims) {
  Declared d;
  for (int32_t t : kDTypes)
    if (HasClaim(claims, Claim("qkv_dtypes", sdk::DTypeName(t)))) d.dtypes.push_back(t);
  for (int32_t l : kLayoutPreference)
    if (HasClaim(claims, Claim("layouts", sdk::LayoutName(l)))) d.layouts.push_back(l);
  for (int32_t m : kMaskPreference)
    if (HasClaim(claims, Claim("mask_types", sdk::MaskName(m)))) d.masks.push_back(m);
  for (int32_t b = 0; b < TEPLUG_BIAS_COUNT_; ++b)
    if (HasClaim(claims, Claim("bias_types", sdk::BiasName(b)))) d.biases.push_back(b);
  for (const char* f : kFeatures)
    if (HasClaim(claims, Claim("features", f))) d.features.insert(f);
  return d;
}

// What Fit must keep as the case has it.
struct Pins {
  bool layout = false, mask = false;
};

// Makes `c` legal by changing what is not pinned: the mask to a declared
// padding mask for a THD layout, the layout to a declared one that allows
// GQA and different head dims (which are then kept) or, with the layout
// pinned, GQA and different head dims off; seq_kv = seq_q for Q, K and V in
// one buffer. False when no declared combination is legal.
bool Fit(const Declared& d, Pins pins, AttentionCase* c) {
  auto layout_allows = [&](int32_t l) {
    if (PackingOf(l) != QkvPacking::kSeparate && c->head_dim_v != c->head_dim) return false;
    if (PackingOf(l) == QkvPacking::kQkvPacked && c->gqa) return false;
    if (FormatOf(l) != QkvFormat::kThd || IsPaddingMask(c->mask)) return true;
    if (pins.mask) return false;
    for (int32_t m : d.masks)
      if (IsPaddingMask(m)) return true;
    return false;
  };
  if (!layout_allows(c->layout)) {
    if (pins.layout) {
      c->gqa = c->gqa && PackingOf(c->layout) != QkvPacking::kQkvPacked;
      if (PackingOf(c->layout) != QkvPacking::kSeparate) c->head_dim_v = c->head_dim;
    } else {
      bool found = false;
      for (int32_t l : d.layouts)
        if (!found && layout_allows(l)) c->layout = l, found = true;
      if (!found) return false;
    }
  }
  if (PackingOf(c->layout) == QkvPacking::kQkvPacked) c->seq_kv = c->seq_q;
  if (FormatOf(c->layout) == QkvFormat::kThd && !IsPaddingMask(c->mask)) {
    if (pins.mask) return false;
    const int32_t same_diagonal = PaddingVariant(c->mask);
    if (d.HasMask(same_diagonal)) {
      c->mask = same_diagonal;
    } else {
      for (int32_t m : d.masks)
        if (!IsPaddingMask(c->mask) && IsPaddingMask(m)) c->mask = m;
    }
  }
  if (IsCausalMask(c->mask) && c->window_right > 0) c->window_right = 0;
  return Illegal(*c).empty();
}

int32_t First(const std::vector<int32_t>& values, int32_t preferred) {
  return std::count(values.begin(), values.end(), preferred) != 0 ? preferred : values[0];
}

}  // namespace

QkvFormat FormatOf(int32_t layout) {
  if (layout <= TEPLUG_LAYOUT_SBHD_SBHD_SBHD) return QkvFormat::kSbhd;
  if (layout <= TEPLUG_LAYOUT_BSHD_BSHD_BSHD) return QkvFormat::kBshd;
  return QkvFormat::kThd;
}

// Within each format the five layouts come in the same order:
// 3hd, h3d, hd_2hd, hd_h2d, hd_hd_hd.
QkvPacking PackingOf(int32_t layout) {
  switch (layout % 5) {
    case 0:
    case 1:
      return QkvPacking::kQkvPacked;
    case 2:
    case 3:
      return QkvPacking::kKvPacked;
    default:
      return QkvPacking::kSeparate;
  }
}

bool PackedAfterHeads(int32_t layout) { return layout % 5 == 1 || layout % 5 == 3; }

bool IsPaddingMask(int32_t m) {
  return m == TEPLUG_MASK_PADDING || m == TEPLUG_MASK_PADDING_CAUSAL ||
         m == TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
}

int64_t KvHeads(const AttentionCase& c) { return c.gqa ? c.heads / 2 : c.heads; }

bool IsFp8DType(int32_t d) { return d == TEPLUG_DTYPE_FP8_E4M3 || d == TEPLUG_DTYPE_FP8_E5M2; }

std::string FormatAttentionCase(const AttentionCase& c) {
  std::string s =
      absl::StrCat("qkv_dtype=", sdk::DTypeName(c.dtype), ",layout=", sdk::LayoutName(c.layout),
                   ",mask=", sdk::MaskName(c.mask), ",bias=", sdk::BiasName(c.bias));
  if (TakesBiasTensor(c.bias)) absl::StrAppend(&s, ",bias_shape=", BiasShapeName(c));
  if (c.bias == TEPLUG_BIAS_ALIBI)
    absl::StrAppend(&s, ",alibi_slopes=", c.alibi_slopes_given ? "given" : "default");
  absl::StrAppend(&s, ",gqa=", int{c.gqa}, ",dropout=", c.dropout, ",window_left=", c.window_left,
                  ",window_right=", c.window_right, ",deterministic=", int{c.deterministic},
                  ",backward=", int{c.backward}, ",batch=", c.batch, ",seq_q=", c.seq_q,
                  ",seq_kv=", c.seq_kv, ",heads=", c.heads, ",head_dim=", c.head_dim,
                  ",head_dim_v=", c.head_dim_v);
  return s;
}

absl::StatusOr<AttentionCase> ParseAttentionCase(const std::string& text) {
  AttentionCase c;
  bool head_dim_v_given = false, bias_shape_given = false, slopes_given = false;
  std::map<std::string, int64_t*> dims = {{"batch", &c.batch},       {"seq_q", &c.seq_q},
                                          {"seq_kv", &c.seq_kv},     {"heads", &c.heads},
                                          {"head_dim", &c.head_dim}, {"head_dim_v", &c.head_dim_v}};
  std::map<std::string, bool*> flags = {
      {"gqa", &c.gqa}, {"deterministic", &c.deterministic}, {"backward", &c.backward}};
  std::map<std::string, int64_t*> windows = {{"window_left", &c.window_left},
                                             {"window_right", &c.window_right}};
  const absl::Status parsed =
      ForEachCaseItem(text, [&](const std::string& key, const std::string& value) -> absl::Status {
        auto bad = [&](const std::string& want) { return BadCaseValue(key, value, want); };
        if (key == "qkv_dtype") {
          if (!sdk::ParseDType(value, &c.dtype) ||
              std::count(std::begin(kDTypes), std::end(kDTypes), c.dtype) == 0)
            return bad("fp32, fp16, bf16, fp8_e4m3 or fp8_e5m2");
        } else if (key == "layout") {
          if (!sdk::ParseLayout(value, &c.layout))
            return bad("a layout name (bshd_bshd_bshd, ...)");
        } else if (key == "mask") {
          if (!sdk::ParseMask(value, &c.mask)) return bad("a mask type name (none, padding, ...)");
        } else if (key == "bias") {
          if (!sdk::ParseBias(value, &c.bias)) return bad("none, pre_scale, post_scale or alibi");
        } else if (key == "bias_shape") {
          if (value != "bh" && value != "1h" && value != "b1" && value != "11")
            return bad("bh, 1h, b1 or 11 (1 = broadcast)");
          c.bias_full_batch = value[0] == 'b';
          c.bias_full_heads = value[1] == 'h';
          bias_shape_given = true;
        } else if (key == "alibi_slopes") {
          if (value != "default" && value != "given") return bad("default or given");
          c.alibi_slopes_given = value == "given";
          slopes_given = true;
        } else if (key == "dropout") {
          if (!absl::SimpleAtod(value, &c.dropout) || !(c.dropout >= 0 && c.dropout < 1))
            return bad("a probability in [0, 1)");
        } else if (auto f = flags.find(key); f != flags.end()) {
          if (value != "0" && value != "1") return bad("0 or 1");
          *f->second = value == "1";
        } else if (auto w = windows.find(key); w != windows.end()) {
          if (!absl::SimpleAtoi(value, w->second) || *w->second < -1 || *w->second > 512)
            return bad("-1 (unbounded) or an integer in [0, 512]");
        } else if (auto d = dims.find(key); d != dims.end()) {
          if (!absl::SimpleAtoi(value, d->second) || *d->second < 1 || *d->second > 512)
            return bad("an integer in [1, 512]");
          head_dim_v_given = head_dim_v_given || key == "head_dim_v";
        } else {
          return absl::InvalidArgumentError(absl::StrCat(
              "--case: unknown key \"", key,
              "\" (keys: qkv_dtype, layout, mask, bias, bias_shape, alibi_slopes, gqa, dropout, "
              "window_left, window_right, deterministic, backward, batch, seq_q, seq_kv, heads, "
              "head_dim, head_dim_v)"));
        }
        return absl::OkStatus();
      });
  if (!parsed.ok()) return parsed;
  if (!head_dim_v_given) c.head_dim_v = c.head_dim;
  if (bias_shape_given && !TakesBiasTensor(c.bias))
    return absl::InvalidArgumentError(
        absl::StrCat("--case: bias_shape applies to bias=pre_scale or post_scale, not bias=",
                     sdk::BiasName(c.bias)));
  if (slopes_given && c.bias != TEPLUG_BIAS_ALIBI)
    return absl::InvalidArgumentError(absl::StrCat(
        "--case: alibi_slopes applies to bias=alibi, not bias=", sdk::BiasName(c.bias)));
  if (std::string why = Illegal(c); !why.empty())
    return absl::InvalidArgumentError(absl::StrCat("--case: ", why));
  return c;
}

std::vector<std::string> AttentionCaseClaims(const AttentionCase& c) {
  std::vector<std::string> e = {
      Claim("qkv_dtypes", sdk::DTypeName(c.dtype)), Claim("layouts", sdk::LayoutName(c.layout)),
      Claim("mask_types", sdk::MaskName(c.mask)), Claim("bias_types", sdk::BiasName(c.bias))};
  if (c.dropout > 0) e.push_back(Claim("features", "dropout"));
  if (UsesSlidingWindow(c)) e.push_back(Claim("features", "sliding_window"));
  if (c.gqa) e.push_back(Claim("features", "gqa"));
  if (c.deterministic) e.push_back(Claim("features", "deterministic"));
  if (c.backward) e.push_back(Claim("features", "backward"));
  if (c.head_dim != c.head_dim_v) e.push_back(Claim("features", "different_head_dims"));
  return e;
}

std::vector<std::string> AllAttentionClaims() {
  std::vector<std::string> all;
  for (int32_t d = 1; d < TEPLUG_DTYPE_COUNT_; ++d)
    all.push_back(Claim("qkv_dtypes", sdk::DTypeName(d)));
  for (int32_t l = 0; l < TEPLUG_LAYOUT_COUNT_; ++l)
    all.push_back(Claim("layouts", sdk::LayoutName(l)));
  for (int32_t m = 0; m < TEPLUG_MASK_COUNT_; ++m)
    all.push_back(Claim("mask_types", sdk::MaskName(m)));
  for (int32_t b = 0; b < TEPLUG_BIAS_COUNT_; ++b)
    all.push_back(Claim("bias_types", sdk::BiasName(b)));
  for (const char* f : kFeatures) all.push_back(Claim("features", f));
  return all;
}

bool AttentionClaimCheckable(const std::string& claim) {
  for (int32_t d = 1; d < TEPLUG_DTYPE_COUNT_; ++d) {
    if (claim == Claim("qkv_dtypes", sdk::DTypeName(d)))
      return std::count(std::begin(kDTypes), std::end(kDTypes), d) != 0;
  }
  return HasClaim(AllAttentionClaims(), claim);
}

std::vector<PlannedAttentionCase> PlanAttentionCases(const std::vector<std::string>& claims,
                                                     bool quick, uint64_t seed) {
  const Declared d = ReadDeclared(claims);
  std::vector<PlannedAttentionCase> plan;
  if (d.dtypes.empty() || d.layouts.empty() || d.masks.empty() || d.biases.empty()) return plan;
  std::set<std::string> planned;
  // Adds `c` made legal, when it still exercises only declared claims.
  auto add = [&](AttentionCase c, Pins pins) {
    if (!Fit(d, pins, &c)) return;
    for (const std::string& e : AttentionCaseClaims(c))
      if (!HasClaim(claims, e)) return;
    if (!planned.insert(FormatAttentionCase(c)).second) return;
    plan.push_back({c, seed + 7919 * plan.size()});
  };
  AttentionCase base;
  base.dtype = d.dtypes[0];
  base.layout = d.layouts[0];
  base.mask = d.masks[0];
  base.bias = First(d.biases, TEPLUG_BIAS_NONE);
  base.backward = d.Has("backward");
  add(base, {});
  for (int32_t t : d.dtypes) {
    AttentionCase c = base;
    c.dtype = t;
    add(c, {});
  }
  for (int32_t l : d.layouts) {
    AttentionCase c = base;
    c.layout = l;
    add(c, {/*layout=*/true, /*mask=*/false});
  }
  for (int32_t m : d.masks) {
    AttentionCase c = base;
    c.mask = m;
    add(c, {/*layout=*/false, /*mask=*/true});
  }
  for (int32_t b : d.biases) {
    AttentionCase c = base;
    c.bias = b;
    c.bias_full_batch = b != TEPLUG_BIAS_POST_SCALE;  // post_scale: a bias broadcast over batch
    add(c, {});
  }
  if (d.Has("dropout")) {
    AttentionCase c = base;
    c.dropout = 0.25;
    add(c, {});
  }
  if (d.Has("sliding_window")) {
    AttentionCase c = base;
    c.window_left = 3;
    c.window_right = IsCausalMask(c.mask) ? 0 : 2;
    add(c, {});
  }
  if (d.Has("gqa")) {
    AttentionCase c = base;
    c.gqa = true;
    add(c, {});
  }
  if (d.Has("deterministic")) {
    AttentionCase c = base;
    c.deterministic = true;
    add(c, {});
  }
  if (d.Has("different_head_dims")) {
    AttentionCase c = base;
    c.head_dim_v = c.head_dim / 2;
    add(c, {});
  }
  if (quick) return plan;
  // Sampled combinations: every declared value at random, with random
  // extents (seq_kv below seq_q too, a head count that is not a power of two).
  std::mt19937_64 rng(seed ^ 0x6a09e667f3bcc908ull);
  auto pick = [&](const std::vector<int32_t>& v) { return v[rng() % v.size()]; };
  auto coin = [&](const char* feature) { return d.Has(feature) && (rng() & 1) != 0; };
  for (int i = 0; i < 24; ++i) {
    AttentionCase c;
    c.dtype = pick(d.dtypes);
    c.layout = pick(d.layouts);
    c.mask = pick(d.masks);
    c.bias = pick(d.biases);
    c.bias_full_batch = (rng() & 1) != 0;
    c.bias_full_heads = (rng() & 1) != 0;
    c.alibi_slopes_given = (rng() & 1) != 0;
    c.gqa = coin("gqa");
    c.dropout = coin("dropout") ? 0.125 * static_cast<double>(1 + rng() % 4) : 0;
    if (coin("sliding_window")) {
      c.window_left = static_cast<int64_t>(rng() % 6);
      c.window_right = static_cast<int64_t>(rng() % 5) - 1;
    }
    c.deterministic = coin("deterministic");
    c.backward = d.Has("backward");
    c.batch = 1 + static_cast<int64_t>(rng() % 3);
    c.seq_q = 1 + static_cast<int64_t>(rng() % 20);
    c.seq_kv = 1 + static_cast<int64_t>(rng() % 20);
    c.heads = 2 * (1 + static_cast<int64_t>(rng() % 3));
    c.head_dim = 8 << (rng() % 3);
    c.head_dim_v = coin("different_head_dims") ? 8 << (rng() % 3) : c.head_dim;
    add(c, {});
  }
  return plan;
}

}  // namespace teplug::cli
