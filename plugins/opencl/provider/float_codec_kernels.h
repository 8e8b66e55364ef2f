// OpenCL C helpers, written from the format specifications, that encode and
// decode fp32, fp16, bf16, OCP fp8 (e4m3, e5m2) and e8m0 with integer
// arithmetic only. Every rounding is to nearest, ties to even, done once on an
// exact value (significand, exponent, sticky bit), so the results do not
// depend on the device's float unit (denormal flushing, division accuracy):
// they match the reference provider's numerics (float_formats.h) bit for bit.
// Prepended to the quantizer's and the GEMM conversion's kernel sources.
//
//   teplug_round_code     an exact value rounded into a binary format's code
//   teplug_f32_parts      fp32 bits as (significand, exponent)
//   teplug_fp8_parts      an fp8 code as (significand, exponent); false for
//                         NaN/Inf
//   teplug_encode_fp8     saturating fp8 encode of fp32 bits times 2^-shift
//   teplug_encode_{f32,f16,bf16}  non-saturating encode (overflow: Inf)
//   teplug_load_bits      an fp32/fp16/bf16 element as fp32 bits
//   teplug_decode_fp8     an fp8 code as fp32 bits (exact)
//   teplug_scaled_code    the exact real value code * scale_inv of an fp8
//                         code (per-tensor fp32 scale_inv or e8m0 scale)
#ifndef TEPLUG_PLUGINS_OPENCL_PROVIDER_FLOAT_CODEC_KERNELS_H_
#define TEPLUG_PLUGINS_OPENCL_PROVIDER_FLOAT_CODEC_KERNELS_H_

