#include "plugins/reference/provider/tensor_io.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "plugins/reference/numerics/float_formats.h"
#include "teplug/sdk/names.hpp"

namespace teplug::reference::provider {
namespace {

// Loads element `offset` (in elements) of a buffer of `dtype` as a double.
// Quantized dtypes return the decoded code, unscaled.
double LoadElement(const void* data, int32_t dtype, int64_t offset) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  switch (dtype) {
    case TEPLUG_DTYPE_FP32: {
      float v;
      std::memcpy(&v, bytes + offset * 4, 4);
      return v;
    }
    case TEPLUG_DTYPE_FP16: {
      uint16_t v;
      std::memcpy(&v, bytes + offset * 2, 2);
      return DecodeFp16(v);
    }
    case TEPLUG_DTYPE_BF16: {
      uint16_t v;
      std::memcpy(&v, bytes + offset * 2, 2);
      return DecodeBf16(v);
    }
    case TEPLUG_DTYPE_FP8_E4M3: return DecodeFp8E4M3(bytes[offset]);
    case TEPLUG_DTYPE_FP8_E5M2: return DecodeFp8E5M2(bytes[offset]);
    case TEPLUG_DTYPE_E8M0: return DecodeE8M0(bytes[offset]);
    case TEPLUG_DTYPE_FP4_E2M1: {
      const uint8_t byte = bytes[offset / 2];
      return DecodeFp4E2M1(offset % 2 == 0 ? (byte & 0xF) : (byte >> 4));
    }
    case TEPLUG_DTYPE_INT8: return static_cast<int8_t>(bytes[offset]);
    case TEPLUG_DTYPE_UINT8: return bytes[offset];
    case TEPLUG_DTYPE_INT32: {
      int32_t v;
      std::memcpy(&v, bytes + offset * 4, 4);
      return v;
    }
    case TEPLUG_DTYPE_INT64: {
      int64_t v;
      std::memcpy(&v, bytes + offset * 8, 8);
      return static_cast<double>(v);
    }
    default: return std::nan("");
  }
}

// Per-block dequantization multipliers: element (r, c) of the [rows, cols]
// view uses values[(r / block_rows) * grid_cols + c / block_cols].
struct ScaleGrid {
  int64_t block_rows = 1;
  int64_t block_cols = 1;
  int64_t grid_cols = 1;
  std::vector<double> values;
};

// Reads quant->scale_inv of `t` as the grid its scaling mode defines.
absl::StatusOr<ScaleGrid> ReadScaleGrid(const TensorView& t) {
  if (t.quant == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        t.name, ".quant is NULL: ", sdk::DTypeName(t.dtype),
        " tensors need quantization metadata with scale_inv to give their real values"));
  }
  absl::StatusOr<TeplugQuantization> q = ReadQuantization(t.quant, t.name + ".quant");
  if (!q.ok()) return q.status();
  const std::string scale_name = t.name + ".quant.scale_inv";
  if (q->scale_inv == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(scale_name, " is NULL: ",
                                                   sdk::DTypeName(t.dtype),
                                                   " tensors are dequantized with it"));
  }
  absl::StatusOr<TensorView> s = ViewTensor(q->scale_inv, scale_name);
  if (!s.ok()) return s.status();
  const int64_t rows = t.rows(), cols = t.cols();
  const std::optional<ScaleGridRule> rule = ScaleGridRuleOf(q->mode, rows, cols);
  if (!rule.has_value()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.quant.mode is %s (%d); a %s tensor needs per_tensor, mxfp8_1d32, block_1d128 or "
        "block_2d128",
        t.name, sdk::ScalingName(q->mode), q->mode, sdk::DTypeName(t.dtype)));
  }
  const bool per_tensor = q->mode == TEPLUG_SCALING_PER_TENSOR;
  if (per_tensor && s->element_count != 1) {
    return absl::InvalidArgumentError(absl::StrCat(scale_name, ": shape ", ShapeString(s->shape),
                                                   " but per_tensor scaling needs one element"));
  }
  if (!per_tensor) {
    absl::Status shape_ok = RequireShape(
        *s, rule->shape,
        absl::StrCat(sdk::ScalingName(q->mode), " scaling of ", t.name, " [", rows, ", ", cols,
                     "] needs"));
    if (!shape_ok.ok()) return shape_ok;
  }
  absl::Status dtype_ok = RequireDType(*s, TEPLUG_DTYPE_BIT(rule->dtype),
                                       absl::StrCat(sdk::ScalingName(q->mode), " scales must be"));
  if (!dtype_ok.ok()) return dtype_ok;
  ScaleGrid grid;
  grid.block_rows = rule->block_rows;
  grid.block_cols = rule->block_cols;
  grid.grid_cols = per_tensor ? 1 : rule->shape[1];
  grid.values.resize(static_cast<size_t>(s->element_count));
  for (int64_t i = 0; i < s->element_count; ++i) {
    grid.values[i] = LoadElement(s->data, s->dtype, s->OffsetOf(i));
  }
  return grid;
}

