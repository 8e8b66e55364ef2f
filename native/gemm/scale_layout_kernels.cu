#include "native/device/kernel_launch.cuh"
#include "native/gemm/block_scale_layout.h"
#include "native/gemm/mx_scale_layout.h"
#include "native/gemm/scale_layout_launch.h"

namespace teplug::native {
namespace {

constexpr uint8_t kE8m0One = 127;  // 2^(127-127): what padding holds

// One thread per byte of the tiled copy (so the writes are coalesced): the
// byte's (row, kblock) is MxTiledOffset inverted.
__global__ void SwizzleMxScalesKernel(const uint8_t* source, int64_t rows, int64_t kblocks,
                                      int64_t source_row_stride, uint8_t* tiled) {
  const int64_t total = MxTiledBytes(rows, kblocks);
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t row = 0, kblock = 0;
    MxTiledPosition(i, kblocks, &row, &kblock);
    tiled[i] = row < rows && kblock < kblocks ? source[row * source_row_stride + kblock] : kE8m0One;
  }
}

// One thread per destination element.
__global__ void CopyBlockScalesKernel(const float* source, int64_t rows, int64_t cols, int64_t row_stride,
                                      bool transpose, float* destination) {
  const int64_t total = BlockScaleElements(rows, cols, transpose);
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t row = 0, col = 0;
    destination[i] = BlockScaleSource(i, rows, cols, transpose, &row, &col) ? source[row * row_stride + col] : 1.0f;
  }
}

// Blocks of kThreads covering `total` elements, at most 65535 (the kernels stride).
constexpr int kThreads = 256;
unsigned BlocksFor(int64_t total) {
  const int64_t wanted = (total + kThreads - 1) / kThreads;
  return static_cast<unsigned>(wanted < 65535 ? wanted : 65535);
}

__global__ void ScaleReciprocalKernel(const float* scale, float* scale_inv) {
  *scale_inv = 1.0f / *scale;
}

class RealScaleKernels final : public ScaleLayoutKernels {
 public:
  int SwizzleMxScales(const MxScaleSwizzle& l) override {
    const int64_t total = MxTiledBytes(l.rows, l.kblocks);
    if (total == 0) return static_cast<int>(cudaSuccess);
    return Launch(SwizzleMxScalesKernel, BlocksFor(total), kThreads,
                  static_cast<cudaStream_t>(l.stream), l.source, l.rows, l.kblocks,
                  l.source_row_stride, l.tiled);
  }
  int CopyBlockScales(const BlockScaleCopy& l) override {
    const int64_t total = BlockScaleElements(l.source_rows, l.source_cols, l.transpose);
    if (total == 0) return static_cast<int>(cudaSuccess);
    return Launch(CopyBlockScalesKernel, BlocksFor(total), kThreads,
                  static_cast<cudaStream_t>(l.stream), l.source, l.source_rows, l.source_cols,
                  l.source_row_stride, l.transpose, l.destination);
  }
  int WriteScaleReciprocal(const ScaleReciprocal& l) override {
    return Launch(ScaleReciprocalKernel, 1, 1, static_cast<cudaStream_t>(l.stream), l.scale,
                  l.scale_inv);
  }
};

}  // namespace

ScaleLayoutKernels& RealScaleLayoutKernels() {
  static RealScaleKernels kernels;
  return kernels;
}

}  // namespace teplug::native
