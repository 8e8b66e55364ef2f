#include "plugins/reference/kernels/gemm_reference.h"

#include <cmath>
#include <cstdint>

#include "absl/strings/str_format.h"

namespace teplug {
namespace reference {

double GeluTanh(double z) {
  // sqrt(2 / pi).
  constexpr double kSqrt2OverPi = 0.79788456080286535588;
  return 0.5 * z * (1.0 + std::tanh(kSqrt2OverPi * (z + 0.044715 * z * z * z)));
}

namespace {

absl::Status ValidateGemm(const GemmOptions& o, ConstMatrixView a,
                          ConstMatrixView b, ConstMatrixView c, MatrixView d,
                          MatrixView pre_gelu_out) {
  if (o.m < 0 || o.n < 0 || o.k < 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "gemm: extents must be >= 0, got m=%d n=%d k=%d", o.m, o.n, o.k));
  }
  const bool empty_output = o.m == 0 || o.n == 0;
  if (empty_output) return absl::OkStatus();
  if (o.k > 0 && (a.data == nullptr || b.data == nullptr)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "gemm: operand %s is null with k=%d", a.data == nullptr ? "A" : "B",
        o.k));
  }
  if (d.data == nullptr) {
    return absl::InvalidArgumentError("gemm: output D is null");
  }
  if (o.gelu && pre_gelu_out.data == nullptr) {
    return absl::InvalidArgumentError(
        "gemm: GELU epilogue needs pre_gelu_out for the pre-activation");
  }
  if (o.accumulate && c.data != nullptr) {
    return absl::InvalidArgumentError(
        "gemm: accumulate uses D as C; do not pass a separate C");
  }
  if (!o.accumulate && o.beta != 0.0 && c.data == nullptr) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "gemm: beta=%g needs C (or accumulate=true to use D)", o.beta));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status GemmReference(const GemmOptions& options, ConstMatrixView a,
                           ConstMatrixView b, ConstMatrixView c, MatrixView d,
                           MatrixView pre_gelu_out) {
  absl::Status status = ValidateGemm(options, a, b, c, d, pre_gelu_out);
  if (!status.ok()) return status;
  // Element (r, kk) of op(A) and (kk, col) of op(B) in stored coordinates.
  auto op_a = [&](int64_t r, int64_t kk) {
    return options.transpose_a ? a.data[kk * a.row_stride + r * a.col_stride]
                               : a.data[r * a.row_stride + kk * a.col_stride];
  };
  auto op_b = [&](int64_t kk, int64_t col) {
    return options.transpose_b ? b.data[col * b.row_stride + kk * b.col_stride]
                               : b.data[kk * b.row_stride + col * b.col_stride];
  };
  for (int64_t r = 0; r < options.m; ++r) {
    for (int64_t col = 0; col < options.n; ++col) {
      double product = 0.0;
      for (int64_t kk = 0; kk < options.k; ++kk) {
        product += op_a(r, kk) * op_b(kk, col);
      }
      double& out = d.data[r * d.row_stride + col * d.col_stride];
      double z = options.alpha * product;
      if (options.beta != 0.0) {
        z += options.beta * (options.accumulate
                                 ? out
                                 : c.data[r * c.row_stride + col * c.col_stride]);
      }
      if (options.bias != nullptr) z += options.bias[col];
      if (options.gelu) {
        pre_gelu_out.data[r * pre_gelu_out.row_stride +
                          col * pre_gelu_out.col_stride] = z;
        out = GeluTanh(z);
      } else {
        out = z;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace reference
}  // namespace teplug
