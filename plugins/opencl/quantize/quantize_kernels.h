// The OpenCL C of the opencl quantizer, appended to kFloatCodecSource and
// built once per context by the provider's ProgramCache. The rules are
// quantizer.h's; every element conversion is integer arithmetic
// (float_codec_kernels.h), so results are bit-exact on any device.
//   amax_reduce     max |x| (NaN skipped) into a uint word by atomic_max on
//                   the fp32 bits (non-negative floats order like their bits)
//   finish_scale    one work item: the per-tensor scale (given, or from amax
//                   by the current-scaling formula) and 1/scale, written to
//                   the scratch words and to the caller's tensors
//   cast_per_tensor codes = fp8(fp32(x * scale)), row-wise and/or transposed
//   mx_rows/mx_cols MXFP8: one work item per 32-element block along a row /
//                   down a column, its e8m0 scale (by the OCP rule or
//                   TransformerEngine's, the kernels' `te` argument) and its
//                   codes
//   dequantize      code * scale_inv (per-tensor) or * 2^(e - 127) (MXFP8),
//                   rounded once into fp32/fp16/bf16
// Tensors are (buffer, byte offset) pairs; the host checked every extent.
#ifndef TEPLUG_PLUGINS_OPENCL_QUANTIZE_QUANTIZE_KERNELS_H_
#define TEPLUG_PLUGINS_OPENCL_QUANTIZE_QUANTIZE_KERNELS_H_

