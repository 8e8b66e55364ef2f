// IAttention v1 of the reference provider: forward and backward for every
// layout, mask, bias type, window, GQA and dropout setting the ABI defines,
// computed in fp64 by kernels/attention_reference.h on exactly dequantized
// inputs (fp32, fp16, bf16, or fp8 with per-tensor scale_inv) and rounded once
// into the output dtype.
//
// fp8: the reference is the infinite-precision oracle of fp8 attention: it
// does not emulate the fused kernels' internal quantization of P and dP, so
// s_quant and dp_quant are accepted and not used; an fp8 O is written with
// o->quant's per-tensor scale (amax recorded).
#ifndef TEPLUG_PLUGINS_REFERENCE_PROVIDER_ATTENTION_PROVIDER_H_
#define TEPLUG_PLUGINS_REFERENCE_PROVIDER_ATTENTION_PROVIDER_H_

#include <memory>

#include "absl/status/status.h"
#include "teplug/attention.h"
#include "teplug/sdk/implement.hpp"

namespace teplug::reference::provider {

// O (and softmax_lse, required when params.is_training) from Q, K, V.
absl::Status RunReferenceAttentionForward(const TeplugAttentionFwdArgs& args);

// dQ, dK, dV (and dbias when given) from Q, K, V, O, dO and softmax_lse.
absl::Status RunReferenceAttentionBackward(const TeplugAttentionBwdArgs& args);

// The SDK object behind the registered IAttention v1 (stateless, thread-safe).
std::unique_ptr<sdk::AttentionImpl> NewReferenceAttention();

}  // namespace teplug::reference::provider

#endif  // TEPLUG_PLUGINS_REFERENCE_PROVIDER_ATTENTION_PROVIDER_H_
