// The numeric limits a capability descriptor declares (head_dim_max,
// max_dim, alignment, hidden_multiple, max_world_size, ...) as `teplug
// conformance` honours and probes them. Each interface states once, in a
// table of LimitRule, which --case keys each limit field bounds; from that
// table alone this file
//  - fits every planned case inside the declared limits (a plugin whose
//    limits exclude the planner's default sizes is still tested; sizes equal
//    in a case stay equal where both keys' limits allow, as packed QKV
//    layouts need seq_q = seq_kv),
//  - builds, per declared limit, an edge case (the largest value a maximum
//    allows, the smallest a minimum or a multiple allows) that must pass the
//    numerics, and an outside case (one key just past that one limit, every
//    other limit kept) that the implementation must refuse,
//  - tells whether a --case text lies outside a declared limit (so a
//    reproduce line of a refusal re-runs the refusal check).
// Cases are handled as text ("key=value,..."), so nothing here knows an
// interface.
#ifndef TEPLUG_TOOLS_TEPLUG_CONFORMANCE_LIMITS_H_
#define TEPLUG_TOOLS_TEPLUG_CONFORMANCE_LIMITS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/kernel/kernel.h"

namespace teplug::cli {

enum class LimitKind {
  kMax,       // each key <= the limit (0: unbounded)
  kMin,       // each key >= the limit (0: no bound)
  kMultiple,  // each key a multiple of limit * per_unit (0 or 1: any)
};

// How one descriptor field bounds the keys of a case.
struct LimitRule {
  std::string field;  // the descriptor field, as `teplug list` names it: "head_dim_max"
  LimitKind kind = LimitKind::kMax;
  // The case keys it bounds. The edge and outside cases set them together
  // (head_dim and head_dim_v), so a rule per key probes keys one at a time.
  std::vector<std::string> keys;
  // The largest value conformance builds for those keys (their --case bound).
  int64_t cap = 0;
  // kMultiple: the keys' multiple is the declared value times this. GEMM's
  // alignment is in bytes and an fp4 operand holds two elements a byte, so
  // a dimension that is a multiple of 2 * alignment elements is aligned in
  // every dtype.
  int64_t per_unit = 1;
  // The step the planner varies the keys by (head dims: 8). Fitting to a
  // multiple m maps v to m * ceil(v / unit), so keys that differed still
  // differ (head_dim 16 and head_dim_v 8 stay a case of different head
  // dims); 0: v is rounded up to m.
  int64_t unit = 0;
  // Items set in the edge and outside cases besides the keys (GEMM's
  // alignment probes "trans_a=0,trans_b=1", where k and n are leading
  // dimensions); "" for none.
  std::string probe_with;
  // kMultiple: the smallest declared value an outside case is built for
  // (GEMM's alignment: 8, as a dimension one element past a multiple is
  // still aligned to 4 bytes with fp32 elements); 0: any.
  int64_t outside_from = 0;
  // false: the rule only fits cases (a key no probe can speak for alone).
  bool probe = true;
};

// A limit the descriptor sets (a non-zero value that bounds something).
struct DeclaredLimit {
  const LimitRule* rule = nullptr;
  int64_t value = 0;
  // "head_dim_max=128 (head_dim, head_dim_v)": the report's row.
  std::string Claim() const;
};

// The limits `impl`'s descriptor sets among `rules`' fields (a kMultiple of
// 1 and every 0 bound nothing and are left out).
std::vector<DeclaredLimit> DeclaredLimits(const core::ImplementationListing& impl,
                                          const std::vector<LimitRule>& rules);

// `text` with every key a declared limit bounds moved inside all of them;
// the error names a key no value fits (a minimum above the maximum).
absl::StatusOr<std::string> FitCase(const std::string& text,
                                    const std::vector<DeclaredLimit>& limits);

// The probes of one declared limit, built from a (fitted) base case.
struct LimitProbe {
  DeclaredLimit limit;
  std::string edge;     // inside every limit, at this one's edge; "" when none fits
  std::string outside;  // past this limit only; "" when none can be built
  std::string why_no_outside;  // set when `outside` is empty
};
// Probes for every declared limit whose rule probes.
std::vector<LimitProbe> PlanLimitProbes(const std::string& base,
                                        const std::vector<DeclaredLimit>& limits);

// The first declared limit `text` lies outside, if any.
std::optional<DeclaredLimit> LimitBroken(const std::string& text,
                                         const std::vector<DeclaredLimit>& limits);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CONFORMANCE_LIMITS_H_
