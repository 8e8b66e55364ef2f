// The numerics cases of `teplug conformance` for IAttention/1: what one
// case is, its --case spelling, the claims it exercises, and the plan (one
// case per declared claim, then sampled combinations). Spelled for --case as
//   "qkv_dtype=bf16,layout=thd_t2hd,mask=padding_causal,bias=post_scale,
//    bias_shape=1h,gqa=1,dropout=0.25,window_left=3,window_right=-1,
//    deterministic=0,backward=1,batch=2,seq_q=8,seq_kv=12,heads=4,
//    head_dim=16,head_dim_v=16"
// (bias_shape only with pre_scale/post_scale, alibi_slopes=default|given only
// with alibi). The per-sequence lengths of padding masks and THD layouts,
// the dropout RNG seed and offset, and every value come from --seed.
#ifndef TEPLUG_TOOLS_TEPLUG_CONFORMANCE_ATTENTION_CASE_H_
#define TEPLUG_TOOLS_TEPLUG_CONFORMANCE_ATTENTION_CASE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "teplug/teplug.h"

namespace teplug::cli {

struct AttentionCase {
  int32_t dtype = TEPLUG_DTYPE_FP32;
  int32_t layout = TEPLUG_LAYOUT_BSHD_BSHD_BSHD;
  int32_t mask = TEPLUG_MASK_NONE;
  int32_t bias = TEPLUG_BIAS_NONE;
  // pre_scale/post_scale bias extents: full (true) or broadcast 1 (false).
  bool bias_full_batch = true, bias_full_heads = true;
  // alibi: an alibi_slopes tensor (true) or NULL, the default slopes.
  bool alibi_slopes_given = false;
  bool gqa = false;  // num_heads_kv = heads / 2
  double dropout = 0;
  int64_t window_left = -1, window_right = -1;
  bool deterministic = false;  // params.deterministic; two runs bit-identical
  bool backward = false;       // the backward runs too
  // Small, so that the 4-thread contract check (32 forward and backward
  // runs of the first case by the plugin and the reference) stays quick.
  int64_t batch = 2, seq_q = 8, seq_kv = 12, heads = 4, head_dim = 16, head_dim_v = 16;
};

// How a layout holds Q, K and V: its format and which members share one buffer.
enum class QkvFormat { kSbhd, kBshd, kThd };
enum class QkvPacking { kSeparate, kKvPacked, kQkvPacked };
QkvFormat FormatOf(int32_t layout);
QkvPacking PackingOf(int32_t layout);
// Whether the packed axis ("3"/"2") comes after the heads (sbh3d, bshd_bsh2d, th3d, ...).
bool PackedAfterHeads(int32_t layout);
// The mask types that read per-sequence lengths (cu_seqlens).
bool IsPaddingMask(int32_t mask);
int64_t KvHeads(const AttentionCase& c);
bool IsFp8DType(int32_t dtype);

std::string FormatAttentionCase(const AttentionCase& c);
// Errors name the key and value, or the combination the ABI forbids.
absl::StatusOr<AttentionCase> ParseAttentionCase(const std::string& text);

// The claims ("field=member") the case exercises.
std::vector<std::string> AttentionCaseClaims(const AttentionCase& c);
// Every claim a TeplugAttentionCaps can make.
std::vector<std::string> AllAttentionClaims();
// Whether conformance builds cases for `claim`.
bool AttentionClaimCheckable(const std::string& claim);

struct PlannedAttentionCase {
  AttentionCase c;
  uint64_t seed = 0;
};
// One case per checkable declared claim (each with backward when "backward"
// is declared), then, unless quick, sampled combinations of the declared
// claims with random extents; every case legal and within the declared
// claims. A claim no legal case can pair with the others (a THD layout
// without a declared padding mask) gets no case.
std::vector<PlannedAttentionCase> PlanAttentionCases(const std::vector<std::string>& claims,
                                                     bool quick, uint64_t seed);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CONFORMANCE_ATTENTION_CASE_H_
