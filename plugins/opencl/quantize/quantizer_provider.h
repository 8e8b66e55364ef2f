// IQuantizer v1 of the opencl provider: quantize and dequantize as OpenCL
// kernels (quantize_kernels.h) on contiguous tensors in memory of the opencl
// IDevice, bit-exact to quantizer.h's rules (the reference provider's
// numerics). Served: fp32/fp16/bf16 <-> fp8_e4m3/fp8_e5m2 in per_tensor
// scaling (delayed and current recipes, amax_epsilon, force_pow2_scales, the
// transposed column-wise copy) and mxfp8_1d32 (row-wise and column-wise
// blocks), amax written when given. Refused with a reason: fp4_e2m1, the
// block_1d128/block_2d128 modes, strided tensors, tensors not on an OpenCL
// device. Kernels are built once per context (provider/program_cache.h).
// Work is enqueued on args.stream (a cl_command_queue of the tensors'
// context); with no stream the call has completed when it returns. Delayed
// scaling reads the 4-byte given scale back to check it is finite and
// positive (one wait on the queue), as the reference refuses any other.
#ifndef TEPLUG_PLUGINS_OPENCL_QUANTIZE_QUANTIZER_PROVIDER_H_
#define TEPLUG_PLUGINS_OPENCL_QUANTIZE_QUANTIZER_PROVIDER_H_

#include <string>

#include "teplug/quantizer.h"
#include "teplug/sdk/implement.hpp"

namespace teplug::opencl::quantize {

class OpenClQuantizer final : public sdk::QuantizerImpl {
 public:
  // false with the reason (tensor and value) for calls the descriptor cannot
  // rule out that the quantizer does not serve (strides, block modes, fp4,
  // memory off the OpenCL device); malformed calls pass here and fail in the
  // op with INVALID_ARGUMENT.
  bool SupportsQuantize(const TeplugQuantizeArgs& args, std::string* reason) override;
  bool SupportsDequantize(const TeplugDequantizeArgs& args, std::string* reason) override;
  void Quantize(const TeplugQuantizeArgs& args) override;
  void Dequantize(const TeplugDequantizeArgs& args) override;
};

}  // namespace teplug::opencl::quantize

#endif  // TEPLUG_PLUGINS_OPENCL_QUANTIZE_QUANTIZER_PROVIDER_H_
