// The main job's own, deliberately naive oracles: plain double-precision
// loops written from the op definitions in interfaces/teplug/*.h, sharing no
// code with any provider. They make `teplug run` meaningful even when the
// reference provider is the only one (its "vs reference" error is then 0 by
// construction). That includes reading the narrow formats: the decoders below
// are written from the format specifications, not taken from the reference
// provider's numerics, so a decoding slip there cannot hide in the checks.
#ifndef TEPLUG_TOOLS_TEPLUG_INDEPENDENT_ORACLES_H_
#define TEPLUG_TOOLS_TEPLUG_INDEPENDENT_ORACLES_H_

#include <cstdint>
#include <vector>

namespace teplug::cli {

// The real value of one code of each narrow format, from the specifications
// (sign, then exponent, then mantissa bits; a zero exponent field is a
// subnormal 2^(1 - bias) * 0.mantissa):
//   OCP OFP8 rev 1.0 e4m3: bias 7, no infinities, NaN only S.1111.111 (max 448).
//   OCP OFP8 rev 1.0 e5m2: bias 15, IEEE-like: S.11111.00 is +-Inf, S.11111.xx
//     (xx != 00) NaN (max 57344).
//   OCP MX v1.0 e8m0: 2^(bits - 127), 0xFF NaN (no sign, no zero).
//   IEEE 754 binary16 (fp16, bias 15) and bfloat16 (bf16, bias 127).
double DecodeE4M3(uint8_t bits);
double DecodeE5M2(uint8_t bits);
double DecodeE8M0(uint8_t bits);
double DecodeFp16(uint16_t bits);
double DecodeBf16(uint16_t bits);

// Entries (i, j) of D = op(A) op(B) for the listed flat indices i*n + j.
// a is [m, k] (or [k, m] when trans_a), b is [k, n] (or [n, k] when trans_b),
// all row-major real values.
std::vector<double> NaiveGemmEntries(const std::vector<double>& a, const std::vector<double>& b,
                                     int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b,
                                     const std::vector<int64_t>& flat_indices);

// Causal (top-left) self-attention without bias or dropout over a packed
// bs3hd buffer qkv [B, S, 3, H, D].
struct NaiveAttentionShape {
  int64_t batch = 0, seq = 0, heads = 0, head_dim = 0;
  double scale = 1.0;
};
// O [B, S, H, D] and the natural-log sum-exp [B, H, S].
void NaiveAttentionForward(const NaiveAttentionShape& s, const std::vector<double>& qkv,
                           std::vector<double>* o, std::vector<double>* lse);
// dQKV [B, S, 3, H, D] from dO [B, S, H, D]; `o` is the forward output the
// caller holds (its rounding enters delta = rowsum(dO * O), as in TE).
std::vector<double> NaiveAttentionBackward(const NaiveAttentionShape& s,
                                           const std::vector<double>& qkv,
                                           const std::vector<double>& o,
                                           const std::vector<double>& d_o);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_INDEPENDENT_ORACLES_H_
