// Test-only: a complete, valid quantize (and dequantize) call on cuda:0 whose
// tensors point at host buffers standing in for device memory, so a test
// can break one field and see the refusal. The host tests never run the
// kernels on these pointers; the GPU tests replace them with device memory.
#ifndef TEPLUG_NATIVE_QUANTIZE_TESTING_QUANTIZE_CALL_H_
#define TEPLUG_NATIVE_QUANTIZE_TESTING_QUANTIZE_CALL_H_

#include <cstdint>
#include <vector>

#include "teplug/quantizer.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native::quantize::testing {

// A row-major contiguous tensor view of `shape` on `device`.
inline TeplugTensor TensorOf(void* data, int32_t dtype, std::vector<int64_t> shape,
                             const TeplugDevice* device) {
  TeplugTensor t = sdk::Versioned<TeplugTensor>();
  t.data = data;
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(shape.size());
  for (size_t k = 0; k < shape.size(); ++k) t.shape[k] = shape[k];
  t.device = device;
  return t;
}

inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Quantize [rows, cols] fp32 into fp8 e4m3 in `mode`, row-wise and
// column-wise, with amax (and for per-tensor delayed scaling the scale).
// Not copyable: the args point into the object.
struct QuantizeCall {
  QuantizeCall(int32_t mode, int64_t rows, int64_t cols) : rows(rows), cols(cols) {
    device = sdk::Versioned<TeplugDevice>();
    device.kind = TEPLUG_DEVICE_CUDA;
    device.ordinal = 0;
    input_buffer.assign(static_cast<size_t>(rows * cols), 1.0f);
    codes.assign(static_cast<size_t>(rows * cols), 0);
    columnwise_codes.assign(static_cast<size_t>(rows * cols), 0);
    scale_inv_buffer.assign(static_cast<size_t>(rows * cols + 4), 0.0f);
    columnwise_scale_inv_buffer.assign(static_cast<size_t>(rows * cols + 4), 0.0f);
    const bool mx = mode == TEPLUG_SCALING_MXFP8_1D32;
    const int32_t scale_dtype = mx ? TEPLUG_DTYPE_E8M0 : TEPLUG_DTYPE_FP32;
    std::vector<int64_t> grid = {1}, columnwise_grid = {1};
    switch (mode) {
      case TEPLUG_SCALING_MXFP8_1D32:
        grid = {rows, CeilDiv(cols, 32)};
        columnwise_grid = {CeilDiv(rows, 32), cols};
        break;
      case TEPLUG_SCALING_BLOCK_1D128:
        grid = {rows, CeilDiv(cols, 128)};
        columnwise_grid = {cols, CeilDiv(rows, 128)};
        break;
      case TEPLUG_SCALING_BLOCK_2D128:
        grid = {CeilDiv(rows, 128), CeilDiv(cols, 128)};
        columnwise_grid = {CeilDiv(cols, 128), CeilDiv(rows, 128)};
        break;
      default:
        break;
    }
    input = TensorOf(input_buffer.data(), TEPLUG_DTYPE_FP32, {rows, cols}, &device);
    output = TensorOf(codes.data(), TEPLUG_DTYPE_FP8_E4M3, {rows, cols}, &device);
    scale_inv = TensorOf(scale_inv_buffer.data(), scale_dtype, grid, &device);
    columnwise_data =
        TensorOf(columnwise_codes.data(), TEPLUG_DTYPE_FP8_E4M3,
                 mx ? std::vector<int64_t>{rows, cols} : std::vector<int64_t>{cols, rows}, &device);
    columnwise_scale_inv =
        TensorOf(columnwise_scale_inv_buffer.data(), scale_dtype, columnwise_grid, &device);
    scale = TensorOf(&scale_value, TEPLUG_DTYPE_FP32, {1}, &device);
    amax = TensorOf(&amax_value, TEPLUG_DTYPE_FP32, {1}, &device);
    quant = sdk::Versioned<TeplugQuantization>();
    quant.mode = mode;
    quant.scale = &scale;
    quant.scale_inv = &scale_inv;
    quant.amax = &amax;
    quant.columnwise_data = &columnwise_data;
    quant.columnwise_scale_inv = &columnwise_scale_inv;
    output.quant = &quant;
    args = sdk::Versioned<TeplugQuantizeArgs>();
    args.input = &input;
    args.output = &output;
    args.recipe = TEPLUG_RECIPE_DELAYED;
    args.rowwise = 1;
    args.columnwise = 1;
  }
  QuantizeCall(const QuantizeCall&) = delete;
  QuantizeCall& operator=(const QuantizeCall&) = delete;

  // Dequantize of this call's row-wise output into `dequantized` (fp32).
  TeplugDequantizeArgs DequantizeArgs() {
    dequantized_buffer.assign(static_cast<size_t>(rows * cols), 0.0f);
    dequantized = TensorOf(dequantized_buffer.data(), TEPLUG_DTYPE_FP32, {rows, cols}, &device);
    TeplugDequantizeArgs d = sdk::Versioned<TeplugDequantizeArgs>();
    d.input = &output;
    d.output = &dequantized;
    return d;
  }

  int64_t rows, cols;
  TeplugDevice device;
  std::vector<float> input_buffer;
  std::vector<uint8_t> codes, columnwise_codes;
  std::vector<float> scale_inv_buffer, columnwise_scale_inv_buffer, dequantized_buffer;
  float scale_value = 2.0f;
  float amax_value = 0.0f;
  TeplugTensor input, output, scale_inv, columnwise_data, columnwise_scale_inv, scale, amax,
      dequantized;
  TeplugQuantization quant;
  TeplugQuantizeArgs args;
};

}  // namespace teplug::native::quantize::testing

#endif  // TEPLUG_NATIVE_QUANTIZE_TESTING_QUANTIZE_CALL_H_