template <class T>
void StoreBytes(void* data, int64_t offset, T value) {
  std::memcpy(static_cast<unsigned char*>(data) + offset * sizeof(T), &value, sizeof(T));
}

absl::Status RequireCount(const TensorView& t, size_t count) {
  if (static_cast<int64_t>(count) == t.element_count) return absl::OkStatus();
  return absl::InternalError(absl::StrFormat("%s: %d values computed for %d elements (shape %s)",
                                             t.name, count, t.element_count, ShapeString(t.shape)));
}

// max |v| with NaN skipped (TE's fmaxf reduction), as fp32.
float AbsMaxIgnoringNan(const std::vector<double>& values) {
  double m = 0.0;
  for (double v : values) {
    if (!std::isnan(v) && std::fabs(v) > m) m = std::fabs(v);
  }
  return static_cast<float>(m);
}

}  // namespace

std::vector<int64_t> BlockGridShape(int64_t rows, int64_t cols, int64_t block_rows,
                                    int64_t block_cols) {
  return {(rows + block_rows - 1) / block_rows, (cols + block_cols - 1) / block_cols};
}

std::optional<ScaleGridRule> ScaleGridRuleOf(int32_t mode, int64_t rows, int64_t cols) {
  ScaleGridRule rule;
  switch (mode) {
    case TEPLUG_SCALING_PER_TENSOR:
      rule.block_rows = std::max<int64_t>(rows, 1);
      rule.block_cols = std::max<int64_t>(cols, 1);
      rule.shape = {1};
      return rule;
    case TEPLUG_SCALING_MXFP8_1D32:
      rule.block_cols = 32;
      rule.dtype = TEPLUG_DTYPE_E8M0;
      break;
    case TEPLUG_SCALING_BLOCK_1D128:
      rule.block_cols = 128;
      break;
    case TEPLUG_SCALING_BLOCK_2D128:
      rule.block_rows = 128;
      rule.block_cols = 128;
      break;
    default: return std::nullopt;
  }
  rule.shape = BlockGridShape(rows, cols, rule.block_rows, rule.block_cols);
  return rule;
}

absl::StatusOr<std::vector<double>> ReadValues(const TensorView& t) {
  absl::Status dtype_ok = RequireDType(t, kReadableDTypes, "the reference reads only");
  if (!dtype_ok.ok()) return dtype_ok;
  std::vector<double> out(static_cast<size_t>(t.element_count));
  if ((TEPLUG_DTYPE_BIT(t.dtype) & kScaledDTypes) == 0) {
    for (int64_t i = 0; i < t.element_count; ++i) out[i] = LoadElement(t.data, t.dtype, t.OffsetOf(i));
    return out;
  }
  absl::StatusOr<ScaleGrid> grid = ReadScaleGrid(t);
  if (!grid.ok()) return grid.status();
  const int64_t cols = t.cols();
  for (int64_t i = 0; i < t.element_count; ++i) {
    const int64_t r = i / cols, c = i % cols;
    const double scale =
        grid->values[(r / grid->block_rows) * grid->grid_cols + c / grid->block_cols];
    out[i] = LoadElement(t.data, t.dtype, t.OffsetOf(i)) * scale;
  }
  return out;
}

absl::StatusOr<std::vector<int64_t>> ReadIntegers(const TensorView& t) {
  absl::Status dtype_ok = RequireDType(t, kIntegerDTypes, "an integer tensor is needed");
  if (!dtype_ok.ok()) return dtype_ok;
  std::vector<int64_t> out(static_cast<size_t>(t.element_count));
  const auto* bytes = static_cast<const unsigned char*>(t.data);
  for (int64_t i = 0; i < t.element_count; ++i) {
    const int64_t o = t.OffsetOf(i);
    switch (t.dtype) {
      case TEPLUG_DTYPE_INT8: out[i] = static_cast<int8_t>(bytes[o]); break;
      case TEPLUG_DTYPE_UINT8: out[i] = bytes[o]; break;
      case TEPLUG_DTYPE_INT32: {
        int32_t v;
        std::memcpy(&v, bytes + o * 4, 4);
        out[i] = v;
        break;
      }
      default: std::memcpy(&out[i], bytes + o * 8, 8); break;
    }
  }
  return out;
}

