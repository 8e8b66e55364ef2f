// IGemm v1 of the opencl provider on CLBlast: row-major matrices in memory
// of the opencl IDevice, transposes, row strides, C with beta, accumulate,
// bias, GELU (tanh) and pre_gelu_out; the semantics of the reference provider
// (gemm.h). Every product is computed by clblast::Gemm in fp32: fp32
// operands in place; fp16, bf16 and fp8 operands (per_tensor or mxfp8_1d32
// scales, read as code * scale_inv) converted to fp32 first by our kernels
// (gemm_operand_kernels.h), so everything accumulates in fp32 and D (fp32 or
// fp16) is rounded once. beta * C, bias
// and GELU are our small kernels (epilogue_kernels.h), compiled once per
// context and dtype (program_cache.h). Work is enqueued on args.stream (a
// cl_command_queue of the tensors' context); with no stream it runs on the
// context's queue and has completed when the call returns.
#ifndef TEPLUG_PLUGINS_OPENCL_PROVIDER_GEMM_PROVIDER_H_
#define TEPLUG_PLUGINS_OPENCL_PROVIDER_GEMM_PROVIDER_H_

#include <memory>
#include <string>

#include "teplug/gemm.h"
#include "teplug/sdk/implement.hpp"

namespace teplug::opencl::provider {

// The message of a failed CLBlast call: "clblast::Gemm failed: <name> (<code>)".
std::string ClblastErrorMessage(int status);

class OpenClGemm final : public sdk::GemmImpl {
 public:
  // false with the reason (tensor and value) for calls outside the
  // descriptor's reach that it cannot state (strides, a C, bias or
  // pre_gelu_out not in D's dtype, a block-scaled operand).
  bool Supports(const TeplugGemmArgs& args, std::string* reason) override;
  void Gemm(const TeplugGemmArgs& args) override;
};

}  // namespace teplug::opencl::provider

#endif  // TEPLUG_PLUGINS_OPENCL_PROVIDER_GEMM_PROVIDER_H_
