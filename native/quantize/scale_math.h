// Scale arithmetic of the native quantizer, for host and GPU: the amax
// reduction step, TransformerEngine's scale from amax (per-tensor current
// scaling and the 1x128 / 128x128 block modes), and the MXFP8 e8m0 block
// scale by the OCP rule (teplug's) and TransformerEngine's rule.
//
// The rules are those of teplug/quantizer.h ("Exact rules"); the reference
// provider's numerics (plugins/reference/numerics/) are the oracle the host
// tests compare these functions with, bit for bit.
#ifndef TEPLUG_NATIVE_QUANTIZE_SCALE_MATH_H_
#define TEPLUG_NATIVE_QUANTIZE_SCALE_MATH_H_

#include <math.h>

#include <cstdint>

#include "native/quantize/element_formats.h"
#include "native/quantize/host_device.h"

namespace teplug::native::quantize {

// One step of the amax reduction: max(|x|, acc) where a NaN x leaves acc
// unchanged (fmaxf returns the other operand) and +-Inf counts as Inf.
TEPLUG_HOST_DEVICE float AmaxStep(float acc, float x) { return fmaxf(fabsf(x), acc); }

// Largest finite values of the input dtypes: the scale when fp8_max / amax
// overflows fp32, as TransformerEngine's compute_scale_from_amax uses.
inline constexpr float kFp32MaxFinite = 3.40282347e38f;
inline constexpr float kFp16MaxFinite = 65504.0f;
inline constexpr float kBf16MaxFinite = 3.38953139e38f;  // bf16 0x7F7F

// The scale a per-tensor cast uses: `scale` when finite and > 0, NaN
// otherwise. A delayed-scaling scale is read on the GPU, where it cannot be
// refused (the reference refuses it with INVALID_ARGUMENT), so an unusable
// one turns every code and scale_inv into NaN instead of into plausible
// values (a negative scale would flip every sign, 0 zero every code).
TEPLUG_HOST_DEVICE float UsableScale(float scale) {
  return scale > 0.0f && scale <= kFp32MaxFinite ? scale : BitsToFloat(0x7FC00000u);
}

// TransformerEngine's current-scaling formula, in fp32:
//   a = max(amax, amax_epsilon) (a NaN amax is not raised);
//   a is 0, Inf or NaN -> 1; else fp8_max / a (IEEE division);
//   an Inf quotient -> input_max_finite;
//   force_pow2 -> mantissa bits cleared (rounded down to a power of two).
TEPLUG_HOST_DEVICE float ScaleFromAmax(float amax, float fp8_max, bool force_pow2,
                                       float amax_epsilon, float input_max_finite) {
  if (amax < amax_epsilon) amax = amax_epsilon;
  if (amax == 0.0f || IsInfBits(amax) || IsNanBits(amax)) return 1.0f;
  float scale = fp8_max / amax;
  if (IsInfBits(scale)) scale = input_max_finite;
  if (force_pow2) scale = BitsToFloat(FloatBits(scale) & 0xFF800000u);
  return scale;
}

// How the MXFP8 block scale is chosen.
enum class MxRule : int {
  kOcp = 0,                // MX v1.0 section 6.3 (teplug's rule)
  kTransformerEngine = 1,  // TE's kernels: the exponent rounded up
};

// What the MX scale needs of a block: the amax of its values and
// whether any element is NaN or +-Inf. Accumulate with MxBlockStep.
struct MxBlockSummary {
  float amax = 0.0f;  // fmaxf reduction of |x| (NaN skipped, Inf counts)
  bool non_finite = false;
};

TEPLUG_HOST_DEVICE void MxBlockStep(MxBlockSummary& s, float x) {
  s.amax = AmaxStep(s.amax, x);
  s.non_finite = s.non_finite || IsNanBits(x) || IsInfBits(x);
}

// The e8m0 code of a block.
//  OCP: a block with NaN or Inf gets 0xFF; otherwise
//    floor(log2(amax)) - emax_elem + 127, clamped below to 0 (2^-127; an
//    all-zero block too). floor(log2) of a normal binary32 is its exponent
//    field - 127; any amax below 2^(emax_elem - 126) clamps.
//  TransformerEngine: the binary32 exponent field of fp32(amax * (1/max
//    normal)), plus one when its mantissa is nonzero, except that 0xFE is
//    never raised and a subnormal whose mantissa is at most 0x400000 stays 0;
//    NaN gives 0xFF, Inf 0xFE. NaN elements do not make the block NaN.
TEPLUG_HOST_DEVICE uint8_t MxScaleCode(const MxBlockSummary& s, Fp8Kind kind, MxRule rule) {
  const Fp8Layout f = LayoutOf(kind);
  if (rule == MxRule::kOcp) {
    if (s.non_finite) return 0xFFu;
    const int exponent_field = static_cast<int>((FloatBits(s.amax) >> 23) & 0xFFu);
    const int code = exponent_field - f.max_exponent;
    return static_cast<uint8_t>(code < 0 ? 0 : code);
  }
  const float reciprocal = kind == Fp8Kind::kE4M3 ? 1.0f / 448.0f : 1.0f / 57344.0f;
  const float value = s.amax * reciprocal;
  if (IsNanBits(value)) return 0xFFu;
  if (IsInfBits(value)) return 0xFEu;
  const uint32_t bits = FloatBits(value);
  uint32_t exponent_field = (bits >> 23) & 0xFFu;
  const uint32_t mantissa = bits & 0x7FFFFFu;
  const bool small_subnormal = exponent_field == 0u && mantissa <= 0x400000u;
  if (mantissa != 0u && exponent_field != 0xFEu && !small_subnormal) ++exponent_field;
  return static_cast<uint8_t>(exponent_field);
}

// The fp8 code of x * multiplier (the product rounded to fp32, then the
// saturating cast). A NaN x keeps its sign: GPUs return a canonical positive
// NaN from arithmetic on a NaN, where the contract (and the host) keep it.
TEPLUG_HOST_DEVICE uint8_t EncodeScaled(float x, float multiplier, Fp8Kind kind) {
  if (IsNanBits(x)) return static_cast<uint8_t>(((FloatBits(x) >> 24) & 0x80u) | LayoutOf(kind).nan_code);
  return EncodeFp8(x * multiplier, kind);
}

// The multiplier an element of a block with e8m0 code `code` is quantized
// with: x * multiplier, exactly 1 / 2^(code - 127) (the OCP rule's V / X),
// and 1 for code 0 under TransformerEngine's rule (its exp2f_rcp). NaN for
// the NaN code.
TEPLUG_HOST_DEVICE float MxQuantizeMultiplier(uint8_t code, MxRule rule) {
  if (code == 0xFFu) return BitsToFloat(0x7FC00000u);
  if (code == 0u && rule == MxRule::kTransformerEngine) return 1.0f;
  if (code == 0xFEu) return BitsToFloat(0x00400000u);  // 2^-127, subnormal
  return BitsToFloat(static_cast<uint32_t>(254 - code) << 23);
}

// The fp8 code of one element of an MX block: NaN (with the element's sign)
// throughout a block whose OCP scale is NaN, otherwise the saturating cast
// of fp32(x * multiplier).
TEPLUG_HOST_DEVICE uint8_t MxEncodeElement(float x, uint8_t scale_code, Fp8Kind kind, MxRule rule) {
  if (scale_code == 0xFFu)
    return static_cast<uint8_t>(((FloatBits(x) >> 24) & 0x80u) | LayoutOf(kind).nan_code);
  return EncodeScaled(x, MxQuantizeMultiplier(scale_code, rule), kind);
}

// The real value of a code with its (per-tensor, block or decoded e8m0)
// scale_inv: fp32(decode(code) * scale_inv).
TEPLUG_HOST_DEVICE float DequantizeElement(uint8_t code, Fp8Kind kind, float scale_inv) {
  return DecodeFp8(code, kind) * scale_inv;
}

}  // namespace teplug::native::quantize

#endif  // TEPLUG_NATIVE_QUANTIZE_SCALE_MATH_H_
