// IAttention v1 of the opencl provider: forward and backward as our own
// OpenCL kernels (attention_kernels.h) on tensors in memory of the opencl
// IDevice, with the semantics of attention.h (the reference provider is the
// oracle). Served: fp32, fp16 and bf16 Q/K/V (O and gradients in the same
// dtype; fp32 accumulation), all 15 layouts and any strides with unit
// head-dim stride, every mask type, sliding windows, GQA/MQA, pre/post-scale
// bias (with dbias) and ALiBi, head dims up to kMaxHeadDim, bitwise
// reproducible results. Not served: dropout in training, fp8.
#ifndef TEPLUG_PLUGINS_OPENCL_ATTENTION_ATTENTION_PROVIDER_H_
#define TEPLUG_PLUGINS_OPENCL_ATTENTION_ATTENTION_PROVIDER_H_

#include <string>

#include "teplug/attention.h"
#include "teplug/sdk/implement.hpp"

namespace teplug::opencl::attention {

class OpenClAttention final : public sdk::AttentionImpl {
 public:
  // false with the reason for well-formed calls the kernels do not serve;
  // malformed calls are left to the op, which names what is wrong.
  bool SupportsForward(const TeplugAttentionFwdArgs& args, std::string* reason) override;
  bool SupportsBackward(const TeplugAttentionBwdArgs& args, std::string* reason) override;
  void Forward(const TeplugAttentionFwdArgs& args) override;
  void Backward(const TeplugAttentionBwdArgs& args) override;
};

// The descriptor registered with it (static storage).
const TeplugAttentionCaps* OpenClAttentionCaps();

}  // namespace teplug::opencl::attention

#endif  // TEPLUG_PLUGINS_OPENCL_ATTENTION_ATTENTION_PROVIDER_H_
