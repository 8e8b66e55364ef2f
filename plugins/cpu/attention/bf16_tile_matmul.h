// The tile products of bf16 attention on oneDNN's bf16 matmul (AVX512-BF16
// or AMX kernels, fp32 accumulation): the compiler does not emit those
// instructions from plain loops, so the fp32 loops of tile_products.h run
// bf16 operands at the fp32 rate. Each product runs on the calling thread
// alone (a primitive created for one OpenMP thread), so its result depends
// only on its operands, not on how many threads the attention uses.
#ifndef TEPLUG_PLUGINS_CPU_ATTENTION_BF16_TILE_MATMUL_H_
#define TEPLUG_PLUGINS_CPU_ATTENTION_BF16_TILE_MATMUL_H_

#include <cstdint>

namespace teplug::cpu::attention {

// A bf16 matrix of `rows` x `cols`: element (i, j) is the bf16 bits at
// data[i * row_stride + j * col_stride] (so a transposed view is the same
// storage with the strides swapped).
struct Bf16Matrix {
  const uint16_t* data = nullptr;
  int64_t rows = 0, cols = 0, row_stride = 0, col_stride = 1;
};

// c[i * c_stride + j] = (accumulate ? c[i * c_stride + j] : 0) +
//   sum_k a(i, k) * b(k, j)  for i < a.rows, j < b.cols, k < a.cols (= b.rows),
// summed in fp32 by a oneDNN matmul primitive. Primitives are created once per
// shape, strides and `accumulate` and kept in a process-wide cache of at most
// 64 (least recently used evicted). A oneDNN failure throws
// teplug::sdk::Internal naming the shape and oneDNN's message.
void Bf16TileMatmul(const Bf16Matrix& a, const Bf16Matrix& b, float* c, int64_t c_stride,
                    bool accumulate);

// Creates (or finds) the primitive Bf16TileMatmul uses for operands of these
// shapes and strides (their data unused) on the calling thread. The attention
// prepares its products before starting its worker threads, so the workers
// only find primitives, and oneDNN's process-wide state (set up on first use
// by the uninstrumented library) exists before they do. Errors as
// Bf16TileMatmul.
void PrepareBf16TileMatmul(const Bf16Matrix& a, const Bf16Matrix& b, int64_t c_stride,
                           bool accumulate);

}  // namespace teplug::cpu::attention

#endif  // TEPLUG_PLUGINS_CPU_ATTENTION_BF16_TILE_MATMUL_H_