absl::Status WriteScalar(const TensorView& t, float value) {
  if (t.dtype != TEPLUG_DTYPE_FP32 || t.element_count != 1) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: dtype %s shape %s, but it must be fp32 with one element", t.name,
        sdk::DTypeName(t.dtype), ShapeString(t.shape)));
  }
  StoreBytes<float>(t.data, 0, value);
  return absl::OkStatus();
}

absl::Status WriteValues(const TensorView& t, const std::vector<double>& values) {
  absl::Status dtype_ok = RequireDType(t, kWritableDTypes, "the reference writes only");
  if (!dtype_ok.ok()) return dtype_ok;
  if (absl::Status s = RequireCount(t, values.size()); !s.ok()) return s;
  TeplugQuantization q{};
  if (t.quant != nullptr) {
    absl::StatusOr<TeplugQuantization> read = ReadQuantization(t.quant, t.name + ".quant");
    if (!read.ok()) return read.status();
    q = *read;
  }
  double scale = 1.0;
  if ((TEPLUG_DTYPE_BIT(t.dtype) & kFp8DTypes) != 0) {
    if (t.quant == nullptr || q.mode != TEPLUG_SCALING_PER_TENSOR) {
      return absl::UnimplementedError(absl::StrFormat(
          "%s.quant: an %s output needs per_tensor quantization with a scale (mode %s given); "
          "the reference writes no block-scaled outputs outside IQuantizer",
          t.name, sdk::DTypeName(t.dtype),
          t.quant == nullptr ? "none, quant is NULL" : sdk::ScalingName(q.mode)));
    }
    absl::StatusOr<TensorView> s = ViewTensor(q.scale, t.name + ".quant.scale");
    if (!s.ok()) return s.status();
    if (s->dtype != TEPLUG_DTYPE_FP32 || s->element_count != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(s->name, ": must be fp32 with one element, got ", sdk::DTypeName(s->dtype),
                       " ", ShapeString(s->shape)));
    }
    const float scale_f = static_cast<float>(LoadElement(s->data, s->dtype, 0));
    if (!std::isfinite(scale_f) || scale_f <= 0.0f) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s is %g; an fp8 output scale must be finite and > 0", s->name, scale_f));
    }
    scale = scale_f;
    if (q.scale_inv != nullptr) {
      absl::StatusOr<TensorView> inv = ViewTensor(q.scale_inv, t.name + ".quant.scale_inv");
      if (!inv.ok()) return inv.status();
      if (absl::Status w = WriteScalar(*inv, 1.0f / scale_f); !w.ok()) return w;
    }
  }
  if (t.quant != nullptr && q.amax != nullptr) {
    absl::StatusOr<TensorView> amax = ViewTensor(q.amax, t.name + ".quant.amax");
    if (!amax.ok()) return amax.status();
    if (absl::Status w = WriteScalar(*amax, AbsMaxIgnoringNan(values)); !w.ok()) return w;
  }
  for (int64_t i = 0; i < t.element_count; ++i) {
    const int64_t o = t.OffsetOf(i);
    const double v = values[i];
    switch (t.dtype) {
      case TEPLUG_DTYPE_FP32: StoreBytes<float>(t.data, o, static_cast<float>(v)); break;
      case TEPLUG_DTYPE_FP16: StoreBytes<uint16_t>(t.data, o, EncodeFp16(v)); break;
      case TEPLUG_DTYPE_BF16: StoreBytes<uint16_t>(t.data, o, EncodeBf16(v)); break;
      case TEPLUG_DTYPE_FP8_E4M3:
        StoreBytes<uint8_t>(t.data, o, EncodeFp8E4M3(v * scale, /*saturate=*/true));
        break;
      default:  // fp8_e5m2: the only other writable dtype
        StoreBytes<uint8_t>(t.data, o, EncodeFp8E5M2(v * scale, /*saturate=*/true));
        break;
    }
  }
  return absl::OkStatus();
}

absl::Status WriteCodes(const TensorView& t, const std::vector<uint8_t>& codes) {
  if (sdk::DTypeBits(t.dtype) != 8) {
    return absl::InvalidArgumentError(absl::StrCat(t.name, ": dtype ", sdk::DTypeName(t.dtype),
                                                   " but 8-bit codes are written into it"));
  }
  if (absl::Status s = RequireCount(t, codes.size()); !s.ok()) return s;
  for (int64_t i = 0; i < t.element_count; ++i) StoreBytes<uint8_t>(t.data, t.OffsetOf(i), codes[i]);
  return absl::OkStatus();
}

}  // namespace teplug::reference::provider
