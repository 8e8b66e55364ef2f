// Test support: one attention forward + backward through the ABI for any
// layout, from canonical [B][H][S][D] inputs to canonical outputs, with the
// layout buffers built by qkv_buffers.h (independent of the provider's code).
#ifndef TEPLUG_PLUGINS_REFERENCE_PROVIDER_TESTING_ATTENTION_RUNNER_H_
#define TEPLUG_PLUGINS_REFERENCE_PROVIDER_TESTING_ATTENTION_RUNNER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "plugins/reference/provider/testing/qkv_buffers.h"
#include "teplug/attention.h"

namespace teplug::reference::provider::testing {

// Canonical results; `error` is the first failing call's message ("" on success).
struct AttentionOutputs {
  std::vector<double> o, lse, dq, dk, dv;
  std::string error;
};

// Runs forward then backward of `layout` with q/k/v stored as `dtype` (fp8
// with per-tensor scale_inv 1), O, dO, LSE and gradients in fp32. cu_q/cu_kv
// ([b+1] prefix sums) are passed for thd layouts and padding masks; for other
// layouts they must describe full lengths. `bias` is passed to both calls.
// O, LSE, dQ, dK and dV start as quiet NaN in every element, so any element
// the provider leaves unwritten comes back as NaN (never as a plausible 0)
// and fails every comparison of the results.
AttentionOutputs RunAttention(TeplugAttentionV1* attn, int32_t layout, TeplugAttentionParams params,
                              const Dims& d, const std::vector<int64_t>& cu_q,
                              const std::vector<int64_t>& cu_kv, const std::vector<double>& q,
                              const std::vector<double>& k, const std::vector<double>& v,
                              const std::vector<double>& d_o, int32_t dtype = TEPLUG_DTYPE_FP32,
                              const TeplugTensor* bias = nullptr);

}  // namespace teplug::reference::provider::testing

#endif  // TEPLUG_PLUGINS_REFERENCE_PROVIDER_TESTING_ATTENTION_RUNNER_H_
