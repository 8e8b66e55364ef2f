// Element conversions of the cpu quantizer, written from the format specs
// (IEEE 754 binary16/32, bfloat16, OCP FP8 v1.0) as straight-line bit
// arithmetic with selects instead of branches, so that loops over them
// auto-vectorise. Every function is exact or rounds to nearest even once.
#ifndef TEPLUG_PLUGINS_CPU_QUANTIZE_ELEMENT_CODEC_H_
#define TEPLUG_PLUGINS_CPU_QUANTIZE_ELEMENT_CODEC_H_

#include <cstdint>
#include <cstring>

namespace teplug::cpu::quantize {

// The two fp8 element formats (OCP FP8 v1.0).
enum class Fp8Kind { kE4M3, kE5M2 };

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float BitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// bf16 -> fp32: exact (the upper half of an fp32).
inline float Bf16ToFloat(uint16_t h) { return BitsFloat(static_cast<uint32_t>(h) << 16); }

// fp16 -> fp32: exact. The magnitude is re-biased; subnormals are normalised
// by one float subtraction; Inf/NaN keep an all-ones exponent.
inline float Fp16ToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = h & 0x7C00u;
  const uint32_t shifted = static_cast<uint32_t>(h & 0x7FFFu) << 13;
  const uint32_t normal = shifted + ((127u - 15u) << 23);
  const uint32_t special = normal + ((128u - 16u) << 23);  // Inf, NaN
  // Subnormal: 0.m * 2^-14 = (1.m * 2^-14) - 2^-14 in fp32, exact.
  const float sub = BitsFloat(shifted + (113u << 23)) - BitsFloat(113u << 23);
  const uint32_t mag = exp == 0x7C00u ? special : (exp == 0 ? FloatBits(sub) : normal);
  return BitsFloat(sign | mag);
}

// fp32 -> bf16, nearest even; NaN becomes the quiet NaN 0x7FC0 with its sign.
inline uint16_t FloatToBf16(float f) {
  const uint32_t u = FloatBits(f);
  const uint32_t rounded = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
  const bool nan = (u & 0x7FFFFFFFu) > 0x7F800000u;
  return static_cast<uint16_t>(nan ? ((u >> 16) & 0x8000u) | 0x7FC0u : rounded);
}

// fp32 -> fp16, nearest even, overflow to Inf; NaN becomes 0x7E00 with its sign.
inline uint16_t FloatToFp16(float f) {
  const uint32_t u = FloatBits(f);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t a = u & 0x7FFFFFFFu;
  // Normal range: round the 23-bit mantissa to 10 bits and re-bias; a carry
  // past 65504 lands on the Inf code.
  const uint32_t normal_bits = (a + 0xFFFu + ((a >> 13) & 1u)) >> 13;
  const uint32_t normal = normal_bits - ((127u - 15u) << 10);
  // Below 2^-14: adding 0.5 aligns the quantum 2^-24 to the fp32 ulp of 0.5,
  // so the FPU's own nearest-even rounding yields the subnormal count.
  const uint32_t sub = FloatBits(BitsFloat(a) + 0.5f) - FloatBits(0.5f);
  const uint32_t finite = a < 0x38800000u ? sub : (a >= 0x477FF000u ? 0x7C00u : normal);
  const uint32_t mag = a > 0x7F800000u ? 0x7E00u : (a == 0x7F800000u ? 0x7C00u : finite);
  return static_cast<uint16_t>(sign | mag);
}

// The fp8 code of a non-NaN magnitude (fp32 bits without the sign), nearest
// even, saturating, in bits 24-31 (the low 24 bits are left over; callers
// shift them out).
// One formula for normals and subnormals, without a select: the magnitude
// is clamped to max normal (448 / 57344; the same as saturating the rounded
// result); `magic` is the power of two whose fp32 ulp is the fp8 quantum at
// that exponent (the subnormal quantum 2^-9 / 2^-16 below the smallest
// normal exponent), so the one float add magnitude + magic rounds to that
// quantum (nearest even) and leaves the count of quanta k in its low bits;
// the code is k plus the exponent above the smallest normal one times
// 2^mantissa bits (a carry of k into the next binade lands on the next
// code). Computed in the top byte so that a vectorised loop narrows once.
template <Fp8Kind kKind>
inline uint32_t Fp8MagnitudeHigh(uint32_t magnitude) {
  constexpr bool e4m3 = kKind == Fp8Kind::kE4M3;
  constexpr uint32_t kMantShift = e4m3 ? 20 : 21;  // 23 - mantissa bits
  constexpr uint32_t kMaxBits = e4m3 ? 0x43E00000u : 0x47600000u;  // 448, 57344
  constexpr uint32_t kMinNormalBits = e4m3 ? 0x3C800000u : 0x38800000u;  // 2^-6, 2^-14
  const uint32_t a = magnitude < kMaxBits ? magnitude : kMaxBits;
  const uint32_t exponent = a & 0x7F800000u;
  const uint32_t normal_exponent = exponent > kMinNormalBits ? exponent : kMinNormalBits;
  const uint32_t magic = normal_exponent + (kMantShift << 23);
  const uint32_t rounded = FloatBits(BitsFloat(a) + BitsFloat(magic));
  return (rounded << 24) + ((normal_exponent - kMinNormalBits) << (24 - kMantShift));
}

// fp32 -> fp8, nearest even, SATURATING: finite overflow and +-Inf become
// +-max normal (448 / 57344), NaN becomes the NaN code with its sign (e4m3
// S.1111.111, e5m2 S.11111.10).
template <Fp8Kind kKind>
inline uint8_t FloatToFp8(float f) {
  constexpr uint32_t kNanCode = kKind == Fp8Kind::kE4M3 ? 0x7Fu : 0x7Eu;
  const uint32_t u = FloatBits(f);
  const uint32_t magnitude = u & 0x7FFFFFFFu;
  const uint32_t high =
      magnitude > 0x7F800000u ? kNanCode << 24 : Fp8MagnitudeHigh<kKind>(magnitude);
  return static_cast<uint8_t>((high | (u & 0x80000000u)) >> 24);
}

// FloatToFp8 of a value known not to be NaN (an element of a finite MX
// block): without the NaN select, which the MX encode loop does not need.
template <Fp8Kind kKind>
inline uint8_t NonNanToFp8(float f) {
  const uint32_t u = FloatBits(f);
  return static_cast<uint8_t>(
      (Fp8MagnitudeHigh<kKind>(u & 0x7FFFFFFFu) | (u & 0x80000000u)) >> 24);
}

// The fp8 maximum normal value and the largest exponent of a normal (emax).
template <Fp8Kind kKind>
inline constexpr float kFp8Max = kKind == Fp8Kind::kE4M3 ? 448.0f : 57344.0f;
template <Fp8Kind kKind>
inline constexpr int kFp8Emax = kKind == Fp8Kind::kE4M3 ? 8 : 15;

// fp8 -> fp32, exact (NaN codes decode to a quiet NaN with the code's sign).
float Fp8ToFloat(Fp8Kind kind, uint8_t code);

// e8m0 (OCP MX scale) -> fp32: 2^(e - 127), exact (2^-127 is an fp32
// subnormal); 0xFF is NaN.
inline float E8m0ToFloat(uint8_t e) {
  if (e == 0xFF) return BitsFloat(0x7FC00000u);
  return e == 0 ? BitsFloat(0x00400000u) : BitsFloat(static_cast<uint32_t>(e) << 23);
}

}  // namespace teplug::cpu::quantize

#endif  // TEPLUG_PLUGINS_CPU_QUANTIZE_ELEMENT_CODEC_H_
