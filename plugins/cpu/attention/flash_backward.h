// The cpu provider's attention backward, flash-style: the probabilities are
// rebuilt tile by tile from the forward's LSE (P_ij = exp(S'_ij - LSE_i)),
// never as a whole [sq, skv] matrix, and with Z the forward's dropout factor
//   dV_j += Z_ij P_ij dO_i,   dP_ij = Z_ij (dO_i . V_j),   D_i = dO_i . O_i,
//   dS_ij = P_ij (dP_ij - D_i),
//   dQ_i += scale dS_ij K_j,  dK_j += scale dS_ij Q_i,
//   dBias_ij += (scale for pre_scale, 1 for post_scale) dS_ij,
// all accumulated in fp32. dK and dV per key tile of a (batch, kv head),
// summed over the query heads of the group (GQA) in a fixed order. Without
// dBias that is the only pass: its items own groups of key tiles (a fixed
// number per (batch, kv head), not depending on the threads) and each sums
// its dS K terms into its group's dQ buffer, added over the groups in order
// at the end. With dBias a second pass, without shared writes, recomputes
// the tiles for dQ per (batch, query head, query tile) and a broadcast dBias
// per query tile summed over the batches and heads it broadcasts to, again
// in a fixed order. Every work item runs on one thread in a fixed order, so
// the bytes out are the same for any thread count and on every run
// (TEPLUG_ATTN_CAP_DETERMINISTIC holds). bf16 Q, K, V and dO run the tile
// products on oneDNN (bf16_tile_matmul.h) with Z∘P and dS rounded to bf16.
#ifndef TEPLUG_PLUGINS_CPU_ATTENTION_FLASH_BACKWARD_H_
#define TEPLUG_PLUGINS_CPU_ATTENTION_FLASH_BACKWARD_H_

#include "plugins/cpu/attention/attention_call.h"

namespace teplug::cpu::attention {

// Writes every element of dq, dk, dv (padding rows and thd tokens past the
// last sequence get 0, as do rows whose LSE is -inf) and of dbias when
// wanted (0 where no key is visible). threads <= 0: one per hardware thread.
void FlashAttentionBackward(const BackwardCall& call, int threads);

}  // namespace teplug::cpu::attention

#endif  // TEPLUG_PLUGINS_CPU_ATTENTION_FLASH_BACKWARD_H_
