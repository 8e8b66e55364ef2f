// Test support: one LayerNorm/RMSNorm problem with its ABI tensors (owning
// storage) and the forward and backward args wired as each op wants them:
// beta, mu and dbeta only for LayerNorm, dy/dx/dgamma/dbeta in the x and
// gamma dtypes. Inputs are random, never zero, and shifted off zero mean so
// LayerNorm and RMSNorm give different results.
#ifndef TEPLUG_PLUGINS_REFERENCE_PROVIDER_TESTING_NORM_TENSORS_H_
#define TEPLUG_PLUGINS_REFERENCE_PROVIDER_TESTING_NORM_TENSORS_H_

#include <cstdint>
#include <random>
#include <vector>

#include "plugins/reference/provider/testing/abi_tensor.h"
#include "teplug/norm.h"
#include "teplug/sdk/error.hpp"

namespace teplug::reference::provider::testing {

struct NormTensors {
  // x has `shape` (rank >= 1; rows = prod(shape[:-1]), hidden = shape.back()).
  NormTensors(int32_t norm_type, const std::vector<int64_t>& shape, int32_t x_dtype,
              int32_t w_dtype, int32_t y_dtype, std::mt19937_64& rng);
  NormTensors(const NormTensors&) = delete;
  NormTensors& operator=(const NormTensors&) = delete;

  bool layernorm() const { return fwd.norm_type == TEPLUG_NORM_LAYERNORM; }
  // Sets zero_centered_gamma in both args.
  void SetZeroCentered(bool on);
  sdk::OwnedError Forward(TeplugNormV1* norm);
  sdk::OwnedError Backward(TeplugNormV1* norm);

  int64_t rows = 0, hidden = 0;
  AbiTensor x, gamma, beta, y, mu, rsigma, dy, dx, dgamma, dbeta;
  TeplugNormFwdArgs fwd;
  TeplugNormBwdArgs bwd;
};

}  // namespace teplug::reference::provider::testing

#endif  // TEPLUG_PLUGINS_REFERENCE_PROVIDER_TESTING_NORM_TENSORS_H_
