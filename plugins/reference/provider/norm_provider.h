// INorm v1 of the reference provider: LayerNorm and RMSNorm forward and
// backward, with zero-centered gamma, computed in fp64 by
// kernels/norm_reference.h on the exact input values (fp32, fp16, bf16) and
// rounded once into each output's dtype. The forward's y may also be fp8:
// per_tensor (delayed scaling) or mxfp8_1d32, quantized from the fp32-rounded
// result exactly as the reference IQuantizer quantizes (norm_output.h). mu and
// rsigma are fp32 [rows]. The backward reads the mu and rsigma it is given.
// Any rank >= 1 is [prod(shape[:-1]), shape[-1]]; any hidden size >= 1.
#ifndef TEPLUG_PLUGINS_REFERENCE_PROVIDER_NORM_PROVIDER_H_
#define TEPLUG_PLUGINS_REFERENCE_PROVIDER_NORM_PROVIDER_H_

#include <memory>

#include "absl/status/status.h"
#include "teplug/norm.h"
#include "teplug/sdk/implement.hpp"

namespace teplug::reference::provider {

// y (and mu, rsigma when given) from x, gamma and beta. Errors name the args
// field ("TeplugNormFwdArgs.beta is set but norm_type is rmsnorm ...").
absl::Status RunReferenceNormForward(const TeplugNormFwdArgs& args);

// dx, dgamma (and dbeta for LayerNorm) from dy, x, mu, rsigma and gamma.
absl::Status RunReferenceNormBackward(const TeplugNormBwdArgs& args);

// The SDK object behind the registered INorm v1 (stateless, thread-safe).
std::unique_ptr<sdk::NormImpl> NewReferenceNorm();

}  // namespace teplug::reference::provider

#endif  // TEPLUG_PLUGINS_REFERENCE_PROVIDER_NORM_PROVIDER_H_
