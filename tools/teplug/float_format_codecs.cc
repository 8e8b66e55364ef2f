#include "tools/teplug/float_format_codecs.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace teplug::cli {

namespace {

// A binary float format of 1 sign, `exp_bits` exponent and `man_bits`
// mantissa bits. `ieee_specials`: an all-ones exponent is Inf (zero mantissa)
// or NaN; otherwise (e4m3) only the all-ones exponent and mantissa is NaN and
// the rest of that binade is finite.
struct MiniFloat {
  int exp_bits;
  int man_bits;
  bool ieee_specials;

  uint32_t exp_max() const { return (1u << exp_bits) - 1; }
  uint32_t man_max() const { return (1u << man_bits) - 1; }
  int bias() const { return (1 << (exp_bits - 1)) - 1; }
  uint32_t sign_bit() const { return 1u << (exp_bits + man_bits); }
};

constexpr MiniFloat kFp16{5, 10, true};
constexpr MiniFloat kBf16{8, 7, true};
constexpr MiniFloat kE4M3{4, 3, false};
constexpr MiniFloat kE5M2{5, 2, true};

double Decode(const MiniFloat& f, uint32_t bits) {
  const bool negative = (bits & f.sign_bit()) != 0;
  const uint32_t e = (bits >> f.man_bits) & f.exp_max(), m = bits & f.man_max();
  double magnitude;
  if (e == f.exp_max() && (f.ieee_specials || m == f.man_max())) {
    magnitude = f.ieee_specials && m == 0 ? std::numeric_limits<double>::infinity()
                                          : std::numeric_limits<double>::quiet_NaN();
  } else if (e == 0) {
    magnitude = std::ldexp(static_cast<double>(m), 1 - f.bias() - f.man_bits);
  } else {
    magnitude = std::ldexp(static_cast<double>(m | (f.man_max() + 1)),
                           static_cast<int>(e) - f.bias() - f.man_bits);
  }
  return negative ? -magnitude : magnitude;
}

// Rounds |value| to the format's grid (ties to even) and packs the result.
// Only for formats with IEEE specials (fp16, bf16): overflow is Inf.
uint32_t Encode(const MiniFloat& f, double value) {
  const uint32_t sign = std::signbit(value) ? f.sign_bit() : 0;
  if (std::isnan(value)) return sign | (f.exp_max() << f.man_bits) | (1u << (f.man_bits - 1));
  const double a = std::fabs(value);
  const uint32_t inf = sign | (f.exp_max() << f.man_bits);
  if (std::isinf(a)) return inf;
  if (a == 0) return sign;
  const int emin = 1 - f.bias();  // exponent of the smallest normal
  const int emax = static_cast<int>(f.exp_max()) - 1 - f.bias();
  // a = frac * 2^exp2 with frac in [0.5, 1): the unbiased exponent is exp2 - 1.
  int exp2 = 0;
  std::frexp(a, &exp2);
  const int exponent = std::max(exp2 - 1, emin);  // subnormals share emin's spacing
  // The grid spacing at this exponent; `a / 2^q` is exact in double, and
  // nearbyint rounds it to an integer ties to even (the default mode).
  const int quantum = exponent - f.man_bits;
  const double steps = std::nearbyint(std::ldexp(a, -quantum));
  const double rounded = std::ldexp(steps, quantum);
  const double max_finite = std::ldexp(std::ldexp(1.0, f.man_bits + 1) - 1, emax - f.man_bits);
  if (rounded > max_finite) return inf;
  if (rounded < std::ldexp(1.0, emin)) {  // subnormal (or rounded to zero)
    return sign | static_cast<uint32_t>(std::ldexp(rounded, f.man_bits - emin));
  }
  int r_exp2 = 0;
  std::frexp(rounded, &r_exp2);
  const int r_exponent = r_exp2 - 1;  // may be one above `exponent` after rounding up
  const uint32_t mantissa =
      static_cast<uint32_t>(std::ldexp(rounded, f.man_bits - r_exponent)) - (f.man_max() + 1);
  return sign | (static_cast<uint32_t>(r_exponent + f.bias()) << f.man_bits) | mantissa;
}

}  // namespace

double DecodeFp16(uint16_t bits) { return Decode(kFp16, bits); }
double DecodeBf16(uint16_t bits) { return Decode(kBf16, bits); }
double DecodeE4M3(uint8_t bits) { return Decode(kE4M3, bits); }
double DecodeE5M2(uint8_t bits) { return Decode(kE5M2, bits); }
double DecodeE8M0(uint8_t bits) {
  return bits == 0xFF ? std::numeric_limits<double>::quiet_NaN() : std::ldexp(1.0, bits - 127);
}

uint16_t EncodeFp16(double value) { return static_cast<uint16_t>(Encode(kFp16, value)); }
uint16_t EncodeBf16(double value) { return static_cast<uint16_t>(Encode(kBf16, value)); }

}  // namespace teplug::cli
