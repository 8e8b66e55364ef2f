// `teplug run --device`: one GEMM of the main job, whose tensors live in host
// memory, run on a device opened through the kernel's IDevice. Every tensor
// the GEMM reads (A, B, C, bias, the quantization scales, D when
// accumulating) is copied into memory allocated on the device, the GEMM is
// called through the given IGemm (the kernel's dispatching object, which then
// selects a provider for the device) with device views of the same shapes,
// and what it writes (D, pre_gelu_out, D's amax and scale_inv) is copied
// back; the device memory is freed before returning.
#ifndef TEPLUG_TOOLS_TEPLUG_DEVICE_GEMM_H_
#define TEPLUG_TOOLS_TEPLUG_DEVICE_GEMM_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "teplug/gemm.h"
#include "teplug/sdk/device_context.hpp"

namespace teplug::cli {

// The bytes a host tensor's elements span (its strides honoured); 0 for a
// dtype without a whole-byte element size (fp4), which the caller refuses.
size_t TensorBytes(const TeplugTensor& t);

// Runs `host_args` on `device` (opened as `ctx`). The status carries the
// GEMM's own error code and message (UNSUPPORTED when nothing serves the GEMM
// on the device), or names the copy or allocation that failed.
absl::Status RunGemmOnDevice(TeplugGemmV1* gemm, sdk::DeviceContext& ctx,
                             const TeplugDevice& device, const TeplugGemmArgs& host_args);

// Where `teplug run --device` runs the job's GEMMs, shared by every rank.
struct DeviceGemmTarget {
  sdk::DeviceContext* ctx = nullptr;  // opened by the command, thread-safe
  TeplugDevice device{};
  // "<op label>: <why>" for each GEMM that ran on the host instead (nothing
  // served it on the device), once per label.
  std::vector<std::string> Notes() const;
  void Note(const std::string& label, const std::string& why);

 private:
  mutable absl::Mutex mu_;
  std::vector<std::string> notes_;
};

// An op invoker (OpCall::invoke's type) for a GEMM with host args: called on
// `dispatcher` it runs the GEMM on `target`'s device (RunGemmOnDevice); when
// nothing serves it there (UNSUPPORTED, UNAVAILABLE, NOT_FOUND) it notes why
// and calls `on_host` instead. Called on any other object (the reference
// provider's, for the comparison) it calls `on_host`.
using OpInvoker = std::function<TeplugError*(TeplugObject* object, const void* args)>;
OpInvoker OnDeviceWhenDispatched(DeviceGemmTarget* target, TeplugObject* dispatcher,
                                 std::string label, OpInvoker on_host);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_DEVICE_GEMM_H_
