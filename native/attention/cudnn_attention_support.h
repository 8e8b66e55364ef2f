// Which attention calls cuDNN's fused attention serves, per GPU arch and
// cuDNN version: TransformerEngine's rules for its cuDNN backends, in one
// table, as plain host code (no cuDNN include), tested against fake device
// lists and versions.
//
// Read from TransformerEngine 2.20.0.dev0, commit
// d0067d0da6cb01811b8072a7d304f0e00344ce2b:
//  - transformer_engine/common/fused_attn/fused_attn.cpp,
//    nvte_get_fused_attn_backend (the F16 "arbitrary seqlen" and FP8 backends);
//  - transformer_engine/pytorch/attention/dot_product_attention/utils.py,
//    get_attention_backend (sm_80 floor, qkv dtypes, bias types, FP8
//    recipes, determinism).
// Where cuDNN frontend 1.16 (the one native is built with) refuses what TE's
// table allows, a rule says so and names the frontend's check (bias, ALiBi
// and dropout with a bottom-right diagonal; a deterministic backward on
// sm_10x). Only cuDNN 9.0 and newer is modelled: older versions are refused
// as a whole. TE's "is_training" (a backward will run) is teplug's backward
// op and a forward with is_training; the determinism rules, which concern
// only cuDNN's backward kernels (its forward is deterministic), apply to the
// backward op.
#ifndef TEPLUG_NATIVE_ATTENTION_CUDNN_ATTENTION_SUPPORT_H_
#define TEPLUG_NATIVE_ATTENTION_CUDNN_ATTENTION_SUPPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "teplug/attention.h"

namespace teplug::native::attention {

// An attention call as the rules see it.
struct AttentionQuery {
  int32_t arch = 0;           // compute capability major * 10 + minor
  int32_t cudnn_version = 0;  // cudnnGetVersion(): major * 10000 + minor * 100 + patch
  bool backward = false;      // the backward op
  bool training = false;      // params.is_training
  int32_t dtype = 0;          // TeplugDType of Q, K, V
  int32_t layout = 0;         // TeplugQkvLayout
  int32_t mask_type = 0;
  int32_t bias_type = 0;
  float dropout = 0.0f;  // the effective probability (0 unless training)
  int64_t batch = 1, heads_q = 1, heads_kv = 1, seq_q = 1, seq_kv = 1, dim_qk = 64, dim_v = 64;
  int64_t window_left = -1, window_right = -1;  // as the call gives them
  bool deterministic = false;
  bool dbias = false;  // backward writes dBias
};

// One rule of the table: its name and the reason it refuses a query ("" when
// it does not). Reasons name the values they reject.
struct AttentionRule {
  const char* name;
  std::string (*why_not)(const AttentionQuery&);
};

// The table, in the order the rules are asked.
const std::vector<AttentionRule>& CudnnAttentionRules();

// "" when cuDNN serves the query; otherwise the first refusing rule's reason,
// prefixed with the version and arch: "cuDNN 9.19 on sm_80: head_dim 256
// backward needs sm_90".
std::string WhyCudnnRefuses(const AttentionQuery& query);

// "9.19", "9.10.1": a cudnnGetVersion() number as people write it.
std::string CudnnVersionText(int32_t version);

// TeplugAttentionParams (and the op) as a query for `arch` and `cudnn_version`.
AttentionQuery QueryOf(const TeplugAttentionParams& params, bool backward, int32_t dtype, bool dbias,
                       int32_t arch, int32_t cudnn_version);

}  // namespace teplug::native::attention

#endif  // TEPLUG_NATIVE_ATTENTION_CUDNN_ATTENTION_SUPPORT_H_
