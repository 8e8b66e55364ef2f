// The cpu provider's attention forward: flash-style, tiled over query rows
// (kQueryTile) and keys (kKeyTile) with an online softmax in fp32, so no
// [sq, skv] score matrix is ever built. Work items are (batch, query head,
// query tile), spread over `threads` threads; each item is computed by one
// thread in a fixed order, so results are the same for any thread count.
// K and V are first widened to fp32 (K transposed) once per (batch, kv head).
#ifndef TEPLUG_PLUGINS_CPU_ATTENTION_FLASH_FORWARD_H_
#define TEPLUG_PLUGINS_CPU_ATTENTION_FLASH_FORWARD_H_

#include <cstdint>

#include "plugins/cpu/attention/attention_call.h"

namespace teplug::cpu::attention {

inline constexpr int64_t kQueryTile = 64;
inline constexpr int64_t kKeyTile = 128;

// Writes O (every row of the buffer: rows without visible keys and padding
// rows get 0) and, when requested, LSE (-inf for those rows). threads <= 0:
// one per hardware thread.
void FlashAttentionForward(const AttentionCall& call, int threads);

}  // namespace teplug::cpu::attention

#endif  // TEPLUG_PLUGINS_CPU_ATTENTION_FLASH_FORWARD_H_
