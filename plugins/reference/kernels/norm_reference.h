// Reference LayerNorm and RMSNorm, forward and backward, in fp64 on dense
// row-major [rows, hidden] arrays, with TransformerEngine's definitions
// (transformer_engine/common/normalization, read not copied):
//   forward   LayerNorm  mu = mean(x), var = mean((x - mu)^2)
//                        y = (x - mu) * rsigma * g + beta
//             RMSNorm    var = mean(x^2), y = x * rsigma * g
//             rsigma = 1 / sqrt(var + epsilon), g = gamma (+ 1 when
//             zero_centered_gamma)
//   backward  xhat = (x - mu) * rsigma (RMSNorm: x * rsigma), dyg = dy * g
//             LayerNorm  dx = rsigma * (dyg - mean(dyg * xhat) * xhat - mean(dyg))
//             RMSNorm    dx = rsigma * (dyg - mean(dyg * xhat) * xhat)
//             dgamma = sum over rows of dy * xhat; dbeta = sum over rows of dy
// Means run over the `hidden` elements of a row (population variance). The
// row statistics are accumulated with Welford's update, one pass per row.
// The backward uses the mu and rsigma it is given (the forward's), as TE does.
#ifndef TEPLUG_PLUGINS_REFERENCE_KERNELS_NORM_REFERENCE_H_
#define TEPLUG_PLUGINS_REFERENCE_KERNELS_NORM_REFERENCE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"

namespace teplug::reference {

enum class NormKind { kLayerNorm, kRmsNorm };

// The problem both directions share.
struct NormProblem {
  NormKind kind = NormKind::kLayerNorm;
  int64_t rows = 0;
  int64_t hidden = 0;
  bool zero_centered_gamma = false;
};

struct NormForwardResult {
  std::vector<double> y;       // [rows, hidden]
  std::vector<double> mu;      // [rows]; empty for RMSNorm
  std::vector<double> rsigma;  // [rows]
};

struct NormBackwardResult {
  std::vector<double> dx;      // [rows, hidden]
  std::vector<double> dgamma;  // [hidden]
  std::vector<double> dbeta;   // [hidden]; empty for RMSNorm
};

// Forward. x is [rows, hidden], gamma [hidden], beta [hidden] for LayerNorm
// and empty for RMSNorm. InvalidArgument (naming the argument) for hidden < 1,
// negative rows, a non-finite or negative epsilon, or a size mismatch.
absl::StatusOr<NormForwardResult> NormForward(const NormProblem& problem,
                                              const std::vector<double>& x,
                                              const std::vector<double>& gamma,
                                              const std::vector<double>& beta, double epsilon);

// Backward. dy and x are [rows, hidden], mu [rows] for LayerNorm (empty for
// RMSNorm), rsigma [rows], gamma [hidden]. Errors as NormForward's.
absl::StatusOr<NormBackwardResult> NormBackward(const NormProblem& problem,
                                                const std::vector<double>& dy,
                                                const std::vector<double>& x,
                                                const std::vector<double>& mu,
                                                const std::vector<double>& rsigma,
                                                const std::vector<double>& gamma);

}  // namespace teplug::reference

#endif  // TEPLUG_PLUGINS_REFERENCE_KERNELS_NORM_REFERENCE_H_