namespace teplug::opencl::quantize {

// Words of the per-call scratch buffer.
inline constexpr int kScratchAmax = 0;
inline constexpr int kScratchScale = 1;
inline constexpr int kScratchScaleInv = 2;
inline constexpr int kScratchWords = 3;

inline constexpr char kQuantizeKernelSource[] = R"CL(
#define TEPLUG_MX_BLOCK 32

__kernel void amax_reduce(__global const uchar* in, ulong in_off, int kind, ulong n,
                          volatile __global uint* scratch) {
  const ulong step = get_global_size(0) * get_global_size(1);
  uint best = 0u;
  for (ulong i = get_global_id(1); i < n; i += step) {
    const uint mag = teplug_load_bits(in, in_off, kind, i) & 0x7FFFFFFFu;
    if (mag <= 0x7F800000u) best = max(best, mag);
  }
  atomic_max(&scratch[0], best);
}

/* scale = fp8_max / a rounded to nearest even (fp8_max = 7 * 2^6 or 7 * 2^13);
 * a is a positive finite fp32 magnitude. Returns fp32 bits, or 0x7F800000 on
 * overflow. */
uint teplug_fp8_max_over(uint a, int e5m2) {
  ulong sig; int e;
  teplug_f32_parts(a, &sig, &e);
  const ulong num = 7UL << 48;
  return teplug_encode_f32(0u, num / sig, (e5m2 ? 13 : 6) - 48 - e, (num % sig) != 0);
}

/* 1 / s for positive finite fp32 bits s, rounded to nearest even. */
uint teplug_reciprocal(uint s) {
  ulong sig; int e;
  teplug_f32_parts(s, &sig, &e);
  const ulong num = 1UL << 62;
  return teplug_encode_f32(0u, num / sig, -62 - e, (num % sig) != 0);
}

__kernel void finish_scale(__global uint* scratch, int current, int e5m2, float amax_epsilon,
                           int pow2, uint input_max_bits,
                           __global const uchar* given, ulong given_off,
                           __global uchar* scale_out, ulong scale_off,
                           __global uchar* scale_inv_out, ulong scale_inv_off,
                           __global uchar* col_scale_inv_out, ulong col_scale_inv_off,
                           __global uchar* amax_out, ulong amax_off) {
  const uint amax = scratch[0];
  uint scale = 0x3F800000u;  /* 1.0f */
  if (current) {
    uint a = amax;
    const uint eps = as_uint(amax_epsilon);
    if (a < eps) a = eps;  /* both non-negative: bit order is value order */
    if (a != 0u && a < 0x7F800000u) {
      scale = teplug_fp8_max_over(a, e5m2);
      if (scale == 0x7F800000u) scale = input_max_bits;
      if (pow2) scale &= 0xFF800000u;
    }
  } else if (given) {
    scale = *(__global const uint*)(given + given_off);
  }
  const uint scale_inv = teplug_reciprocal(scale);
  scratch[1] = scale;
  scratch[2] = scale_inv;
  if (scale_out) *(__global uint*)(scale_out + scale_off) = scale;
  if (scale_inv_out) *(__global uint*)(scale_inv_out + scale_inv_off) = scale_inv;
  if (col_scale_inv_out) *(__global uint*)(col_scale_inv_out + col_scale_inv_off) = scale_inv;
  if (amax_out) *(__global uint*)(amax_out + amax_off) = amax;
}

/* fp32(x * s) for fp32 bits x and a positive finite scale s, as fp32 bits. */
uint teplug_scaled(uint x, uint s) {
  const uint sign = x >> 31, mag = x & 0x7FFFFFFFu;
  if (mag >= 0x7F800000u || mag == 0u) return x;  /* NaN, Inf and zeros keep themselves */
  ulong xs, ss; int xe, se;
  teplug_f32_parts(mag, &xs, &xe);
  teplug_f32_parts(s, &ss, &se);
  return teplug_encode_f32(sign, xs * ss, xe + se, 0);
}

__kernel void cast_per_tensor(__global const uchar* in, ulong in_off, int kind,
                              __global const uint* scratch, int e5m2,
                              __global uchar* rowwise, ulong row_off,
                              __global uchar* colwise, ulong col_off) {
  const ulong r = get_global_id(0), c = get_global_id(1);
  const ulong rows = get_global_size(0), cols = get_global_size(1);
  const uint x = teplug_load_bits(in, in_off, kind, r * cols + c);
  const uchar code = teplug_encode_fp8(teplug_scaled(x, scratch[1]), 0, e5m2);
  if (rowwise) rowwise[row_off + r * cols + c] = code;
  if (colwise) colwise[col_off + c * rows + r] = code;
}

/* fp32 bits of 1 / max_normal rounded to nearest even: 1/448 (e4m3) and
 * 1/57344 (e5m2), i.e. fp32(1/7) * 2^-6 and * 2^-13. */
#define TEPLUG_RCP_MAX_E4M3 0x3B124925u
#define TEPLUG_RCP_MAX_E5M2 0x37924925u

/* TransformerEngine's float_to_e8m0 of non-negative fp32 bits p: the
 * exponent field, rounded up when the mantissa is non-zero, except past 0xFE
 * and for a subnormal with mantissa <= 0x400000; NaN 0xFF, Inf 0xFE, 0 0. */
uchar teplug_te_e8m0(uint p) {
  if (p > 0x7F800000u) return (uchar)0xFF;
  if (p == 0x7F800000u) return (uchar)0xFE;
  uint e = p >> 23;
  const uint m = p & 0x7FFFFFu;
  if (m != 0u && e != 0xFEu && !(e == 0u && m <= 0x400000u)) ++e;
  return (uchar)e;
}

/* One MX block: `count` elements `stride` apart from element `first`; its
 * e8m0 scale into *scale, its codes to out (same element indices).
 * te == 0: the OCP rule. A block holding NaN or Inf gets scale 0xFF and NaN
 * codes; otherwise shared_exp = floor(log2(amax)) - emax_elem, clamped to
 * -127, and code = fp8(x * 2^-shared_exp).
 * te != 0: TransformerEngine's rule. amax skips NaN (Inf counts); the scale
 * e = teplug_te_e8m0(fp32(amax * fp32(1 / max_normal))) and code =
 * fp8(fp32(x * r)) with r = 2^(127 - e), or 1 for e = 0. r is a power of two
 * and |x * r| stays below fp32's overflow, so fp32(x * r) is inexact only
 * below 2^-126, where both it and x * r are under half the smallest fp8
 * subnormal: one rounding of x * 2^(127 - e) gives the same code, signed
 * zeros included. NaN stays NaN (with its sign), Inf saturates. */
void teplug_mx_block(__global const uchar* in, ulong in_off, int kind, ulong first, ulong count,
                     ulong stride, int e5m2, int te, __global uchar* out, ulong out_off,
                     __global uchar* scale) {
  uint best = 0u;  /* max |x| over the non-NaN elements */
  int finite = 1;
  for (ulong i = 0; i < count; ++i) {
    const uint mag = teplug_load_bits(in, in_off, kind, first + i * stride) & 0x7FFFFFFFu;
    if (mag >= 0x7F800000u) finite = 0;
    if (mag <= 0x7F800000u) best = max(best, mag);
  }
  int shift;
  if (te) {
    const uchar e = teplug_te_e8m0(
        teplug_scaled(best, e5m2 ? TEPLUG_RCP_MAX_E5M2 : TEPLUG_RCP_MAX_E4M3));
    *scale = e;
    shift = e == 0 ? 0 : (int)e - 127;
    finite = 1;  /* NaN and Inf do not poison the block */
  } else {
    shift = -127;
    if (finite && best != 0u) {
      const uint ef = best >> 23;
      const int lg = ef == 0u ? (31 - (int)clz(best)) - 149 : (int)ef - 127;
      shift = max(lg - (e5m2 ? 15 : 8), -127);
    }
    *scale = finite ? (uchar)(shift + 127) : (uchar)0xFF;
  }
  for (ulong i = 0; i < count; ++i) {
    const ulong k = first + i * stride;
    const uint x = teplug_load_bits(in, in_off, kind, k);
    out[out_off + k] = finite ? teplug_encode_fp8(x, shift, e5m2)
                              : (uchar)(((x >> 24) & 0x80u) | (e5m2 ? 0x7Eu : 0x7Fu));
  }
}

/* Grid [rows, ceil(cols/32)]: scales [rows, ceil(cols/32)]. */
__kernel void mx_rows(__global const uchar* in, ulong in_off, int kind, ulong cols, int e5m2,
                      int te, __global uchar* codes, ulong codes_off,
                      __global uchar* scales, ulong scales_off) {
  const ulong r = get_global_id(0), b = get_global_id(1), blocks = get_global_size(1);
  const ulong start = b * TEPLUG_MX_BLOCK;
  const ulong count = min((ulong)TEPLUG_MX_BLOCK, cols - start);
  teplug_mx_block(in, in_off, kind, r * cols + start, count, 1, e5m2, te, codes, codes_off,
                  scales + scales_off + r * blocks + b);
}

/* Grid [ceil(rows/32), cols]: codes keep [rows, cols], scales
 * [ceil(rows/32), cols]. */
__kernel void mx_cols(__global const uchar* in, ulong in_off, int kind, ulong rows, int e5m2,
                      int te, __global uchar* codes, ulong codes_off,
                      __global uchar* scales, ulong scales_off) {
  const ulong b = get_global_id(0), c = get_global_id(1), cols = get_global_size(1);
  const ulong start = b * TEPLUG_MX_BLOCK;
  const ulong count = min((ulong)TEPLUG_MX_BLOCK, rows - start);
  teplug_mx_block(in, in_off, kind, start * cols + c, count, cols, e5m2, te, codes, codes_off,
                  scales + scales_off + b * cols + c);
}

/* Grid [rows, cols]. mx: scales are e8m0 [rows, ceil(cols/32)]; otherwise
 * one fp32 scale_inv at scale_off. */
__kernel void dequantize(__global const uchar* codes, ulong codes_off, int e5m2, int mx,
                         __global const uchar* scales, ulong scale_off,
                         __global uchar* out, ulong out_off, int kind) {
  const ulong r = get_global_id(0), c = get_global_id(1), cols = get_global_size(1);
  const ulong i = r * cols + c;
  const uint scale =
      mx ? scales[scale_off + r * ((cols + TEPLUG_MX_BLOCK - 1) / TEPLUG_MX_BLOCK) +
                  c / TEPLUG_MX_BLOCK]
         : *(__global const uint*)(scales + scale_off);
  const teplug_exact x = teplug_scaled_code(codes[codes_off + i], e5m2, mx, scale);
  teplug_store(out, out_off, kind, i, x.sign, x.sig, x.e, x.special, x.value);
}
)CL";

}  // namespace teplug::opencl::quantize

#endif  // TEPLUG_PLUGINS_OPENCL_QUANTIZE_QUANTIZE_KERNELS_H_
