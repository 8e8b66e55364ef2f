// Bit-exact element conversions of the native quantizer, for host and GPU:
// fp8 e4m3 / e5m2 (OCP OFP8 rev 1.0), fp16 (IEEE binary16), bf16 and e8m0
// (OCP MX v1.0), each from and to binary32.
//
// Rules (teplug/quantizer.h, interfaces/README.md): every encoder rounds a
// float once to nearest, ties to even, into and inside the subnormal range.
// The fp8 encoders SATURATE as CUDA's __NV_SATFINITE does: a finite value
// that would round past max normal, and +-Inf, become +-max normal (448,
// 57344); NaN gives the format's NaN with the input's sign (e4m3 S.1111.111,
// e5m2 S.11111.10). fp16 and bf16 never saturate: overflow gives +-Inf, NaN
// gives 0x7E00 / 0x7FC0 with the sign. Decoders are exact.
#ifndef TEPLUG_NATIVE_QUANTIZE_ELEMENT_FORMATS_H_
#define TEPLUG_NATIVE_QUANTIZE_ELEMENT_FORMATS_H_

#include <math.h>

#include <cstdint>

#include "native/quantize/host_device.h"

namespace teplug::native::quantize {

// The two fp8 formats; the values are not teplug dtypes (see quantize_params.h).
enum class Fp8Kind : int { kE4M3 = 0, kE5M2 = 1 };

// Shape of an fp8 format: field widths and its special codes.
struct Fp8Layout {
  int mantissa_bits;  // 3 or 2
  int bias;           // 7 or 15
  uint8_t max_code;   // largest finite magnitude: 0x7E (448) or 0x7B (57344)
  uint8_t nan_code;   // positive NaN the encoder writes: 0x7F or 0x7E
  float max_normal;   // 448 or 57344
  int max_exponent;   // unbiased exponent of max normal: 8 or 15 (MX emax_elem)
};

TEPLUG_HOST_DEVICE Fp8Layout LayoutOf(Fp8Kind kind) {
  return kind == Fp8Kind::kE4M3 ? Fp8Layout{3, 7, 0x7E, 0x7F, 448.0f, 8}
                                : Fp8Layout{2, 15, 0x7B, 0x7E, 57344.0f, 15};
}

// 2^e for an exponent whose binary32 is normal (-126 <= e <= 127).
TEPLUG_HOST_DEVICE float NormalPowerOfTwo(int e) {
  return BitsToFloat(static_cast<uint32_t>(e + 127) << 23);
}

// Nearest-even, saturating fp8 code of `x`.
TEPLUG_HOST_DEVICE uint8_t EncodeFp8(float x, Fp8Kind kind) {
  const Fp8Layout f = LayoutOf(kind);
  const uint32_t bits = FloatBits(x);
  const uint8_t sign = static_cast<uint8_t>((bits >> 24) & 0x80u);
  const uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) return sign | f.nan_code;
  // Everything at or above max normal rounds to it or overflows: both saturate.
  if (BitsToFloat(magnitude) >= f.max_normal) return sign | f.max_code;
  const uint32_t min_normal_bits = static_cast<uint32_t>(127 + 1 - f.bias) << 23;
  if (magnitude < min_normal_bits) {
    // Subnormal: the code is |x| in units of the smallest subnormal,
    // 2^(1 - bias - mantissa_bits), rounded to an integer. The scaling is
    // exact; the integer 2^mantissa_bits is the smallest normal's code.
    const float units = BitsToFloat(magnitude) * NormalPowerOfTwo(f.bias - 1 + f.mantissa_bits);
    return sign | static_cast<uint8_t>(rintf(units));
  }
  // Normal: drop 23 - m mantissa bits with nearest-even rounding (a carry
  // into the exponent is the right result), then rebias the exponent.
  const int drop = 23 - f.mantissa_bits;
  const uint32_t rounded = magnitude + ((1u << (drop - 1)) - 1u) + ((magnitude >> drop) & 1u);
  const uint32_t rebias = static_cast<uint32_t>(127 - f.bias) << f.mantissa_bits;
  return sign | static_cast<uint8_t>((rounded >> drop) - rebias);
}

