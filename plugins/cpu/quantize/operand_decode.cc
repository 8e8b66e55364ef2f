#include "plugins/cpu/quantize/operand_decode.h"

#include <algorithm>

#include "plugins/cpu/quantize/parallel_rows.h"

namespace teplug::cpu::quantize {
namespace {

// The columns [begin, end) of one row, each value table[code] * scale.
template <bool kBf16>
void DecodeRun(const uint8_t* codes, const float* table, float scale, int64_t begin, int64_t end,
               void* out) {
  if constexpr (kBf16) {
    uint16_t* o = static_cast<uint16_t*>(out);
    for (int64_t c = begin; c < end; ++c) o[c] = FloatToBf16(table[codes[c]] * scale);
  } else {
    float* o = static_cast<float*>(out);
    for (int64_t c = begin; c < end; ++c) o[c] = table[codes[c]] * scale;
  }
}

template <bool kBf16>
void DecodeRows(const uint8_t* codes, int64_t rows, int64_t cols, const float* table,
                const OperandScales& scales, void* out, int threads) {
  const size_t element = kBf16 ? 2 : 4;
  const int64_t block = scales.mode == OperandScales::Mode::kMx ? 32 : 128;
  const int64_t grid_cols = (cols + block - 1) / block;
  ParallelFor(rows, threads, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const uint8_t* row = codes + r * cols;
      void* row_out = static_cast<char*>(out) + static_cast<size_t>(r * cols) * element;
      if (scales.mode == OperandScales::Mode::kPerTensor) {
        DecodeRun<kBf16>(row, table, 1.0f, 0, cols, row_out);
        continue;
      }
      for (int64_t j = 0; j < grid_cols; ++j) {
        float scale;
        if (scales.mode == OperandScales::Mode::kMx) {
          scale = E8m0ToFloat(static_cast<const uint8_t*>(scales.values)[r * grid_cols + j]);
        } else {
          const int64_t grid_row = scales.mode == OperandScales::Mode::kBlock128x128 ? r / 128 : r;
          scale = static_cast<const float*>(scales.values)[grid_row * grid_cols + j];
        }
        DecodeRun<kBf16>(row, table, scale, j * block, std::min(cols, (j + 1) * block), row_out);
      }
    }
  });
}

}  // namespace

void DecodeOperand(const uint8_t* codes, int64_t rows, int64_t cols, Fp8Kind kind,
                   const OperandScales& scales, bool bf16, void* out, int threads) {
  float table[256];
  for (int c = 0; c < 256; ++c) table[c] = Fp8ToFloat(kind, static_cast<uint8_t>(c));
  if (bf16) {
    DecodeRows<true>(codes, rows, cols, table, scales, out, threads);
  } else {
    DecodeRows<false>(codes, rows, cols, table, scales, out, threads);
  }
}

}  // namespace teplug::cpu::quantize
