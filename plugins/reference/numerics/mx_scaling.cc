#include "plugins/reference/numerics/mx_scaling.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_format.h"
#include "plugins/reference/numerics/scale_from_amax.h"

namespace teplug::reference {
namespace {

size_t CeilDiv(size_t a, size_t b) { return (a + b - 1) / b; }

// MX v1.0 6.3: floor(log2(max|V|)) - emax_elem, clamped to e8m0; non-finite
// blocks get the NaN scale.
uint8_t SpecBlockScale(const float* block, size_t count, size_t stride, Fp8Format format) {
  float amax = 0.0f;
  for (size_t i = 0; i < count; ++i) {
    const float v = block[i * stride];
    if (!std::isfinite(v)) return kE8M0Nan;
    amax = std::max(amax, std::fabs(v));
  }
  if (amax == 0.0f) return EncodeE8M0(kE8M0MinExponent);
  // ilogb is floor(log2) for every finite non-zero float, subnormals included.
  const int shared_exp = std::ilogb(amax) - Fp8MaxExponent(format);
  return EncodeE8M0(std::max(shared_exp, kE8M0MinExponent));
}

// TE's float_to_e8m0 (software path): fp32 exponent field, rounded up when
// any mantissa bit is set, saturating at 0xFE.
uint8_t TransformerEngineFloatToE8M0(float value) {
  if (std::isnan(value)) return 0xFF;
  if (std::isinf(value)) return 0xFE;
  if (value == 0.0f) return 0x00;
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  uint32_t exponent = (bits >> 23) & 0xFF;
  const uint32_t mantissa = bits & 0x7FFFFF;
  if (mantissa > 0 && exponent != 0xFE && !(exponent == 0 && mantissa <= 0x400000)) {
    ++exponent;
  }
  return static_cast<uint8_t>(exponent);
}

uint8_t TransformerEngineBlockScale(const float* block, size_t count, size_t stride,
                                    Fp8Format format) {
  const float amax = AbsMaxIgnoringNan(block, count, stride);
  const float max_norm_rcp = 1.0f / Fp8MaxNormal(format);
  return TransformerEngineFloatToE8M0(amax * max_norm_rcp);
}

// Encodes one block into codes[i * stride] given its scale code.
void EncodeBlock(const float* block, size_t count, size_t stride, Fp8Format format,
                 MxScaleRule rule, uint8_t scale, uint8_t* codes) {
  for (size_t i = 0; i < count; ++i) {
    const float v = block[i * stride];
    uint8_t code;
    if (rule == MxScaleRule::kOcpSpec) {
      if (scale == kE8M0Nan) {
        code = EncodeFp8(format, std::numeric_limits<double>::quiet_NaN(), true);
        if (std::signbit(v)) code |= 0x80;
      } else {
        const double x = std::ldexp(static_cast<double>(v), kE8M0Bias - scale);  // V / X, exact
        code = EncodeFp8(format, x, /*saturate=*/true);
      }
    } else {
      const float reciprocal = scale == 0 ? 1.0f : std::ldexp(1.0f, kE8M0Bias - scale);
      code = EncodeFp8(format, v * reciprocal, /*saturate=*/true);  // fp32 product
    }
    codes[i * stride] = code;
  }
}

}  // namespace

uint8_t MxBlockScale(const float* block, size_t count, size_t stride, Fp8Format format,
                     MxScaleRule rule) {
  return rule == MxScaleRule::kOcpSpec ? SpecBlockScale(block, count, stride, format)
                                       : TransformerEngineBlockScale(block, count, stride, format);
}

absl::StatusOr<MxFp8> QuantizeMxfp8(const float* x, size_t rows, size_t cols, Fp8Format format,
                                    MxScaleRule rule, bool with_columnwise) {
  if (x == nullptr && rows * cols != 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("QuantizeMxfp8: input pointer is null for a [%d, %d] tensor", rows, cols));
  }
  MxFp8 out;
  out.format = format;
  out.rule = rule;
  out.rows = rows;
  out.cols = cols;
  out.data.resize(rows * cols);
  const size_t row_blocks = CeilDiv(cols, kMxBlockSize);
  out.scales.resize(rows * row_blocks);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t b = 0; b < row_blocks; ++b) {
      const size_t start = r * cols + b * kMxBlockSize;
      const size_t count = std::min(kMxBlockSize, cols - b * kMxBlockSize);
      const uint8_t scale = MxBlockScale(x + start, count, 1, format, rule);
      out.scales[r * row_blocks + b] = scale;
      EncodeBlock(x + start, count, 1, format, rule, scale, out.data.data() + start);
    }
  }
  if (with_columnwise) {
    const size_t col_blocks = CeilDiv(rows, kMxBlockSize);
    out.columnwise_data.resize(rows * cols);
    out.columnwise_scales.resize(col_blocks * cols);
    for (size_t b = 0; b < col_blocks; ++b) {
      const size_t count = std::min(kMxBlockSize, rows - b * kMxBlockSize);
      for (size_t c = 0; c < cols; ++c) {
        const size_t start = b * kMxBlockSize * cols + c;
        const uint8_t scale = MxBlockScale(x + start, count, cols, format, rule);
        out.columnwise_scales[b * cols + c] = scale;
        EncodeBlock(x + start, count, cols, format, rule, scale,
                    out.columnwise_data.data() + start);
      }
    }
  }
  return out;
}

absl::StatusOr<std::vector<float>> DequantizeMxfp8(const MxFp8& tensor, bool columnwise) {
  const size_t n = tensor.rows * tensor.cols;
  const std::vector<uint8_t>& data = columnwise ? tensor.columnwise_data : tensor.data;
  const std::vector<uint8_t>& scales = columnwise ? tensor.columnwise_scales : tensor.scales;
  const size_t expected_scales = columnwise
                                     ? CeilDiv(tensor.rows, kMxBlockSize) * tensor.cols
                                     : tensor.rows * CeilDiv(tensor.cols, kMxBlockSize);
  if (data.size() != n || scales.size() != expected_scales) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "DequantizeMxfp8: %s encoding of a [%d, %d] tensor needs %d codes and %d scales, has %d "
        "and %d",
        columnwise ? "column-wise" : "row-wise", tensor.rows, tensor.cols, n, expected_scales,
        data.size(), scales.size()));
  }
  std::vector<float> out(n);
  for (size_t r = 0; r < tensor.rows; ++r) {
    for (size_t c = 0; c < tensor.cols; ++c) {
      const uint8_t scale =
          columnwise ? scales[(r / kMxBlockSize) * tensor.cols + c]
                     : scales[r * CeilDiv(tensor.cols, kMxBlockSize) + c / kMxBlockSize];
      const size_t i = r * tensor.cols + c;
      const double value = static_cast<double>(DecodeFp8(tensor.format, data[i])) *
                           static_cast<double>(DecodeE8M0(scale));
      out[i] = static_cast<float>(value);
    }
  }
  return out;
}

}  // namespace teplug::reference
