// Reference GEMM in fp64 with TransformerEngine's epilogues:
//   Z = alpha * op(A) * op(B) + beta * C + bias      (bias[N] added to every row)
//   D = gelu(Z) when the GELU epilogue is on (and Z is returned as the
//       pre-activation output), else D = Z.
// op(X) = X or X^T per transpose flag; op(A) is [M, K], op(B) is [K, N],
// C and D are [M, N]. Accumulation is a plain fp64 sum over k in order.
//
// GELU is TransformerEngine's tanh approximation:
//   gelu(z) = 0.5 * z * (1 + tanh(sqrt(2/pi) * (z + 0.044715 * z^3)))
//
// Accumulate mode (TE's `accumulate`, cuBLAS beta on D): C is D's current
// contents, i.e. Z = alpha * op(A) op(B) + beta * D_old + bias; then no
// separate C may be given.
#ifndef TEPLUG_PLUGINS_REFERENCE_KERNELS_GEMM_REFERENCE_H_
#define TEPLUG_PLUGINS_REFERENCE_KERNELS_GEMM_REFERENCE_H_

#include <cstdint>

#include "absl/status/status.h"

namespace teplug {
namespace reference {

// A read-only strided matrix as stored in memory: element (r, c) of the
// stored matrix is data[r * row_stride + c * col_stride]. Any strides are
// allowed (row-major, column-major, sub-matrix views).
struct ConstMatrixView {
  const double* data = nullptr;
  int64_t row_stride = 0;
  int64_t col_stride = 0;
};

// A writable strided matrix, same addressing.
struct MatrixView {
  double* data = nullptr;
  int64_t row_stride = 0;
  int64_t col_stride = 0;
};

// What to compute. A is stored [M, K] (or [K, M] when transpose_a), B is
// stored [K, N] (or [N, K] when transpose_b).
struct GemmOptions {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  bool transpose_a = false;
  bool transpose_b = false;
  double alpha = 1.0;
  double beta = 0.0;
  // Z += bias[col]; nullptr = no bias.
  const double* bias = nullptr;
  // D = gelu(Z); Z is written to `pre_gelu_out`.
  bool gelu = false;
  // Use D's prior contents as C.
  bool accumulate = false;
};

// The GELU tanh approximation above.
double GeluTanh(double z);

// Computes D (and, with gelu, the pre-activation Z into pre_gelu_out).
// `c` is read when beta != 0 and not accumulate (data may be null
// otherwise). Errors (InvalidArgument, naming the field): negative
// extents; null A/B (when k > 0), D, pre_gelu_out with gelu, C with
// beta != 0 and not accumulate; a C given together with accumulate.
absl::Status GemmReference(const GemmOptions& options, ConstMatrixView a,
                           ConstMatrixView b, ConstMatrixView c, MatrixView d,
                           MatrixView pre_gelu_out);

}  // namespace reference
}  // namespace teplug

#endif  // TEPLUG_PLUGINS_REFERENCE_KERNELS_GEMM_REFERENCE_H_
