// Test-only oracle for the float_formats tests, written independently of
// float_formats.cc: values come from the specification formulas with
// std::pow, and rounding is done by searching a sorted table of every
// representable magnitude for the nearest one (ties to the even code), not by
// bit manipulation. Overflow follows IEEE 754's "as if the exponent range were
// unbounded" rule: the table ends with the first value past the largest finite
// one (the next binade's first value), and a value that rounds to it has
// overflowed.
#ifndef TEPLUG_PLUGINS_REFERENCE_NUMERICS_SPEC_ROUNDING_ORACLE_H_
#define TEPLUG_PLUGINS_REFERENCE_NUMERICS_SPEC_ROUNDING_ORACLE_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace teplug::reference::testing {

// Value of a sign/exponent/mantissa format from the textbook formula:
// normal (-1)^s * 2^(e - bias) * (1 + m / 2^mbits), subnormal
// (-1)^s * 2^(1 - bias) * (m / 2^mbits). Special patterns are the caller's.
inline double SpecFormulaValue(int sign, int exponent_field, int mantissa, int mantissa_bits,
                               int bias) {
  const double fraction = static_cast<double>(mantissa) / std::pow(2.0, mantissa_bits);
  const double magnitude = exponent_field == 0
                               ? std::pow(2.0, 1 - bias) * fraction
                               : std::pow(2.0, exponent_field - bias) * (1.0 + fraction);
  return sign ? -magnitude : magnitude;
}

// Result of rounding one value with the oracle.
struct OracleRounding {
  bool overflow;           // rounded past the largest finite magnitude
  uint32_t magnitude_code; // code of the rounded magnitude (valid when !overflow)
};

// Nearest-even rounding against an explicit table of a format's finite,
// non-negative values.
class SpecRoundingOracle {
 public:
  // `codes[i]` has value `values[i]`; values ascend from +0 to the largest
  // finite value. `next_after_max` is the first value of the binade above the
  // largest (the value the largest finite code + 1 would have if it were
  // finite); its parity is that of max_code + 1.
  SpecRoundingOracle(std::vector<uint32_t> codes, std::vector<double> values,
                     double next_after_max)
      : codes_(std::move(codes)), values_(std::move(values)) {
    codes_.push_back(codes_.back() + 1);
    values_.push_back(next_after_max);
  }

  // Rounds |x| (finite, not NaN) to the nearest table entry, ties to the entry
  // whose code is even.
  OracleRounding Round(double x) const {
    const double a = std::fabs(x);
    if (a >= values_.back()) return {true, 0};
    const auto upper = std::upper_bound(values_.begin(), values_.end(), a);
    const size_t hi = static_cast<size_t>(upper - values_.begin());
    const size_t lo = hi - 1;
    const double below = a - values_[lo];
    const double above = values_[hi] - a;
    size_t pick;
    if (below < above) {
      pick = lo;
    } else if (above < below) {
      pick = hi;
    } else {
      pick = (codes_[lo] % 2 == 0) ? lo : hi;
    }
    if (pick == values_.size() - 1) return {true, 0};
    return {false, codes_[pick]};
  }

 private:
  std::vector<uint32_t> codes_;
  std::vector<double> values_;
};

// Builds the oracle for a format whose positive finite codes are exactly
// 0..max_code in increasing value order (true for every format here), with
// values from SpecFormulaValue.
inline SpecRoundingOracle MakeSpecOracle(uint32_t max_code, int mantissa_bits, int bias) {
  std::vector<uint32_t> codes;
  std::vector<double> values;
  for (uint32_t c = 0; c <= max_code + 1; ++c) {
    codes.push_back(c);
    values.push_back(SpecFormulaValue(0, static_cast<int>(c >> mantissa_bits),
                                      static_cast<int>(c & ((1u << mantissa_bits) - 1)),
                                      mantissa_bits, bias));
  }
  const double next = values.back();
  codes.pop_back();
  values.pop_back();
  return SpecRoundingOracle(std::move(codes), std::move(values), next);
}

}  // namespace teplug::reference::testing

#endif  // TEPLUG_PLUGINS_REFERENCE_NUMERICS_SPEC_ROUNDING_ORACLE_H_
