#include "plugins/cpu/attention/dropout_philox.h"

namespace teplug::cpu::attention {

PhiloxWords Philox4x32x10(PhiloxWords x, uint32_t key0, uint32_t key1) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key0 += 0x9E3779B9u;
      key1 += 0xBB67AE85u;
    }
    const uint64_t product0 = static_cast<uint64_t>(0xD2511F53u) * x.word[0];
    const uint64_t product1 = static_cast<uint64_t>(0xCD9E8D57u) * x.word[2];
    x = PhiloxWords{{static_cast<uint32_t>(product1 >> 32) ^ x.word[1] ^ key0,
                     static_cast<uint32_t>(product1),
                     static_cast<uint32_t>(product0 >> 32) ^ x.word[3] ^ key1,
                     static_cast<uint32_t>(product0)}};
  }
  return x;
}

DropoutMask::DropoutMask(uint64_t seed, uint64_t offset, double p, int64_t heads, int64_t max_sq,
                         int64_t max_skv)
    : offset_(offset),
      key0_(static_cast<uint32_t>(seed)),
      key1_(static_cast<uint32_t>(seed >> 32)),
      p_(p),
      kept_factor_(static_cast<float>(1.0 / (1.0 - p))),
      heads_(static_cast<uint64_t>(heads)),
      max_sq_(static_cast<uint64_t>(max_sq)),
      max_skv_(static_cast<uint64_t>(max_skv)) {}

void DropoutMask::RowFactors(int64_t b, int64_t h, int64_t i, int64_t j0, int64_t count,
                             float* factors) const {
  const uint64_t row = ((static_cast<uint64_t>(b) * heads_ + static_cast<uint64_t>(h)) * max_sq_ +
                        static_cast<uint64_t>(i)) *
                       max_skv_;
  PhiloxWords bits{};
  uint64_t cached_block = ~uint64_t{0};
  for (int64_t c = 0; c < count; ++c) {
    const uint64_t linear = row + static_cast<uint64_t>(j0 + c);
    const uint64_t block = linear / 4;
    if (block != cached_block || c == 0) {
      const uint64_t low = offset_ + block;
      const uint32_t carry = low < offset_ ? 1u : 0u;
      bits = Philox4x32x10(
          PhiloxWords{{static_cast<uint32_t>(low), static_cast<uint32_t>(low >> 32), carry, 0u}},
          key0_, key1_);
      cached_block = block;
    }
    const double u = static_cast<double>(bits.word[linear % 4]) * 0x1p-32;
    factors[c] = u >= p_ ? kept_factor_ : 0.0f;
  }
}

}  // namespace teplug::cpu::attention
