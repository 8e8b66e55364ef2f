// The GEMM's two small CUDA kernels as plain C++ calls (no CUDA types), so the
// cuBLASLt IGemm (host logic, tested without a GPU) reaches them through the
// ScaleLayoutKernels seam and tests substitute a recorder:
//  - the MXFP8 scale swizzle: teplug's row-major e8m0 grid into cuBLASLt's
//    tiled layout (mx_scale_layout.h), padding set to 127 (a scale of 1);
//  - the 1x128 / 128x128 block scale copy: teplug's fp32 grid into the
//    layout cuBLASLt reads (block_scale_layout.h), padding set to 1.0;
//  - the reciprocal of an fp8 D's scale into its scale_inv, which cuBLASLt
//    does not write.
// Each call enqueues on `stream` (a cudaStream_t) and returns the cudaError_t
// of the enqueueing (0: success).
#ifndef TEPLUG_NATIVE_GEMM_SCALE_LAYOUT_LAUNCH_H_
#define TEPLUG_NATIVE_GEMM_SCALE_LAYOUT_LAUNCH_H_

#include <cstdint>

namespace teplug::native {

struct MxScaleSwizzle {
  const uint8_t* source = nullptr;  // e8m0 [rows, kblocks], rows source_row_stride apart
  int64_t rows = 0;
  int64_t kblocks = 0;
  int64_t source_row_stride = 0;
  uint8_t* tiled = nullptr;  // MxTiledBytes(rows, kblocks) bytes
  void* stream = nullptr;
};

struct BlockScaleCopy {
  const float* source = nullptr;  // fp32 [source_rows, source_cols], rows source_row_stride apart
  int64_t source_rows = 0;
  int64_t source_cols = 0;
  int64_t source_row_stride = 0;
  bool transpose = false;
  float* destination = nullptr;  // BlockScaleElements(...) floats
  void* stream = nullptr;
};

struct ScaleReciprocal {
  const float* scale = nullptr;  // fp32[1]
  float* scale_inv = nullptr;    // fp32[1] receives 1 / *scale
  void* stream = nullptr;
};

// The seam the IGemm calls: the real kernels, or a test's recorder.
class ScaleLayoutKernels {
 public:
  virtual ~ScaleLayoutKernels() = default;
  virtual int SwizzleMxScales(const MxScaleSwizzle& launch) = 0;
  virtual int CopyBlockScales(const BlockScaleCopy& launch) = 0;
  virtual int WriteScaleReciprocal(const ScaleReciprocal& launch) = 0;
};

// The kernels of scale_layout_kernels.cu behind the seam (stateless, shared).
ScaleLayoutKernels& RealScaleLayoutKernels();

}  // namespace teplug::native

#endif  // TEPLUG_NATIVE_GEMM_SCALE_LAYOUT_LAUNCH_H_
