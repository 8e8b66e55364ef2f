// The attention dropout mask of attention.h ("Dropout RNG"), computed with
// Philox4x32-10 so that it equals every other provider's mask bit for bit:
//   linear  = ((b * Hq + h) * max_sq + i) * max_skv + j
//   counter = rng_offset + linear / 4 (128-bit), key = (seed low, seed high)
//   keep    = Philox4x32_10(counter, key).word[linear % 4] * 2^-32 >= p
#ifndef TEPLUG_PLUGINS_CPU_ATTENTION_DROPOUT_PHILOX_H_
#define TEPLUG_PLUGINS_CPU_ATTENTION_DROPOUT_PHILOX_H_

#include <cstdint>

namespace teplug::cpu::attention {

// 128 bits: the counter in, or the random words out (word 0 least
// significant).
struct PhiloxWords {
  uint32_t word[4];
};

// Random123's philox4x32 with 10 rounds (multipliers 0xD2511F53,
// 0xCD9E8D57; key increments 0x9E3779B9, 0xBB67AE85).
PhiloxWords Philox4x32x10(PhiloxWords counter, uint32_t key0, uint32_t key1);

// The dropout stream of one call: which factor each (b, h, i, j) of the
// padded grid [batch, heads, max_sq, max_skv] multiplies its probability by.
class DropoutMask {
 public:
  DropoutMask(uint64_t seed, uint64_t offset, double p, int64_t heads, int64_t max_sq,
              int64_t max_skv);

  // factors[c] for keys j0 .. j0 + count - 1 of row (b, h, i): 1/(1-p) kept,
  // 0 dropped.
  void RowFactors(int64_t b, int64_t h, int64_t i, int64_t j0, int64_t count, float* factors) const;

 private:
  uint64_t offset_;
  uint32_t key0_, key1_;
  double p_;
  float kept_factor_;
  uint64_t heads_, max_sq_, max_skv_;
};

}  // namespace teplug::cpu::attention

#endif  // TEPLUG_PLUGINS_CPU_ATTENTION_DROPOUT_PHILOX_H_
