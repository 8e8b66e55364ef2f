// The main job's own, deliberately naive oracles: plain double-precision
// loops written from the op definitions in interfaces/teplug/*.h, sharing no
// code with any provider. They make `teplug run` meaningful even when the
// reference provider is the only one (its "vs reference" error is then 0 by
// construction). The narrow formats are read with the tool's own decoders
// (float_format_codecs.h), also written from the specifications.
#ifndef TEPLUG_TOOLS_TEPLUG_INDEPENDENT_ORACLES_H_
#define TEPLUG_TOOLS_TEPLUG_INDEPENDENT_ORACLES_H_

#include <cstdint>
#include <vector>

namespace teplug::cli {


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