namespace teplug::opencl::provider {

// Element kinds of teplug_load_bits / teplug_store (the kernels' `kind`
// arguments).
inline constexpr int kClKindFp32 = 0;
inline constexpr int kClKindFp16 = 1;
inline constexpr int kClKindBf16 = 2;

inline constexpr char kFloatCodecSource[] = R"CL(
#define TEPLUG_KIND_FP32 0
#define TEPLUG_KIND_FP16 1
#define TEPLUG_KIND_BF16 2

/* The magnitude code of (sig + sticky * tiny) * 2^e (sig > 0) in a format
 * with `mbits` stored mantissa bits, smallest normal exponent `emin` and
 * exponent bias `bias`, rounded to nearest even. The exponent is unbounded
 * above: a code at or past the format's Inf/NaN codes means overflow and the
 * caller decides what that becomes. `sticky` (bits below sig are non-zero) is
 * only passed with a sig of more than mbits + 1 significant bits. */
ulong teplug_round_code(ulong sig, int e, int sticky, int mbits, int emin, int bias) {
  const int lg = e + 63 - (int)clz(sig);       /* floor(log2(value)) */
  int q = max(lg, emin) - mbits;               /* exponent of the quantum */
  const int drop = q - e;
  ulong n;
  if (drop <= 0) {
    n = sig << (-drop);
  } else if (drop > 64) {
    n = 0;                                     /* below half a quantum */
  } else {
    const ulong keep = drop == 64 ? 0 : sig >> drop;
    const ulong rem = drop == 64 ? sig : (sig & ((1UL << drop) - 1UL));
    const ulong halfway = 1UL << (drop - 1);
    const int up = rem > halfway || (rem == halfway && (sticky || (keep & 1UL)));
    n = keep + (ulong)up;
  }
  if (n == 0) return 0;
  if (n >= (2UL << mbits)) { n >>= 1; q += 1; } /* carry into the next binade */
  if (n < (1UL << mbits)) return n;             /* subnormal: exponent field 0 */
  return ((ulong)(q + mbits + bias) << mbits) | (n - (1UL << mbits));
}

/* Finite non-zero fp32 magnitude bits as sig * 2^e. */
void teplug_f32_parts(uint mag, ulong* sig, int* e) {
  const uint ef = mag >> 23, m = mag & 0x7FFFFFu;
  if (ef == 0u) { *sig = m; *e = -149; }
  else { *sig = m | 0x800000u; *e = (int)ef - 150; }
}

/* fp8 code (e5m2 != 0: e5m2, else e4m3) as sig * 2^e; 0 for NaN or Inf. */
int teplug_fp8_parts(uint code, int e5m2, ulong* sig, int* e) {
  const uint mag = code & 0x7Fu;
  if (e5m2) {
    const uint ef = mag >> 2, m = mag & 3u;
    if (ef == 31u) return 0;
    if (ef == 0u) { *sig = m; *e = -16; } else { *sig = 4u | m; *e = (int)ef - 17; }
  } else {
    if (mag == 0x7Fu) return 0;
    const uint ef = mag >> 3, m = mag & 7u;
    if (ef == 0u) { *sig = m; *e = -9; } else { *sig = 8u | m; *e = (int)ef - 10; }
  }
  return 1;
}

/* The fp8 code of value(bits) * 2^-shift: nearest even, saturating to the
 * largest normal (+-Inf too), NaN kept NaN with its sign. */
uchar teplug_encode_fp8(uint bits, int shift, int e5m2) {
  const uint sign = (bits >> 24) & 0x80u, mag = bits & 0x7FFFFFFFu;
  const ulong max_code = e5m2 ? 0x7Bu : 0x7Eu;
  if (mag > 0x7F800000u) return (uchar)(sign | (e5m2 ? 0x7Eu : 0x7Fu));
  if (mag == 0x7F800000u) return (uchar)(sign | max_code);
  if (mag == 0u) return (uchar)sign;
  ulong sig; int e;
  teplug_f32_parts(mag, &sig, &e);
  const ulong c = e5m2 ? teplug_round_code(sig, e - shift, 0, 2, -14, 15)
                       : teplug_round_code(sig, e - shift, 0, 3, -6, 7);
  return (uchar)(sign | (uint)min(c, max_code));
}

/* sign * sig * 2^e (sig may be 0) into fp32 / fp16 / bf16 bits; overflow
 * gives Inf. */
uint teplug_encode_f32(uint sign, ulong sig, int e, int sticky) {
  if (sig == 0) return sign << 31;
  const ulong c = teplug_round_code(sig, e, sticky, 23, -126, 127);
  return (sign << 31) | (uint)min(c, (ulong)0x7F800000u);
}
uint teplug_encode_f16(uint sign, ulong sig, int e) {
  if (sig == 0) return sign << 15;
  const ulong c = teplug_round_code(sig, e, 0, 10, -14, 15);
  return (sign << 15) | (uint)min(c, (ulong)0x7C00u);
}
uint teplug_encode_bf16(uint sign, ulong sig, int e) {
  if (sig == 0) return sign << 15;
  const ulong c = teplug_round_code(sig, e, 0, 7, -126, 127);
  return (sign << 15) | (uint)min(c, (ulong)0x7F80u);
}

/* fp16 bits as fp32 bits (exact; NaN stays NaN with its sign). */
uint teplug_f16_to_f32(uint h) {
  const uint sign = (h & 0x8000u) << 16, ef = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
  if (ef == 31u) return sign | 0x7F800000u | (m << 13);
  if (ef != 0u) return sign | ((ef + 112u) << 23) | (m << 13);
  if (m == 0u) return sign;
  return sign | teplug_encode_f32(0u, m, -24, 0);
}

/* Element i of an fp32/fp16/bf16 array at byte offset `off` of `p`. */
uint teplug_load_bits(__global const uchar* p, ulong off, int kind, ulong i) {
  if (kind == TEPLUG_KIND_FP32) return ((__global const uint*)(p + off))[i];
  const uint h = ((__global const ushort*)(p + off))[i];
  return kind == TEPLUG_KIND_BF16 ? h << 16 : teplug_f16_to_f32(h);
}

/* Stores sign * sig * 2^e, or the fp32 value `special` when `is_special`
 * (NaN, Inf), as element i of a `kind` array at byte offset `off`. */
void teplug_store(__global uchar* p, ulong off, int kind, ulong i, uint sign, ulong sig, int e,
                  int is_special, uint special) {
  if (kind == TEPLUG_KIND_FP32) {
    ((__global uint*)(p + off))[i] = is_special ? special : teplug_encode_f32(sign, sig, e, 0);
    return;
  }
  uint h;
  if (is_special) {
    const uint s = (special >> 16) & 0x8000u;
    const int nan = (special & 0x7FFFFFFFu) > 0x7F800000u;
    h = kind == TEPLUG_KIND_BF16 ? (s | (nan ? 0x7FC0u : 0x7F80u)) : (s | (nan ? 0x7E00u : 0x7C00u));
  } else {
    h = kind == TEPLUG_KIND_BF16 ? teplug_encode_bf16(sign, sig, e) : teplug_encode_f16(sign, sig, e);
  }
  ((__global ushort*)(p + off))[i] = (ushort)h;
}

/* An fp8 code as fp32 bits (exact). */
uint teplug_decode_fp8(uint code, int e5m2) {
  const uint sign = (code & 0x80u) << 24;
  ulong sig; int e;
  if (!teplug_fp8_parts(code, e5m2, &sig, &e)) {
    const int inf = e5m2 && (code & 0x7Fu) == 0x7Cu;
    return sign | (inf ? 0x7F800000u : 0x7FC00000u);
  }
  return teplug_encode_f32(code >> 7, sig, e, 0);
}

/* An exact real value: sign * sig * 2^e, or the fp32 bits `value` when
 * `special` (NaN, Inf). */
typedef struct {
  uint sign;
  ulong sig;
  int e;
  int special;
  uint value;
} teplug_exact;

/* code * scale_inv for an fp8 code: with mx, `scale` is an e8m0 code
 * (2^(scale - 127), 0xFF NaN); otherwise it is the fp32 bits of a per-tensor
 * scale_inv. IEEE rules for the specials (NaN operands and 0 * Inf are NaN). */
teplug_exact teplug_scaled_code(uint code, int e5m2, int mx, uint scale) {
  teplug_exact x;
  x.sign = code >> 7;
  x.sig = 0;
  x.e = 0;
  const int finite = teplug_fp8_parts(code, e5m2, &x.sig, &x.e);
  const uint nan = 0x7FC00000u | (x.sign << 31);
  x.special = !finite;
  x.value = teplug_decode_fp8(code, e5m2);
  if (mx) {
    if (scale == 0xFFu) { x.special = 1; x.value = nan; }
    x.e += (int)scale - 127;
    return x;
  }
  const uint s_mag = scale & 0x7FFFFFFFu;
  x.sign ^= scale >> 31;
  const int code_nan = !finite && !(e5m2 && (code & 0x7Fu) == 0x7Cu);
  const int s_nan = s_mag > 0x7F800000u, s_inf = s_mag == 0x7F800000u;
  if (code_nan || s_nan || (!finite && s_mag == 0u) || (s_inf && x.sig == 0)) {
    x.special = 1; x.value = nan;                      /* NaN operand, 0 * Inf */
  } else if (!finite || s_inf) {
    x.special = 1; x.value = 0x7F800000u | (x.sign << 31);
  } else if (x.sig == 0 || s_mag == 0u) {
    x.sig = 0;                                         /* a signed zero */
  } else {
    ulong ss; int se;
    teplug_f32_parts(s_mag, &ss, &se);
    x.sig *= ss;
    x.e += se;
  }
  return x;
}
)CL";

}  // namespace teplug::opencl::provider

#endif  // TEPLUG_PLUGINS_OPENCL_PROVIDER_FLOAT_CODEC_KERNELS_H_
