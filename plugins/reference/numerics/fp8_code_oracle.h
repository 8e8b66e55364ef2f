// Test-only: the fp8 code a saturating quantizer must produce for a value,
// from spec_rounding_oracle.h's table search (independent of float_formats.cc).
// Shared by the per-tensor, MX and block scaling tests.
#ifndef TEPLUG_PLUGINS_REFERENCE_NUMERICS_FP8_CODE_ORACLE_H_
#define TEPLUG_PLUGINS_REFERENCE_NUMERICS_FP8_CODE_ORACLE_H_

#include <cmath>
#include <cstdint>

#include "plugins/reference/numerics/float_formats.h"
#include "plugins/reference/numerics/spec_rounding_oracle.h"

namespace teplug::reference::testing {

// Largest finite magnitude code: 0x7E (448) for e4m3, 0x7B (57344) for e5m2.
inline uint8_t Fp8MaxFiniteCode(Fp8Format format) {
  return format == Fp8Format::kE4M3 ? 0x7E : 0x7B;
}

// Nearest-even table oracle of an fp8 format (OFP8 bias and mantissa width).
inline SpecRoundingOracle Fp8Oracle(Fp8Format format) {
  return format == Fp8Format::kE4M3 ? MakeSpecOracle(0x7E, 3, 7) : MakeSpecOracle(0x7B, 2, 15);
}

// Code of finite `value` rounded to nearest even, overflow clamped to max
// normal (__NV_SATFINITE), sign kept.
inline uint8_t ExpectedSaturatingCode(const SpecRoundingOracle& oracle, Fp8Format format,
                                      double value) {
  const OracleRounding r = oracle.Round(value);
  const uint8_t magnitude =
      r.overflow ? Fp8MaxFiniteCode(format) : static_cast<uint8_t>(r.magnitude_code);
  return (std::signbit(value) ? 0x80 : 0x00) | magnitude;
}

}  // namespace teplug::reference::testing

#endif  // TEPLUG_PLUGINS_REFERENCE_NUMERICS_FP8_CODE_ORACLE_H_
