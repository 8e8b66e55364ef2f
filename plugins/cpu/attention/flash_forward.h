// The cpu provider's attention forward: flash-style, tiled over query rows
// (kQueryTile) and keys (kKeyTile) with an online softmax in fp32, so no
// [sq, skv] score matrix is ever built. Work items are (batch, query head,
// query tile), spread over `threads` threads; each item is computed by one
// thread in a fixed order, so results are the same for any thread count.
// K and V are first widened to fp32 (K transposed) once per (batch, kv head);
// bf16 inputs keep K and V in bf16 and run the tile products on oneDNN.
#ifndef TEPLUG_PLUGINS_CPU_ATTENTION_FLASH_FORWARD_H_
#define TEPLUG_PLUGINS_CPU_ATTENTION_FLASH_FORWARD_H_

#include <cstdint>

#include "plugins/cpu/attention/attention_call.h"
#include "plugins/cpu/attention/bf16_tile_matmul.h"

namespace teplug::cpu::attention {

inline constexpr int64_t kQueryTile = 64;
inline constexpr int64_t kKeyTile = 128;

// Whether the tile products run on bf16 operands (bf16_tile_matmul.h,
// probabilities rounded to bf16 for P V) rather than on fp32 loops
// (tile_products.h): Q, K and V are all bf16.
bool UsesBf16Tiles(const AttentionCall& call);

// Key rows the bf16 tiles keep per (batch, kv head) of K and V: max_skv and
// a key tile of zeros, so a full key tile starting at any key lies inside.
inline int64_t Bf16KeyRows(const AttentionCall& call) { return call.max_skv + kKeyTile; }

// Copies the bf16 keys and values of (batch, kv head) `item` (= b * hkv + h)
// that exist (len_kv[b] of them) into k [Bf16KeyRows][d_qk] and v
// [Bf16KeyRows][d_v]; the rows after them are left as they are (zero).
void CopyBf16KeysAndValues(const AttentionCall& call, int64_t item, uint16_t* k, uint16_t* v);

// The operands of the bf16 tile products, views of whole tiles (null data:
// the shape alone, for PrepareBf16TileMatmul): a [kQueryTile][width] tile
// (Q, dO, P or dS rows) and a [kKeyTile][width] block of K or V rows, each as
// stored (rows) or transposed (columns).
inline Bf16Matrix QueryTileRows(const uint16_t* tile, int64_t width) {
  return {tile, kQueryTile, width, width, 1};
}
inline Bf16Matrix QueryTileColumns(const uint16_t* tile, int64_t width) {
  return {tile, width, kQueryTile, 1, width};
}
inline Bf16Matrix KeyTileRows(const uint16_t* block, int64_t width) {
  return {block, kKeyTile, width, width, 1};
}
inline Bf16Matrix KeyTileColumns(const uint16_t* block, int64_t width) {
  return {block, width, kKeyTile, 1, width};
}

// Writes O (every row of the buffer: rows without visible keys and padding
// rows get 0) and, when requested, LSE (-inf for those rows). threads <= 0:
// one per hardware thread.
void FlashAttentionForward(const AttentionCall& call, int threads);

}  // namespace teplug::cpu::attention

#endif  // TEPLUG_PLUGINS_CPU_ATTENTION_FLASH_FORWARD_H_
