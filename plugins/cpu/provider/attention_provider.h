// IAttention v1 of the cpu provider: the flash-style forward and backward of
// plugins/cpu/attention on fp32, fp16 and bf16 host tensors in every layout,
// mask, bias type (dBias for pre/post-scale), window, GQA and dropout
// (Philox, the reference's mask bit for bit). No fp8.
#ifndef TEPLUG_PLUGINS_CPU_PROVIDER_ATTENTION_PROVIDER_H_
#define TEPLUG_PLUGINS_CPU_PROVIDER_ATTENTION_PROVIDER_H_

#include <string>

#include "absl/status/status.h"
#include "teplug/attention.h"
#include "teplug/sdk/implement.hpp"

namespace teplug::cpu::provider {

class CpuAttention : public sdk::AttentionImpl {
 public:
  // `threads`: the threads each call may use (thread_budget.h); 0 for one
  // per hardware thread.
  explicit CpuAttention(int threads = 0) : threads_(threads) {}

  // false with the reason for args this provider does not serve (fp8, a
  // device, strided buffers); true for everything else, malformed args
  // included: Forward reports those.
  bool SupportsForward(const TeplugAttentionFwdArgs& args, std::string* reason) override;
  bool SupportsBackward(const TeplugAttentionBwdArgs& args, std::string* reason) override;
  // Run RunForward / RunBackward and throw their error as an sdk::Exception.
  void Forward(const TeplugAttentionFwdArgs& args) override;
  void Backward(const TeplugAttentionBwdArgs& args) override;

  // The forward / backward: InvalidArgument for malformed args,
  // Unimplemented for ones not served.
  absl::Status RunForward(const TeplugAttentionFwdArgs& args);
  absl::Status RunBackward(const TeplugAttentionBwdArgs& args);

 private:
  const int threads_;
};

}  // namespace teplug::cpu::provider

#endif  // TEPLUG_PLUGINS_CPU_PROVIDER_ATTENTION_PROVIDER_H_
