// Philox4x32-10 counter-based random number generator (Salmon, Moraes, Dror,
// Shaw: "Parallel Random Numbers: As Easy as 1, 2, 3", SC'11), the variant
// Random123 calls philox4x32 with 10 rounds.
//
// Header-only, no dependencies and every function constexpr, so that a CUDA
// (or any other) provider can include this very file and produce bit-identical
// streams: the reference dropout mask (dropout_mask.h) is defined on top of it.
//
// Definition (one block):
//   input  counter x = (x0, x1, x2, x3), key k = (k0, k1), all uint32
//   round(x, k):
//     (hi0, lo0) = 64-bit product 0xD2511F53 * x0, split in high/low 32 bits
//     (hi1, lo1) = 64-bit product 0xCD9E8D57 * x2
//     x' = (hi1 ^ x1 ^ k0, lo1, hi0 ^ x3 ^ k1, lo0)
//   bump(k) = (k0 + 0x9E3779B9, k1 + 0xBB67AE85)   (mod 2^32)
//   output = round applied 10 times, with bump(k) applied between rounds
//            (rounds use k, bump(k), bump(bump(k)), ...).
#ifndef TEPLUG_PLUGINS_REFERENCE_KERNELS_PHILOX_H_
#define TEPLUG_PLUGINS_REFERENCE_KERNELS_PHILOX_H_

#include <cstdint>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define TEPLUG_PHILOX_HOST_DEVICE __host__ __device__
#else
#define TEPLUG_PHILOX_HOST_DEVICE
#endif

namespace teplug {
namespace reference {

// The 128-bit counter (input) or the 128 output bits of one Philox block, as
// four 32-bit words; word 0 is the least significant in counter arithmetic.
struct Philox4x32Block {
  uint32_t word[4];
};

// The 64-bit key as two 32-bit words.
struct Philox4x32Key {
  uint32_t word[2];
};

// Multipliers and Weyl key increments from the paper (Random123's
// PHILOX_M4x32_0/1 and PHILOX_W32_0/1).
inline constexpr uint32_t kPhiloxMultiplier0 = 0xD2511F53u;
inline constexpr uint32_t kPhiloxMultiplier1 = 0xCD9E8D57u;
inline constexpr uint32_t kPhiloxKeyIncrement0 = 0x9E3779B9u;
inline constexpr uint32_t kPhiloxKeyIncrement1 = 0xBB67AE85u;
// Number of rounds of the standard variant.
inline constexpr int kPhiloxRounds = 10;

// One Philox S-box round of the 4x32 variant.
TEPLUG_PHILOX_HOST_DEVICE constexpr Philox4x32Block Philox4x32Round(
    Philox4x32Block x, Philox4x32Key k) {
  const uint64_t product0 = static_cast<uint64_t>(kPhiloxMultiplier0) * x.word[0];
  const uint64_t product1 = static_cast<uint64_t>(kPhiloxMultiplier1) * x.word[2];
  const uint32_t hi0 = static_cast<uint32_t>(product0 >> 32);
  const uint32_t lo0 = static_cast<uint32_t>(product0);
  const uint32_t hi1 = static_cast<uint32_t>(product1 >> 32);
  const uint32_t lo1 = static_cast<uint32_t>(product1);
  return Philox4x32Block{{hi1 ^ x.word[1] ^ k.word[0], lo1,
                          hi0 ^ x.word[3] ^ k.word[1], lo0}};
}

// The key schedule step applied between rounds.
TEPLUG_PHILOX_HOST_DEVICE constexpr Philox4x32Key Philox4x32BumpKey(
    Philox4x32Key k) {
  return Philox4x32Key{{static_cast<uint32_t>(k.word[0] + kPhiloxKeyIncrement0),
                        static_cast<uint32_t>(k.word[1] + kPhiloxKeyIncrement1)}};
}

// Philox4x32-10: the 128 random bits for `counter` under `key`.
TEPLUG_PHILOX_HOST_DEVICE constexpr Philox4x32Block Philox4x32_10(
    Philox4x32Block counter, Philox4x32Key key) {
  Philox4x32Block x = Philox4x32Round(counter, key);
  for (int round = 1; round < kPhiloxRounds; ++round) {
    key = Philox4x32BumpKey(key);
    x = Philox4x32Round(x, key);
  }
  return x;
}

}  // namespace reference
}  // namespace teplug

#endif  // TEPLUG_PLUGINS_REFERENCE_KERNELS_PHILOX_H_
