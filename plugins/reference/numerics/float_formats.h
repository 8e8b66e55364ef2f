// Bit-exact conversions between double/float and the narrow floating-point
// formats of a TransformerEngine-style training stack: fp16, bf16, OCP fp8
// (e4m3, e5m2), OCP MX e8m0 scales and fp4 e2m1.
//
// These are the reference ("oracle") numerics every provider is compared
// against, so they follow the specifications literally:
//   - IEEE 754-2008 binary16 (fp16), bfloat16 (bf16: binary32 truncated to
//     8 exponent / 7 mantissa bits, IEEE semantics).
//   - OCP 8-bit Floating Point Specification (OFP8) rev 1.0: e4m3 has no
//     infinities and one NaN mantissa/exponent pattern S.1111.111 (max normal
//     448); e5m2 is IEEE-like (Inf S.11111.00, NaN S.11111.{01,10,11}, max
//     normal 57344).
//   - OCP Microscaling Formats (MX) v1.0: e8m0 = 2^(code - 127), code 0xFF is
//     NaN; fp4 e2m1 has no Inf and no NaN (max normal 6).
// Every encoder rounds to nearest, ties to even, exactly once: it takes a
// double so that a result computed in fp64 is rounded a single time (no
// double rounding through float). Subnormals are produced and decoded exactly.
// Every decoded value is exactly representable as float.
#ifndef TEPLUG_PLUGINS_REFERENCE_NUMERICS_FLOAT_FORMATS_H_
#define TEPLUG_PLUGINS_REFERENCE_NUMERICS_FLOAT_FORMATS_H_

#include <cstdint>

namespace teplug::reference {

// Largest finite magnitudes of each format (OFP8 rev 1.0, MX v1.0, IEEE 754).
inline constexpr float kFp16MaxNormal = 65504.0f;
inline constexpr float kFp8E4M3MaxNormal = 448.0f;
inline constexpr float kFp8E5M2MaxNormal = 57344.0f;
inline constexpr float kFp4E2M1MaxNormal = 6.0f;

// Canonical positive NaN codes the encoders produce (sign is kept from the
// input, so a negative NaN sets the top bit).
inline constexpr uint16_t kFp16CanonicalNan = 0x7E00;
inline constexpr uint16_t kBf16CanonicalNan = 0x7FC0;
inline constexpr uint8_t kFp8E4M3Nan = 0x7F;   // S.1111.111, the only NaN
inline constexpr uint8_t kFp8E5M2CanonicalNan = 0x7E;  // S.11111.10
inline constexpr uint8_t kE8M0Nan = 0xFF;

// e8m0 stores unbiased exponents -127..127 with bias 127 (MX v1.0 5.4.1).
inline constexpr int kE8M0Bias = 127;
inline constexpr int kE8M0MinExponent = -127;
inline constexpr int kE8M0MaxExponent = 127;

// fp4 has no NaN; EncodeFp4E2M1 returns this out-of-nibble byte instead of a
// code when the input cannot be represented (NaN, or overflow without
// saturation). Callers must check for it; DecodeFp4E2M1 maps it to NaN.
inline constexpr uint8_t kFp4E2M1Invalid = 0xFF;

// IEEE binary16.
float DecodeFp16(uint16_t bits);
// Overflow (|x| >= 65520 after rounding) gives +-Inf, NaN gives a NaN.
uint16_t EncodeFp16(double value);

// bfloat16 (IEEE-style, 8 exponent bits, 7 mantissa bits).
float DecodeBf16(uint16_t bits);
// Overflow gives +-Inf, NaN gives a NaN.
uint16_t EncodeBf16(double value);

// OCP e4m3 (bias 7, no Inf, NaN = S.1111.111).
float DecodeFp8E4M3(uint8_t bits);
// NaN -> NaN (sign kept). Values that round above 448 (|x| > 464, since 464 is
// a tie that goes to the even 448) give NaN when saturate is false and +-448
// when saturate is true. +-Inf is an overflow: NaN, or +-448 when saturating
// (the behaviour of CUDA's __NV_SATFINITE that TransformerEngine uses).
uint8_t EncodeFp8E4M3(double value, bool saturate);

// OCP e5m2 (bias 15, IEEE-like Inf/NaN).
float DecodeFp8E5M2(uint8_t bits);
// NaN -> NaN (sign kept). Values that round above 57344 (|x| >= 61440) give
// +-Inf when saturate is false and +-57344 when saturate is true; +-Inf input
// gives +-Inf, or +-57344 when saturating.
uint8_t EncodeFp8E5M2(double value, bool saturate);

// e8m0 scale: 2^(bits - 127); 0xFF is NaN. Code 0 is 2^-127 (a float
// subnormal, still exact).
float DecodeE8M0(uint8_t bits);
// The e8m0 code of 2^exponent for exponent in [-127, 127]; any other exponent
// is not representable and gives kE8M0Nan (callers clamp first if they want
// clamping, as the MX conversion does).
uint8_t EncodeE8M0(int exponent);

// fp4 e2m1 (bias 1; magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6). Only the low
// nibble is a code; any larger byte decodes to NaN.
float DecodeFp4E2M1(uint8_t nibble);
// Returns a nibble (sign in bit 3). Rounding treats the exponent as unbounded
// (as IEEE 754 does), so |x| >= 7 (7 is a tie that goes to the even 8) is an
// overflow. NaN input, or overflow without saturation, gives kFp4E2M1Invalid.
// With saturate=true overflow and +-Inf clamp to +-6.
uint8_t EncodeFp4E2M1(double value, bool saturate);

// The two fp8 formats as a value, for code that works on either.
enum class Fp8Format { kE4M3, kE5M2 };

// Name for error messages: "fp8_e4m3" / "fp8_e5m2" (the canonical dtype names).
const char* Fp8FormatName(Fp8Format format);
// 448 or 57344.
float Fp8MaxNormal(Fp8Format format);
// Unbiased exponent of the largest normal binade: 8 (e4m3) or 15 (e5m2). This
// is emax_elem of the MX v1.0 scale computation.
int Fp8MaxExponent(Fp8Format format);
// Stored mantissa bits: 3 (e4m3) or 2 (e5m2).
int Fp8MantissaBits(Fp8Format format);
// Unbiased exponent of the smallest normal: -6 (e4m3) or -14 (e5m2).
int Fp8MinNormalExponent(Fp8Format format);
// Dispatch to DecodeFp8E4M3 / DecodeFp8E5M2.
float DecodeFp8(Fp8Format format, uint8_t bits);
// Dispatch to EncodeFp8E4M3 / EncodeFp8E5M2.
uint8_t EncodeFp8(Fp8Format format, double value, bool saturate);

}  // namespace teplug::reference

#endif  // TEPLUG_PLUGINS_REFERENCE_NUMERICS_FLOAT_FORMATS_H_
