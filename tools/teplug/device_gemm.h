// One GEMM whose tensors live in host
// memory, run on a device opened through the kernel's IDevice. Every tensor
// the GEMM reads (A, B, C, bias, the quantization scales, D when
// accumulating) is copied into memory allocated on the device, the GEMM is
// called through the given IGemm (the kernel's dispatching object, which then
// selects a provider for the device) with device views of the same shapes,
// and what it writes (D, pre_gelu_out, D's amax and scale_inv) is copied
// back; the device memory is freed before returning.
#ifndef TEPLUG_TOOLS_TEPLUG_DEVICE_GEMM_H_
#define TEPLUG_TOOLS_TEPLUG_DEVICE_GEMM_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "teplug/gemm.h"
#include "teplug/sdk/device_context.hpp"

namespace teplug::cli {

// The bytes a host tensor's elements span (its strides honoured; fp4 packs
// two elements per byte); 0 for an empty tensor or a dtype without a size.
size_t TensorBytes(const TeplugTensor& t);

// Runs `host_args` on `device` (opened as `ctx`). The status carries the
// GEMM's own error code and message (UNSUPPORTED when nothing serves the GEMM
// on the device), or names the copy or allocation that failed.
absl::Status RunGemmOnDevice(TeplugGemmV1* gemm, sdk::DeviceContext& ctx,
                             const TeplugDevice& device, const TeplugGemmArgs& host_args);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_DEVICE_GEMM_H_
