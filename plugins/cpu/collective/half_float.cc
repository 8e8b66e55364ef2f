#include "plugins/cpu/collective/half_float.h"

#include <cstring>

namespace teplug::cpu::collective {
namespace {

uint32_t BitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float FloatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

}  // namespace

float Fp16ToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0x1f) return FloatOf(sign | 0x7f800000u | (mantissa << 13));  // Inf, NaN
  if (exponent != 0) return FloatOf(sign | ((exponent + 112) << 23) | (mantissa << 13));
  if (mantissa == 0) return FloatOf(sign);  // +-0
  // Subnormal: mantissa * 2^-24, normalised for binary32.
  int e = 113;  // the biased binary32 exponent of 2^-14, before shifting
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    --e;
  }
  return FloatOf(sign | (static_cast<uint32_t>(e) << 23) | ((mantissa & 0x3ffu) << 13));
}

uint16_t FloatToFp16(float value) {
  const uint32_t u = BitsOf(value);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504
  const int exponent = static_cast<int>(abs >> 23) - 127;
  if (exponent >= -14) {
    // Normal fp16: keep 10 mantissa bits, round the 13 dropped bits to even.
    const uint32_t rebased = abs - (112u << 23);
    const uint32_t lsb = (rebased >> 13) & 1u;
    return static_cast<uint16_t>(sign | ((rebased + 0xfffu + lsb) >> 13));
  }
  if (exponent < -25) return sign;  // below half the smallest subnormal: +-0
  // Subnormal fp16: the value in units of 2^-24, rounded to even.
  const uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
  const int shift = -exponent - 1;  // 14..24: mantissa * 2^(exponent-23) / 2^-24
  const uint32_t kept = mantissa >> shift;
  const uint32_t rest = mantissa & ((1u << shift) - 1);
  const uint32_t half = 1u << (shift - 1);
  const uint32_t rounded = kept + ((rest > half || (rest == half && (kept & 1u))) ? 1u : 0u);
  return static_cast<uint16_t>(sign | rounded);
}

float Bf16ToFloat(uint16_t bits) { return FloatOf(static_cast<uint32_t>(bits) << 16); }

uint16_t FloatToBf16(float value) {
  const uint32_t u = BitsOf(value);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
  const uint32_t lsb = (u >> 16) & 1u;
  return static_cast<uint16_t>((u + 0x7fffu + lsb) >> 16);
}

}  // namespace teplug::cpu::collective
