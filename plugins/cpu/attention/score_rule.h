// The score rule of attention.h applied to a run of one query row's q.k
// products: scale, then the pre-scale or post-scale bias tensor or the ALiBi
// distance penalty. Shared by the forward and the backward, so both see the
// same fp32 scores.
#ifndef TEPLUG_PLUGINS_CPU_ATTENTION_SCORE_RULE_H_
#define TEPLUG_PLUGINS_CPU_ATTENTION_SCORE_RULE_H_

#include <cstdint>

#include "plugins/cpu/attention/attention_call.h"

namespace teplug::cpu::attention {

// For lo <= c < hi: s[c] holds q_i . k_j of key j = j0 + c of query row i
// (batch b, query head h) and becomes S'_ij. `scratch` has room for hi
// floats (the bias row is read into it).
void ApplyScoreRule(const AttentionCall& call, int64_t b, int64_t h, int64_t i, int64_t j0,
                    float* s, int64_t lo, int64_t hi, float* scratch);

}  // namespace teplug::cpu::attention

#endif  // TEPLUG_PLUGINS_CPU_ATTENTION_SCORE_RULE_H_
