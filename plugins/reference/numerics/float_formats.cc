#include "plugins/reference/numerics/float_formats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace teplug::reference {
namespace {

// How a format uses its all-ones exponent field.
enum class SpecialValues {
  kIeee,      // all-ones exponent: mantissa 0 is Inf, otherwise NaN (fp16, bf16, e5m2)
  kOcpE4M3,   // only S.1111.111 is NaN; no Inf; the rest of that binade is finite
  kNone,      // no Inf, no NaN (fp4 e2m1)
};

// Layout of a small binary floating-point format: sign, exponent, mantissa.
struct BinaryFormat {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  SpecialValues special;
  uint32_t nan_code;  // magnitude bits of the NaN the encoder produces (kNone: unused)
};

constexpr BinaryFormat kFp16{5, 10, 15, SpecialValues::kIeee, kFp16CanonicalNan};
constexpr BinaryFormat kBf16{8, 7, 127, SpecialValues::kIeee, kBf16CanonicalNan};
constexpr BinaryFormat kE4M3{4, 3, 7, SpecialValues::kOcpE4M3, kFp8E4M3Nan};
constexpr BinaryFormat kE5M2{5, 2, 15, SpecialValues::kIeee, kFp8E5M2CanonicalNan};
constexpr BinaryFormat kE2M1{2, 1, 1, SpecialValues::kNone, 0};

uint32_t SignBit(const BinaryFormat& f) { return 1u << (f.exponent_bits + f.mantissa_bits); }

uint32_t InfCode(const BinaryFormat& f) {
  return ((1u << f.exponent_bits) - 1u) << f.mantissa_bits;
}

// Magnitude bits of the largest finite value.
uint32_t MaxFiniteCode(const BinaryFormat& f) {
  switch (f.special) {
    case SpecialValues::kIeee:
      return InfCode(f) - 1u;
    case SpecialValues::kOcpE4M3:
      return SignBit(f) - 2u;  // one below the all-ones NaN pattern
    case SpecialValues::kNone:
      return SignBit(f) - 1u;
  }
  return 0;
}

double Decode(const BinaryFormat& f, uint32_t bits) {
  const bool negative = (bits & SignBit(f)) != 0;
  const uint32_t magnitude = bits & (SignBit(f) - 1u);
  const uint32_t exponent_field = magnitude >> f.mantissa_bits;
  const uint32_t mantissa = magnitude & ((1u << f.mantissa_bits) - 1u);
  const uint32_t all_ones = (1u << f.exponent_bits) - 1u;
  double result;
  if (f.special == SpecialValues::kIeee && exponent_field == all_ones) {
    result = mantissa == 0 ? std::numeric_limits<double>::infinity()
                           : std::numeric_limits<double>::quiet_NaN();
  } else if (f.special == SpecialValues::kOcpE4M3 && magnitude == (SignBit(f) - 1u)) {
    result = std::numeric_limits<double>::quiet_NaN();
  } else if (exponent_field == 0) {
    // Subnormal: mantissa * 2^(1 - bias - mantissa_bits).
    result = std::ldexp(static_cast<double>(mantissa), 1 - f.bias - f.mantissa_bits);
  } else {
    const double significand = static_cast<double>((1u << f.mantissa_bits) | mantissa);
    result = std::ldexp(significand,
                        static_cast<int>(exponent_field) - f.bias - f.mantissa_bits);
  }
  return negative ? -result : result;
}

// Rounds |value| to the format, nearest-even, exactly once. Works on the
// integer multiple n of the quantum q of value's binade (or of the subnormal
// binade): value/q is exact in double because q is a power of two, and
// nearbyint rounds it ties-to-even. The code is then ((E + bias - 1) << m) + n,
// which also covers the subnormal range (exponent field 0) and a carry into
// the next binade without special cases.
uint32_t Encode(const BinaryFormat& f, double value, bool saturate) {
  const uint32_t sign = std::signbit(value) ? SignBit(f) : 0u;
  if (std::isnan(value)) {
    return f.special == SpecialValues::kNone ? kFp4E2M1Invalid : (sign | f.nan_code);
  }
  const auto overflow = [&]() -> uint32_t {
    if (saturate) return sign | MaxFiniteCode(f);
    switch (f.special) {
      case SpecialValues::kIeee:
        return sign | InfCode(f);
      case SpecialValues::kOcpE4M3:
        return sign | f.nan_code;
      case SpecialValues::kNone:
        return kFp4E2M1Invalid;
    }
    return kFp4E2M1Invalid;
  };
  const double magnitude = std::fabs(value);
  if (std::isinf(magnitude)) return overflow();
  if (magnitude == 0.0) return sign;

  const int min_normal_exponent = 1 - f.bias;
  const int exponent = std::max(std::ilogb(magnitude), min_normal_exponent);
  // Above the format's largest binade everything overflows; stop before the
  // integer arithmetic below could overflow.
  const int max_exponent = (1 << f.exponent_bits) - 1 - f.bias;
  if (exponent > max_exponent) return overflow();
  const double quantum_count =
      std::nearbyint(std::ldexp(magnitude, f.mantissa_bits - exponent));
  const int64_t code = (static_cast<int64_t>(exponent + f.bias - 1) << f.mantissa_bits) +
                       static_cast<int64_t>(quantum_count);
  if (code > static_cast<int64_t>(MaxFiniteCode(f))) return overflow();
  return sign | static_cast<uint32_t>(code);
}

}  // namespace

