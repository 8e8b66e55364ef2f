#include "plugins/reference/provider/testing/norm_tensors.h"

#include "teplug/sdk/struct_io.hpp"

namespace teplug::reference::provider::testing {
namespace {

int64_t RowsOf(const std::vector<int64_t>& shape) {
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < shape.size(); ++i) rows *= shape[i];
  return rows;
}

}  // namespace

NormTensors::NormTensors(int32_t norm_type, const std::vector<int64_t>& shape, int32_t x_dtype,
                         int32_t w_dtype, int32_t y_dtype, std::mt19937_64& rng)
    : rows(RowsOf(shape)),
      hidden(shape.back()),
      x(x_dtype, shape),
      gamma(w_dtype, {hidden}),
      beta(w_dtype, {hidden}),
      y(y_dtype, shape),
      mu(TEPLUG_DTYPE_FP32, {rows}),
      rsigma(TEPLUG_DTYPE_FP32, {rows}),
      dy(x_dtype, shape),
      dx(x_dtype, shape),
      dgamma(w_dtype, {hidden}),
      dbeta(w_dtype, {hidden}) {
  std::vector<double> xv = RandomValues(rng, x.count(), 0.05, 3.0);
  for (double& v : xv) v += 0.75;
  x.Fill(xv);
  gamma.Fill(RandomValues(rng, hidden, 0.1, 1.5));
  beta.Fill(RandomValues(rng, hidden, 0.1, 1.0));
  dy.Fill(RandomValues(rng, dy.count(), 0.1, 2.0));
  const bool ln = norm_type == TEPLUG_NORM_LAYERNORM;
  fwd = sdk::Versioned<TeplugNormFwdArgs>();
  fwd.norm_type = norm_type;
  fwd.epsilon = 1e-5f;
  fwd.x = x.get();
  fwd.gamma = gamma.get();
  fwd.beta = ln ? beta.get() : nullptr;
  fwd.y = y.get();
  fwd.mu = ln ? mu.get() : nullptr;
  fwd.rsigma = rsigma.get();
  bwd = sdk::Versioned<TeplugNormBwdArgs>();
  bwd.norm_type = norm_type;
  bwd.dy = dy.get();
  bwd.x = x.get();
  bwd.mu = ln ? mu.get() : nullptr;
  bwd.rsigma = rsigma.get();
  bwd.gamma = gamma.get();
  bwd.dx = dx.get();
  bwd.dgamma = dgamma.get();
  bwd.dbeta = ln ? dbeta.get() : nullptr;
}

void NormTensors::SetZeroCentered(bool on) {
  fwd.zero_centered_gamma = on;
  bwd.zero_centered_gamma = on;
}

sdk::OwnedError NormTensors::Forward(TeplugNormV1* norm) {
  return sdk::OwnedError(norm->vtbl->forward(norm, &fwd));
}

sdk::OwnedError NormTensors::Backward(TeplugNormV1* norm) {
  return sdk::OwnedError(norm->vtbl->backward(norm, &bwd));
}

}  // namespace teplug::reference::provider::testing
