// The tool's own codecs for the narrow float formats, written from the format
// specifications and sharing no code with any provider: the main job reads
// every output through them, so a slip in a provider's numerics cannot hide
// in the checks that are meant to catch it.
//
// Decoders give the real value of one code (sign, then exponent, then
// mantissa bits; a zero exponent field is a subnormal 2^(1 - bias) *
// 0.mantissa):
//   IEEE 754 binary16 (fp16): bias 15, 10 mantissa bits, S.11111.0 is +-Inf,
//     S.11111.m (m != 0) NaN; max 65504.
//   bfloat16 (bf16): the top 16 bits of an IEEE 754 binary32, so bias 127 and
//     7 mantissa bits, with binary32's Inf and NaN.
//   OCP OFP8 rev 1.0 e4m3: bias 7, no infinities, NaN only S.1111.111 (max 448).
//   OCP OFP8 rev 1.0 e5m2: bias 15, IEEE-like: S.11111.00 is +-Inf, S.11111.xx
//     (xx != 00) NaN (max 57344).
//   OCP MX v1.0 e8m0: 2^(bits - 127), 0xFF NaN (no sign, no zero).
// Encoders round a double once to the nearest fp16 / bf16 value, ties to
// even (IEEE 754 roundTiesToEven); a value at or beyond the midpoint above
// the largest finite number becomes +-Inf, a NaN stays a (quiet) NaN, and the
// sign of zero is kept.
#ifndef TEPLUG_TOOLS_TEPLUG_FLOAT_FORMAT_CODECS_H_
#define TEPLUG_TOOLS_TEPLUG_FLOAT_FORMAT_CODECS_H_

#include <cstdint>

namespace teplug::cli {

double DecodeFp16(uint16_t bits);
double DecodeBf16(uint16_t bits);
double DecodeE4M3(uint8_t bits);
double DecodeE5M2(uint8_t bits);
double DecodeE8M0(uint8_t bits);

uint16_t EncodeFp16(double value);
uint16_t EncodeBf16(double value);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_FLOAT_FORMAT_CODECS_H_
