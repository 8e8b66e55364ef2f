// The native quantizer's CUDA kernels as plain C++ calls: what to quantize or
// dequantize, where (device pointers), on which stream. No CUDA types here,
// so the IQuantizer (host logic, tested without a GPU) reaches the kernels
// through the KernelLauncher seam below and tests substitute a recorder.
//
// Tensors are row-major contiguous [rows, cols] in device memory. Every
// function enqueues on `stream` (a cudaStream_t; NULL is the legacy default
// stream) and returns the cudaError_t of the enqueueing (0: success).
#ifndef TEPLUG_NATIVE_QUANTIZE_QUANTIZE_LAUNCH_H_
#define TEPLUG_NATIVE_QUANTIZE_QUANTIZE_LAUNCH_H_

#include <cstdint>

#include "native/quantize/element_formats.h"
#include "native/quantize/scale_math.h"

namespace teplug::native::quantize {

// The high-precision side: quantize's input, dequantize's output.
enum class HighPrecision : int { kFp32 = 0, kFp16 = 1, kBf16 = 2 };

// How scales are laid out (teplug's TeplugScalingMode, restated for the kernels).
enum class Scaling : int {
  kPerTensor = 0,  // one fp32 scale
  kMx = 1,         // mxfp8_1d32: e8m0 per 32 along the row (column-wise: down the column)
  kBlock1D = 2,    // block_1d128: fp32 per 1x128 along the row
  kBlock2D = 3,    // block_2d128: fp32 per 128x128 tile
};

struct QuantizeLaunch {
  const void* input = nullptr;  // [rows, cols] of input_type
  HighPrecision input_type = HighPrecision::kFp32;
  int64_t rows = 0;
  int64_t cols = 0;
  Fp8Kind kind = Fp8Kind::kE4M3;
  Scaling scaling = Scaling::kPerTensor;

  // Per-tensor: current scaling computes amax, then scale (written to
  // `scale` when given); delayed scaling reads *scale and casts in the same
  // pass that reduces amax.
  bool current_scaling = false;
  float* scale = nullptr;  // fp32[1]; required for delayed scaling
  // Current scaling and block modes: TransformerEngine's options.
  float amax_epsilon = 0.0f;
  bool force_pow2_scales = false;
  float input_max_finite = kFp32MaxFinite;  // the input dtype's largest finite value
  MxRule mx_rule = MxRule::kOcp;

  float* amax = nullptr;  // fp32[1], the raw input amax; NULL: not written

  // Outputs; NULL where not asked for. Scale grids per teplug/types.h:
  // fp32 (per-tensor, blocks) or e8m0 bytes (MX).
  uint8_t* rowwise_data = nullptr;  // [rows, cols]
  void* rowwise_scale_inv = nullptr;
  uint8_t* columnwise_data = nullptr;  // [cols, rows]; MX: [rows, cols]
  void* columnwise_scale_inv = nullptr;

  void* stream = nullptr;
};

struct DequantizeLaunch {
  const uint8_t* codes = nullptr;  // row-wise [rows, cols]
  Fp8Kind kind = Fp8Kind::kE4M3;
  Scaling scaling = Scaling::kPerTensor;
  const void* scale_inv = nullptr;  // the row-wise grid of `scaling`
  int64_t rows = 0;
  int64_t cols = 0;
  void* output = nullptr;  // [rows, cols] of output_type
  HighPrecision output_type = HighPrecision::kFp32;
  void* stream = nullptr;
};

// The kernels (quantize_launch.cu). Enqueue only: results are ready when the
// stream reaches them.
int LaunchQuantize(const QuantizeLaunch& launch);
int LaunchDequantize(const DequantizeLaunch& launch);

// The seam the IQuantizer calls: the real kernels, or a test's recorder.
class KernelLauncher {
 public:
  virtual ~KernelLauncher() = default;
  virtual int Quantize(const QuantizeLaunch& launch) = 0;
  virtual int Dequantize(const DequantizeLaunch& launch) = 0;
};

// The kernels above behind the seam (stateless, shared; in the kernels library).
KernelLauncher& RealKernelLauncher();

}  // namespace teplug::native::quantize

#endif  // TEPLUG_NATIVE_QUANTIZE_QUANTIZE_LAUNCH_H_
