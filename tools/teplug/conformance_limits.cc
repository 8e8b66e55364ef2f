#include "tools/teplug/conformance_limits.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace teplug::cli {
namespace {

// A case's items in order, editable by key.
class CaseItems {
 public:
  explicit CaseItems(const std::string& text) {
    for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
      std::vector<std::string> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
      items_.emplace_back(kv[0], kv.size() > 1 ? kv[1] : "");
    }
  }
  // The key's value as an integer, if the case sets it to one.
  std::optional<int64_t> Get(const std::string& key) const {
    int64_t v = 0;
    for (const auto& [k, value] : items_)
      if (k == key && absl::SimpleAtoi(value, &v)) return v;
    return std::nullopt;
  }
  void Set(const std::string& key, const std::string& value) {
    for (auto& [k, v] : items_) {
      if (k != key) continue;
      v = value;
      return;
    }
    items_.emplace_back(key, value);
  }
  void SetAll(const std::string& items) {
    for (const auto& [k, v] : CaseItems(items).items_) Set(k, v);
  }
  std::string Text() const {
    std::vector<std::string> parts;
    for (const auto& [k, v] : items_) parts.push_back(absl::StrCat(k, "=", v));
    return absl::StrJoin(parts, ",");
  }

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

int64_t RoundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }
int64_t RoundDown(int64_t v, int64_t m) { return v / m * m; }

// What the declared limits allow one key.
struct KeyBounds {
  int64_t lo = 1, hi = std::numeric_limits<int64_t>::max(), multiple = 1, unit = 0;
  bool bounded = false;  // some declared limit names the key
};

int64_t MultipleOf(const DeclaredLimit& l) { return l.value * l.rule->per_unit; }

KeyBounds BoundsOf(const std::string& key, const std::vector<DeclaredLimit>& limits) {
  KeyBounds b;
  for (const DeclaredLimit& l : limits) {
    const LimitRule& r = *l.rule;
    if (std::find(r.keys.begin(), r.keys.end(), key) == r.keys.end()) continue;
    b.bounded = true;
    b.hi = std::min(b.hi, r.cap);
    b.unit = std::max(b.unit, r.unit);
    switch (r.kind) {
      case LimitKind::kMax: b.hi = std::min(b.hi, l.value); break;
      case LimitKind::kMin: b.lo = std::max(b.lo, l.value); break;
      case LimitKind::kMultiple: b.multiple = std::lcm(b.multiple, MultipleOf(l)); break;
    }
  }
  return b;
}

// The value nearest `v` (upwards first) inside `b`; `spread` maps v to
// multiple * ceil(v / unit) first. Nullopt when nothing fits.
std::optional<int64_t> Fit(int64_t v, const KeyBounds& b, bool spread) {
  const int64_t m = b.multiple;
  if (m > 1) v = spread && b.unit > 0 ? m * ((v + b.unit - 1) / b.unit) : RoundUp(v, m);
  v = std::max(v, RoundUp(b.lo, m));
  if (v > b.hi) v = RoundDown(b.hi, m);
  if (v < b.lo || v < 1) return std::nullopt;
  return v;
}

// Bounds inside both `x` and `y`.
KeyBounds Both(const KeyBounds& x, const KeyBounds& y) {
  KeyBounds b;
  b.lo = std::max(x.lo, y.lo);
  b.hi = std::min(x.hi, y.hi);
  b.multiple = std::lcm(x.multiple, y.multiple);
  b.unit = std::max(x.unit, y.unit);
  b.bounded = x.bounded || y.bounded;
  return b;
}

// Fits every bounded key of `items` but those in `keep`. Keys equal before
// stay equal when a value inside both their bounds exists (a packed QKV
// layout needs seq_q = seq_kv, whatever max_seqlen_q and max_seqlen_kv say).
absl::Status FitItems(CaseItems* items, const std::vector<DeclaredLimit>& limits,
                      const std::set<std::string>& keep) {
  std::set<std::string> keys;
  for (const DeclaredLimit& l : limits) keys.insert(l.rule->keys.begin(), l.rule->keys.end());
  std::vector<std::pair<std::string, int64_t>> before;
  for (const std::string& key : keys) {
    const std::optional<int64_t> v = items->Get(key);
    if (!v || keep.count(key)) continue;
    before.emplace_back(key, *v);
    const KeyBounds b = BoundsOf(key, limits);
    const std::optional<int64_t> fitted = Fit(*v, b, true);
    if (!fitted) {
      return absl::FailedPreconditionError(absl::StrCat(
          "no value of ", key, " is inside the declared limits (at least ", b.lo, ", at most ",
          b.hi, ", a multiple of ", b.multiple, ")"));
    }
    items->Set(key, absl::StrCat(*fitted));
  }
  for (size_t i = 0; i < before.size(); ++i) {
    for (size_t j = i + 1; j < before.size(); ++j) {
      const auto& [x, x_was] = before[i];
      const auto& [y, y_was] = before[j];
      if (x_was != y_was || items->Get(x) == items->Get(y)) continue;
      if (const std::optional<int64_t> v =
              Fit(x_was, Both(BoundsOf(x, limits), BoundsOf(y, limits)), true)) {
        items->Set(x, absl::StrCat(*v));
        items->Set(y, absl::StrCat(*v));
      }
    }
  }
  return absl::OkStatus();
}

