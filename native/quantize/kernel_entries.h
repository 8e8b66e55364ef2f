// The per-mode kernel launchers behind LaunchQuantize / LaunchDequantize
// (quantize_launch.cu dispatches to them). Each returns a cudaError_t value.
#ifndef TEPLUG_NATIVE_QUANTIZE_KERNEL_ENTRIES_H_
#define TEPLUG_NATIVE_QUANTIZE_KERNEL_ENTRIES_H_

#include "native/quantize/quantize_launch.h"

namespace teplug::native::quantize {

// per_tensor_kernels.cu: delayed (one pass: cast + amax) and current
// (amax pass, scale, cast pass) scaling; the column-wise copy is written by a
// tiled kernel that reads the input once for both copies.
int LaunchPerTensorQuantize(const QuantizeLaunch& launch);
// mx_kernels.cu: MXFP8 row-wise and column-wise.
int LaunchMxQuantize(const QuantizeLaunch& launch);
// block_kernels.cu: 1x128 (row-wise and column-wise) and 128x128 blocks.
int LaunchBlockQuantize(const QuantizeLaunch& launch);
// dequantize_kernels.cu.
int LaunchDequantizeKernels(const DequantizeLaunch& launch);

}  // namespace teplug::native::quantize

#endif  // TEPLUG_NATIVE_QUANTIZE_KERNEL_ENTRIES_H_
