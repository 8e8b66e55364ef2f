// The fp16/bf16 converters against the reference's (an independent
// implementation of the same formats): every 16-bit pattern decodes to the
// same float, and encoding agrees on every decoded value, on the midpoints
// between neighbours (ties to even) and on random floats, overflow included.
#include "plugins/cpu/collective/half_float.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "gtest/gtest.h"
#include "plugins/reference/numerics/float_formats.h"

namespace teplug::cpu::collective {
namespace {

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// NaNs compare as "both NaN"; everything else bit for bit.
void ExpectSameFloat(float got, float want, uint32_t pattern) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << "pattern " << pattern;
  } else {
    EXPECT_EQ(Bits(got), Bits(want)) << "pattern " << pattern;
  }
}

void ExpectSameHalf(uint16_t got, uint16_t want, float from, bool fp16) {
  const bool nan = fp16 ? (want & 0x7fff) > 0x7c00 : (want & 0x7fff) > 0x7f80;
  if (nan) {
    EXPECT_TRUE(fp16 ? (got & 0x7fff) > 0x7c00 : (got & 0x7fff) > 0x7f80) << from;
  } else {
    EXPECT_EQ(got, want) << (fp16 ? "fp16 of " : "bf16 of ") << from << " (bits " << Bits(from)
                         << ")";
  }
}

TEST(HalfFloatTest, DecodeEveryPattern) {
  for (uint32_t p = 0; p < 65536; ++p) {
    ExpectSameFloat(Fp16ToFloat(static_cast<uint16_t>(p)),
                    reference::DecodeFp16(static_cast<uint16_t>(p)), p);
    ExpectSameFloat(Bf16ToFloat(static_cast<uint16_t>(p)),
                    reference::DecodeBf16(static_cast<uint16_t>(p)), p);
  }
}

TEST(HalfFloatTest, EncodeValuesMidpointsAndRandomFloats) {
  for (uint32_t p = 0; p < 65536; ++p) {
    for (bool fp16 : {true, false}) {
      const float v = fp16 ? reference::DecodeFp16(p) : reference::DecodeBf16(p);
      const float next = fp16 ? reference::DecodeFp16(p + 1) : reference::DecodeBf16(p + 1);
      for (float x : {v, (std::isfinite(v) && std::isfinite(next)) ? v + (next - v) / 2 : v}) {
        ExpectSameHalf(fp16 ? FloatToFp16(x) : FloatToBf16(x),
                       fp16 ? reference::EncodeFp16(x) : reference::EncodeBf16(x), x, fp16);
      }
    }
  }
  std::mt19937 rng(7);
  for (int i = 0; i < 200000; ++i) {
    uint32_t u = rng();
    float x;
    std::memcpy(&x, &u, 4);
    ExpectSameHalf(FloatToFp16(x), reference::EncodeFp16(x), x, true);
    ExpectSameHalf(FloatToBf16(x), reference::EncodeBf16(x), x, false);
  }
}

}  // namespace
}  // namespace teplug::cpu::collective