bool Breaks(int64_t v, const DeclaredLimit& l) {
  switch (l.rule->kind) {
    case LimitKind::kMax: return v > l.value;
    case LimitKind::kMin: return v < l.value;
    case LimitKind::kMultiple: return v % MultipleOf(l) != 0;
  }
  return false;
}

}  // namespace

std::string DeclaredLimit::Claim() const {
  return absl::StrCat(rule->field, "=", value, " (", absl::StrJoin(rule->keys, ", "), ")");
}

std::vector<DeclaredLimit> DeclaredLimits(const core::ImplementationListing& impl,
                                          const std::vector<LimitRule>& rules) {
  std::vector<DeclaredLimit> out;
  for (const LimitRule& r : rules) {
    for (const core::CapabilityField& f : impl.capability_fields) {
      if (f.name != r.field || f.is_set || f.number <= 0) continue;
      if (r.kind == LimitKind::kMultiple && f.number == 1) continue;
      out.push_back({&r, f.number});
    }
  }
  return out;
}

absl::StatusOr<std::string> FitCase(const std::string& text,
                                    const std::vector<DeclaredLimit>& limits) {
  CaseItems items(text);
  if (absl::Status st = FitItems(&items, limits, {}); !st.ok()) return st;
  return items.Text();
}

std::vector<LimitProbe> PlanLimitProbes(const std::string& base,
                                        const std::vector<DeclaredLimit>& limits) {
  std::vector<LimitProbe> probes;
  for (const DeclaredLimit& l : limits) {
    const LimitRule& r = *l.rule;
    if (!r.probe) continue;
    LimitProbe p;
    p.limit = l;
    CaseItems items(base);
    if (!r.probe_with.empty()) items.SetAll(r.probe_with);
    if (!items.Get(r.keys[0])) continue;  // the case has no such key
    const KeyBounds b = BoundsOf(r.keys[0], limits);
    const std::set<std::string> keep(r.keys.begin(), r.keys.end());
    // The edge: the largest value a maximum allows, the smallest a minimum
    // or a multiple allows.
    const std::optional<int64_t> edge =
        Fit(r.kind == LimitKind::kMax ? std::min(l.value, r.cap)
            : r.kind == LimitKind::kMin ? l.value
                                        : 1,
            b, false);
    CaseItems edge_items = items;
    if (edge) {
      for (const std::string& k : r.keys) edge_items.Set(k, absl::StrCat(*edge));
      if (FitItems(&edge_items, limits, keep).ok()) p.edge = edge_items.Text();
    }
    // Outside: just past this limit, on the other limits' multiple.
    std::optional<int64_t> out;
    switch (r.kind) {
      case LimitKind::kMax:
        out = RoundUp(l.value + 1, b.multiple);
        if (*out > r.cap) {
          p.why_no_outside = absl::StrCat("a case past it (", r.keys[0], " ", *out,
                                          ") is larger than conformance builds (", r.cap, ")");
          out.reset();
        }
        break;
      case LimitKind::kMin:
        out = RoundDown(l.value - 1, b.multiple);
        if (*out < 1) {
          p.why_no_outside = absl::StrCat("no ", r.keys[0], " of at least 1 is below it");
          out.reset();
        }
        break;
      case LimitKind::kMultiple:
        if (l.value < r.outside_from) {
          p.why_no_outside = absl::StrCat("below ", r.outside_from,
                                          " no case size breaks it in every dtype");
        } else if (edge && *edge + 1 <= b.hi) {
          out = *edge + 1;
        } else if (edge && *edge - 1 >= std::max<int64_t>(b.lo, 1)) {
          out = *edge - 1;
        } else {
          p.why_no_outside = "the other limits leave no size that is not a multiple";
        }
        break;
    }
    if (out) {
      CaseItems out_items = edge_items;
      for (const std::string& k : r.keys) out_items.Set(k, absl::StrCat(*out));
      p.outside = out_items.Text();
    }
    probes.push_back(p);
  }
  return probes;
}

std::optional<DeclaredLimit> LimitBroken(const std::string& text,
                                         const std::vector<DeclaredLimit>& limits) {
  const CaseItems items(text);
  for (const DeclaredLimit& l : limits) {
    for (const std::string& k : l.rule->keys) {
      const std::optional<int64_t> v = items.Get(k);
      if (v && Breaks(*v, l)) return l;
    }
  }
  return std::nullopt;
}

}  // namespace teplug::cli
