// The reference attention dropout mask: a documented, counter-based mapping
// from (seed, offset, b, h, i, j) to a keep/drop decision, so that any provider
// can reproduce exactly the mask the reference used.
//
// Mapping (all integer arithmetic unsigned; "word" = 32 bits):
//   Grid: the logical attention-probability grid [B, Hq, max_sq, max_skv]
//         (batch, query head, query position, key position); positions are
//         the padded ones, not packed thd token indices.
//   linear = ((b * Hq + h) * max_sq + i) * max_skv + j          (uint64)
//   key    = (seed & 0xFFFFFFFF, seed >> 32)                     (Philox key words)
//   c      = offset + floor(linear / 4), computed as a 128-bit unsigned sum of
//            the two uint64 values (offset counts Philox blocks, 4 uniforms each)
//   counter words = (c bits 0..31, c bits 32..63, c bits 64..95, c bits 96..127)
//   r      = Philox4x32_10(counter, key).word[linear % 4]
//   u      = r * 2^-32                                          (in [0, 1))
//   keep   = (u >= p); a kept probability is multiplied by 1 / (1 - p),
//            a dropped one becomes 0.
// A caller that runs several dropout launches with one seed advances `offset`
// by at least ceil(B * Hq * max_sq * max_skv / 4) between them.
#ifndef TEPLUG_PLUGINS_REFERENCE_KERNELS_DROPOUT_MASK_H_
#define TEPLUG_PLUGINS_REFERENCE_KERNELS_DROPOUT_MASK_H_

#include <cstdint>

#include "absl/status/status.h"

namespace teplug {
namespace reference {

// Shape of the logical grid the mask is defined on.
struct DropoutGrid {
  int64_t batch = 0;
  int64_t heads = 0;    // query heads (Hq)
  int64_t max_sq = 0;   // padded query length
  int64_t max_skv = 0;  // padded key/value length
};

// Where the random stream starts: Philox key from `seed`, first counter block
// `offset`.
struct DropoutStream {
  uint64_t seed = 0;
  uint64_t offset = 0;
};

// Checks that every extent of `grid` is positive and the element count fits
// in uint64; the message names the offending extent.
absl::Status ValidateDropoutGrid(const DropoutGrid& grid);

// Checks 0 <= p < 1 (p == 1 would make the 1/(1-p) scale infinite).
absl::Status ValidateDropoutProbability(double p);

// Row-major index of (b, h, i, j) in the grid (the `linear` above).
// Precondition: indices within the grid.
uint64_t DropoutLinearIndex(const DropoutGrid& grid, int64_t b, int64_t h,
                            int64_t i, int64_t j);

// The uniform u in [0, 1) for one grid element, per the mapping above.
double DropoutUniform(const DropoutStream& stream, const DropoutGrid& grid,
                      int64_t b, int64_t h, int64_t i, int64_t j);

// The keep decision (u >= p) for one grid element.
bool DropoutKeep(const DropoutStream& stream, const DropoutGrid& grid,
                 double p, int64_t b, int64_t h, int64_t i, int64_t j);

// The factor a probability is multiplied by: 1/(1-p) when kept, 0 when
// dropped.
double DropoutFactor(const DropoutStream& stream, const DropoutGrid& grid,
                     double p, int64_t b, int64_t h, int64_t i, int64_t j);

}  // namespace reference
}  // namespace teplug

#endif  // TEPLUG_PLUGINS_REFERENCE_KERNELS_DROPOUT_MASK_H_