// The exact value of an fp8 code (NaN codes give a quiet NaN with the code's sign).
TEPLUG_HOST_DEVICE float DecodeFp8(uint8_t code, Fp8Kind kind) {
  const Fp8Layout f = LayoutOf(kind);
  const uint32_t sign = static_cast<uint32_t>(code & 0x80u) << 24;
  const int exponent_mask = (1 << (7 - f.mantissa_bits)) - 1;
  const int exponent = (code >> f.mantissa_bits) & exponent_mask;
  const uint32_t mantissa = code & ((1u << f.mantissa_bits) - 1u);
  if (kind == Fp8Kind::kE4M3 && exponent == exponent_mask && mantissa == 7u)
    return BitsToFloat(sign | 0x7FC00000u);
  if (kind == Fp8Kind::kE5M2 && exponent == exponent_mask) {
    return BitsToFloat(sign | (mantissa == 0u ? 0x7F800000u : 0x7FC00000u));
  }
  if (exponent == 0) {
    const float magnitude =
        static_cast<float>(mantissa) * NormalPowerOfTwo(1 - f.bias - f.mantissa_bits);
    return BitsToFloat(sign | FloatBits(magnitude));
  }
  return BitsToFloat(sign | (static_cast<uint32_t>(exponent - f.bias + 127) << 23) |
                     (mantissa << (23 - f.mantissa_bits)));
}

// IEEE binary16 of `x`, nearest even; overflow (|x| >= 65520) gives +-Inf.
TEPLUG_HOST_DEVICE uint16_t EncodeFp16(float x) {
  const uint32_t bits = FloatBits(x);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) return sign | 0x7E00u;
  if (magnitude >= 0x477FF000u) return sign | 0x7C00u;  // 65520: the tie above 65504 goes up
  if (magnitude < 0x38800000u) {                        // below 2^-14: subnormal, units of 2^-24
    return sign | static_cast<uint16_t>(rintf(BitsToFloat(magnitude) * NormalPowerOfTwo(24)));
  }
  const uint32_t rounded = magnitude + 0xFFFu + ((magnitude >> 13) & 1u);
  return sign | static_cast<uint16_t>((rounded >> 13) - (static_cast<uint32_t>(127 - 15) << 10));
}

// The exact value of a binary16 (NaN gives a quiet NaN with the sign).
TEPLUG_HOST_DEVICE float DecodeFp16(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1Fu;
  const uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0x1Fu) return BitsToFloat(sign | (mantissa == 0u ? 0x7F800000u : 0x7FC00000u));
  if (exponent == 0u)
    return BitsToFloat(sign | FloatBits(static_cast<float>(mantissa) * NormalPowerOfTwo(-24)));
  return BitsToFloat(sign | ((exponent - 15u + 127u) << 23) | (mantissa << 13));
}

// bfloat16 of `x`: the top half of the binary32, rounded to nearest even.
TEPLUG_HOST_DEVICE uint16_t EncodeBf16(float x) {
  const uint32_t bits = FloatBits(x);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u)
    return static_cast<uint16_t>(((bits >> 16) & 0x8000u) | 0x7FC0u);
  return static_cast<uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

TEPLUG_HOST_DEVICE float DecodeBf16(uint16_t b) {
  return BitsToFloat(static_cast<uint32_t>(b) << 16);
}

// e8m0 (MX v1.0): 2^(code - 127); code 0 is 2^-127 (a binary32 subnormal),
// 0xFF is NaN.
TEPLUG_HOST_DEVICE float DecodeE8M0(uint8_t code) {
  if (code == 0xFFu) return BitsToFloat(0x7FC00000u);
  if (code == 0u) return BitsToFloat(0x00400000u);
  return BitsToFloat(static_cast<uint32_t>(code) << 23);
}

}  // namespace teplug::native::quantize

#endif  // TEPLUG_NATIVE_QUANTIZE_ELEMENT_FORMATS_H_