float DecodeFp16(uint16_t bits) { return static_cast<float>(Decode(kFp16, bits)); }
uint16_t EncodeFp16(double value) {
  return static_cast<uint16_t>(Encode(kFp16, value, /*saturate=*/false));
}

float DecodeBf16(uint16_t bits) { return static_cast<float>(Decode(kBf16, bits)); }
uint16_t EncodeBf16(double value) {
  return static_cast<uint16_t>(Encode(kBf16, value, /*saturate=*/false));
}

float DecodeFp8E4M3(uint8_t bits) { return static_cast<float>(Decode(kE4M3, bits)); }
uint8_t EncodeFp8E4M3(double value, bool saturate) {
  return static_cast<uint8_t>(Encode(kE4M3, value, saturate));
}

float DecodeFp8E5M2(uint8_t bits) { return static_cast<float>(Decode(kE5M2, bits)); }
uint8_t EncodeFp8E5M2(double value, bool saturate) {
  return static_cast<uint8_t>(Encode(kE5M2, value, saturate));
}

float DecodeE8M0(uint8_t bits) {
  if (bits == kE8M0Nan) return std::numeric_limits<float>::quiet_NaN();
  return std::ldexp(1.0f, static_cast<int>(bits) - kE8M0Bias);
}

uint8_t EncodeE8M0(int exponent) {
  if (exponent < kE8M0MinExponent || exponent > kE8M0MaxExponent) return kE8M0Nan;
  return static_cast<uint8_t>(exponent + kE8M0Bias);
}

float DecodeFp4E2M1(uint8_t nibble) {
  if (nibble > 0xF) return std::numeric_limits<float>::quiet_NaN();
  return static_cast<float>(Decode(kE2M1, nibble));
}
uint8_t EncodeFp4E2M1(double value, bool saturate) {
  return static_cast<uint8_t>(Encode(kE2M1, value, saturate));
}

const char* Fp8FormatName(Fp8Format format) {
  return format == Fp8Format::kE4M3 ? "fp8_e4m3" : "fp8_e5m2";
}
float Fp8MaxNormal(Fp8Format format) {
  return format == Fp8Format::kE4M3 ? kFp8E4M3MaxNormal : kFp8E5M2MaxNormal;
}
int Fp8MaxExponent(Fp8Format format) { return format == Fp8Format::kE4M3 ? 8 : 15; }
int Fp8MantissaBits(Fp8Format format) { return format == Fp8Format::kE4M3 ? 3 : 2; }
int Fp8MinNormalExponent(Fp8Format format) { return format == Fp8Format::kE4M3 ? -6 : -14; }
float DecodeFp8(Fp8Format format, uint8_t bits) {
  return format == Fp8Format::kE4M3 ? DecodeFp8E4M3(bits) : DecodeFp8E5M2(bits);
}
uint8_t EncodeFp8(Fp8Format format, double value, bool saturate) {
  return format == Fp8Format::kE4M3 ? EncodeFp8E4M3(value, saturate)
                                    : EncodeFp8E5M2(value, saturate);
}

}  // namespace teplug::reference
