// fp16 and bf16 <-> fp32 conversions for the attention kernel's loads and
// stores: widening is exact; narrowing rounds to nearest even, overflows to
// infinity and keeps NaN a NaN.
#ifndef TEPLUG_PLUGINS_CPU_ATTENTION_SCALAR_FORMATS_H_
#define TEPLUG_PLUGINS_CPU_ATTENTION_SCALAR_FORMATS_H_

#include <cmath>
#include <cstdint>
#include <cstring>

namespace teplug::cpu::attention {

inline float Bf16ToFloat(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline uint16_t FloatToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

inline float Fp16ToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  uint32_t u;
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in fp32.
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    std::memcpy(&u, &magnitude, sizeof u);
    u |= sign;
  } else if (exponent == 31) {
    u = sign | 0x7f800000u | (mantissa << 13);
  } else {
    u = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  }
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline uint16_t FloatToFp16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t magnitude = u & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520
  if (magnitude < 0x38800000u) {
    // Below the smallest normal 2^-14: a multiple of 2^-24, rounded to
    // nearest even by the default rounding mode (1024 encodes 2^-14).
    const float scaled = std::nearbyint(std::fabs(f) * 16777216.0f);
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(scaled));
  }
  const uint32_t rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);
  return static_cast<uint16_t>(sign | ((rounded >> 13) - (112u << 10)));
}

}  // namespace teplug::cpu::attention

#endif  // TEPLUG_PLUGINS_CPU_ATTENTION_SCALAR_FORMATS_H_
