// The checked arguments of the opencl quantizer's two ops: every tensor of a
// quantize or dequantize call resolved to (cl_mem, byte offset) and checked
// against quantizer.h's shapes and dtypes. UNSUPPORTED (with the tensor and
// value) for what the quantizer does not serve: fp4_e2m1, block modes,
// strided tensors, memory off the OpenCL device; INVALID_ARGUMENT naming the
// field for malformed calls. A tensor without data resolves with a NULL
// buffer (a `supports` query); the op refuses that when it runs.
#ifndef TEPLUG_PLUGINS_OPENCL_QUANTIZE_QUANTIZE_CALL_H_
#define TEPLUG_PLUGINS_OPENCL_QUANTIZE_QUANTIZE_CALL_H_

#include <cstdint>
#include <optional>

#include "plugins/opencl/provider/device_tensor.h"
#include "teplug/quantizer.h"

namespace teplug::opencl::quantize {

// Elements per MXFP8 block.
inline constexpr int64_t kMxBlock = 32;
// How errors name the quantize call's tensors.
inline constexpr const char* kIn = "TeplugQuantizeArgs.input";
inline constexpr const char* kOut = "TeplugQuantizeArgs.output";

inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// A resolved quantize call.
struct QuantizeCall {
  int kind = 0;  // the input's kClKind* (provider/float_codec_kernels.h)
  bool e5m2 = false;
  int32_t mode = 0;
  bool current = false;  // per_tensor with the current recipe
  // mxfp8_1d32: true for TEPLUG_MX_SCALE_TRANSFORMER_ENGINE, false for OCP.
  bool te_rule = false;
  int64_t rows = 0, cols = 0;
  provider::DeviceTensor input;
  std::optional<provider::DeviceTensor> rowwise, scale_inv, columnwise, columnwise_scale_inv,
      scale, amax;
};
QuantizeCall ResolveQuantize(const TeplugQuantizeArgs& args);

// A resolved dequantize call (the row-wise codes and their scales).
struct DequantizeCall {
  bool e5m2 = false, mx = false;
  int kind = 0;  // the output's kClKind*
  int64_t rows = 0, cols = 0;
  provider::DeviceTensor codes, scales, output;
};
DequantizeCall ResolveDequantize(const TeplugDequantizeArgs& args);

}  // namespace teplug::opencl::quantize

#endif  // TEPLUG_PLUGINS_OPENCL_QUANTIZE_QUANTIZE_CALL_H_
