#include "plugins/cpu/provider/quantizer_provider.h"

#include <cmath>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "plugins/cpu/provider/host_tensor.h"
#include "plugins/cpu/quantize/parallel_rows.h"
#include "plugins/cpu/quantize/quantize_kernels.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::cpu::provider {
namespace {

using quantize::Fp8Kind;
using quantize::Wide;

// A checked host tensor viewed as the matrix [rows, cols].
struct MatrixView {
  std::string name;
  void* data = nullptr;
  int32_t dtype = 0;
  std::vector<int64_t> shape;
  int64_t rows = 1, cols = 1, elements = 1;
};

std::string Dims(const std::vector<int64_t>& v) { return DimsString(v); }

// Reads a tensor (its data may be NULL: callers that touch it check);
// explicit strides must be the row-major ones.
absl::StatusOr<MatrixView> ReadHost(const TeplugTensor* tensor, const std::string& name) {
  absl::StatusOr<HostTensor> read = ReadHostTensor(tensor, name);
  if (!read.ok()) return read.status();
  MatrixView h;
  h.name = name;
  h.data = read->fields.data;
  h.dtype = read->fields.dtype;
  h.shape = read->shape;
  h.elements = read->elements;
  const int rank = static_cast<int>(h.shape.size());
  for (int i = 0; i + 1 < rank; ++i) h.rows *= h.shape[i];
  if (rank > 0) h.cols = h.shape[rank - 1];
  int64_t expected = 1;
  for (int i = rank; i-- > 0;) {
    if (h.shape[i] > 1 && read->strides[i] != expected) {
      return absl::UnimplementedError(absl::StrFormat(
          "%s.strides %s (shape %s) are not row-major contiguous; the cpu quantizer reads and "
          "writes contiguous tensors only",
          name, Dims(read->strides), Dims(h.shape)));
    }
    expected *= h.shape[i];
  }
  return h;
}

absl::Status RequireData(const MatrixView& t, const char* why) {
  if (t.elements > 0 && t.data == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(t.name, ".data is NULL but ", why));
  }
  return absl::OkStatus();
}

absl::Status RequireShape(const MatrixView& t, const std::vector<int64_t>& shape,
                          const std::string& why) {
  if (t.shape == shape) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(t.name, ": shape ", Dims(t.shape), " but ", why, " ", Dims(shape)));
}

absl::Status RequireDType(const MatrixView& t, uint64_t allowed, const std::string& what) {
  if ((TEPLUG_DTYPE_BIT(t.dtype) & allowed) != 0) return absl::OkStatus();
  std::vector<std::string> names;
  for (int32_t d = 0; d < 64; ++d) {
    if ((allowed >> d) & 1u) names.push_back(sdk::DTypeName(d));
  }
  return absl::InvalidArgumentError(absl::StrCat(t.name, ": dtype ", sdk::DTypeName(t.dtype), " but ",
                                                 what, " ", absl::StrJoin(names, ", ")));
}

constexpr uint64_t kWideDTypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32) |
                                 TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP16) |
                                 TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
constexpr uint64_t kFp8DTypes =
    TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E5M2);

Wide WideOf(int32_t dtype) {
  return dtype == TEPLUG_DTYPE_FP16 ? Wide::kFp16
                                    : (dtype == TEPLUG_DTYPE_BF16 ? Wide::kBf16 : Wide::kFp32);
}
Fp8Kind KindOf(int32_t dtype) {
  return dtype == TEPLUG_DTYPE_FP8_E4M3 ? Fp8Kind::kE4M3 : Fp8Kind::kE5M2;
}
int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The scale grid of `mode` for a [rows, cols] matrix: shape and dtype
// (types.h, TeplugQuantization.scale_inv); per_tensor: one fp32 of any shape.
struct ScaleRule {
  std::vector<int64_t> shape;
  int32_t dtype = TEPLUG_DTYPE_FP32;
  int64_t block_rows = 1, block_cols = 1;
};
std::optional<ScaleRule> ScaleRuleOf(int32_t mode, int64_t rows, int64_t cols) {
  ScaleRule r;
  switch (mode) {
    case TEPLUG_SCALING_PER_TENSOR: r.shape = {1}; return r;
    case TEPLUG_SCALING_MXFP8_1D32: r.block_cols = 32; r.dtype = TEPLUG_DTYPE_E8M0; break;
    case TEPLUG_SCALING_BLOCK_1D128: r.block_cols = 128; break;
    case TEPLUG_SCALING_BLOCK_2D128: r.block_rows = 128; r.block_cols = 128; break;
    default: return std::nullopt;
  }
  r.shape = {CeilDiv(rows, r.block_rows), CeilDiv(cols, r.block_cols)};
  return r;
}

absl::Status CheckScales(const MatrixView& s, int32_t mode, const ScaleRule& rule, int64_t rows,
                         int64_t cols) {
  const std::string what = absl::StrCat(sdk::ScalingName(mode), " scaling of a [", rows, ", ",
                                        cols, "] tensor needs");
  if (mode == TEPLUG_SCALING_PER_TENSOR) {
    if (s.elements != 1 || s.dtype != TEPLUG_DTYPE_FP32) {
      return absl::InvalidArgumentError(absl::StrCat(s.name, ": ", sdk::DTypeName(s.dtype), " ",
                                                     Dims(s.shape), " but ", what,
                                                     " one fp32 element"));
    }
  } else {
    absl::Status st = RequireShape(s, rule.shape, what);
    if (!st.ok()) return st;
    st = RequireDType(s, TEPLUG_DTYPE_BIT(rule.dtype), absl::StrCat(sdk::ScalingName(mode), " scales must be"));
    if (!st.ok()) return st;
  }
  return RequireData(s, "the scales are read or written");
}

absl::StatusOr<std::optional<MatrixView>> ReadOptional(const TeplugTensor* t, const std::string& name) {
  if (t == nullptr) return std::optional<MatrixView>();
  absl::StatusOr<MatrixView> h = ReadHost(t, name);
  if (!h.ok()) return h.status();
  return std::optional<MatrixView>(*std::move(h));
}

// One quantize call, checked.
struct QuantizeCall {
  MatrixView input, output;
  int32_t mode = 0;
  quantize::MxRule mx_rule = quantize::MxRule::kOcp;
  std::optional<MatrixView> scale_inv, columnwise_data, columnwise_scale_inv, scale, amax;
};

#define TEPLUG_CPU_ASSIGN_OPTIONAL(target, tensor, name)                     \
  do {                                                                       \
    absl::StatusOr<std::optional<MatrixView>> read_ = ReadOptional(tensor, name); \
    if (!read_.ok()) return read_.status();                                  \
    target = *std::move(read_);                                              \
  } while (0)
#define TEPLUG_CPU_RETURN_IF_ERROR(expr)      \
  do {                                        \
    const absl::Status status_ = (expr);      \
    if (!status_.ok()) return status_;        \
  } while (0)

absl::StatusOr<QuantizeCall> CheckQuantize(const TeplugQuantizeArgs& args) {
  QuantizeCall call;
  absl::StatusOr<MatrixView> in = ReadHost(args.input, "TeplugQuantizeArgs.input");
  if (!in.ok()) return in.status();
  call.input = *std::move(in);
  TEPLUG_CPU_RETURN_IF_ERROR(RequireDType(call.input, kWideDTypes, "quantize reads only"));
  absl::StatusOr<MatrixView> out = ReadHost(args.output, "TeplugQuantizeArgs.output");
  if (!out.ok()) return out.status();
  call.output = *std::move(out);
  MatrixView& o = call.output;
  TEPLUG_CPU_RETURN_IF_ERROR(RequireShape(o, call.input.shape, "the input is"));
  if (o.dtype == TEPLUG_DTYPE_FP4_E2M1) {
    return absl::UnimplementedError(absl::StrCat(
        o.name, ": dtype fp4_e2m1 is not served by the cpu quantizer (quantizer.h defines no fp4 "
                "scale formula); use fp8_e4m3 or fp8_e5m2"));
  }
  TEPLUG_CPU_RETURN_IF_ERROR(RequireDType(o, kFp8DTypes, "the cpu provider quantizes into"));
  const std::string q_name = o.name + ".quant";
  TeplugQuantization q;
  if (args.output->quant == nullptr ||
      !sdk::ReadVersioned(args.output->quant, &q, TEPLUG_STRUCT_SIZE(TeplugQuantization, mode))) {
    return absl::InvalidArgumentError(absl::StrCat(
        q_name, " is NULL or too small: quantize needs the scaling mode and where scales go"));
  }
  call.mode = q.mode;
  const int64_t rows = call.input.rows, cols = call.input.cols;
  const std::optional<ScaleRule> rule = ScaleRuleOf(q.mode, rows, cols);
  if (!rule.has_value()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.mode is %s (%d); quantize needs per_tensor, mxfp8_1d32, block_1d128 or block_2d128",
        q_name, sdk::ScalingName(q.mode), q.mode));
  }
  if (!args.rowwise && !args.columnwise) {
    return absl::InvalidArgumentError(
        "TeplugQuantizeArgs: rowwise and columnwise are both false; at least one output is needed");
  }
  // OCP from a v1.0-v1.2 caller, whose struct ends before the field.
  const int32_t mx_rule =
      TEPLUG_FIELD_OR(args, TeplugQuantizeArgs, mx_scale_rule, TEPLUG_MX_SCALE_OCP);
  if (mx_rule != TEPLUG_MX_SCALE_OCP && mx_rule != TEPLUG_MX_SCALE_TRANSFORMER_ENGINE) {
    return absl::InvalidArgumentError(
        absl::StrFormat("TeplugQuantizeArgs.mx_scale_rule %d is not a TeplugMxScaleRule", mx_rule));
  }
  if (mx_rule == TEPLUG_MX_SCALE_TRANSFORMER_ENGINE)
    call.mx_rule = quantize::MxRule::kTransformerEngine;
  TEPLUG_CPU_ASSIGN_OPTIONAL(call.scale_inv, q.scale_inv, q_name + ".scale_inv");
  TEPLUG_CPU_ASSIGN_OPTIONAL(call.columnwise_data, q.columnwise_data, q_name + ".columnwise_data");
  TEPLUG_CPU_ASSIGN_OPTIONAL(call.columnwise_scale_inv, q.columnwise_scale_inv,
                             q_name + ".columnwise_scale_inv");
  TEPLUG_CPU_ASSIGN_OPTIONAL(call.scale, q.scale, q_name + ".scale");
  TEPLUG_CPU_ASSIGN_OPTIONAL(call.amax, q.amax, q_name + ".amax");
  if (args.rowwise) {
    TEPLUG_CPU_RETURN_IF_ERROR(RequireData(o, "rowwise is set"));
    if (!call.scale_inv) {
      return absl::InvalidArgumentError(
          absl::StrCat(q_name, ".scale_inv is NULL: rowwise output needs its scales"));
    }
    TEPLUG_CPU_RETURN_IF_ERROR(CheckScales(*call.scale_inv, q.mode, *rule, rows, cols));
  } else {
    call.scale_inv.reset();
  }
  const bool mx = q.mode == TEPLUG_SCALING_MXFP8_1D32;
  if (args.columnwise) {
    if (!call.columnwise_data) {
      return absl::InvalidArgumentError(absl::StrCat(q_name, ".columnwise_data is NULL: columnwise is set"));
    }
    const MatrixView& d = *call.columnwise_data;
    TEPLUG_CPU_RETURN_IF_ERROR(RequireShape(d, mx ? std::vector<int64_t>{rows, cols} : std::vector<int64_t>{cols, rows},
                                            mx ? "mxfp8 column-wise codes keep the input's layout"
                                               : "the transpose of the input is"));
    TEPLUG_CPU_RETURN_IF_ERROR(RequireDType(d, TEPLUG_DTYPE_BIT(o.dtype), "it must match the output dtype"));
    TEPLUG_CPU_RETURN_IF_ERROR(RequireData(d, "columnwise is set"));
    if (call.columnwise_scale_inv) {
      const ScaleRule cw_rule = mx ? ScaleRule{{CeilDiv(rows, 32), cols}, TEPLUG_DTYPE_E8M0, 32, 1}
                                   : *ScaleRuleOf(q.mode, cols, rows);
      TEPLUG_CPU_RETURN_IF_ERROR(CheckScales(*call.columnwise_scale_inv, q.mode, cw_rule,
                                             mx ? rows : cols, mx ? cols : rows));
    } else if (q.mode != TEPLUG_SCALING_PER_TENSOR) {
      return absl::InvalidArgumentError(absl::StrCat(
          q_name, ".columnwise_scale_inv is NULL: columnwise output needs its scales"));
    }
  } else {
    call.columnwise_data.reset();
    call.columnwise_scale_inv.reset();
  }
  if (q.mode == TEPLUG_SCALING_PER_TENSOR) {
    if (args.recipe != TEPLUG_RECIPE_DELAYED && args.recipe != TEPLUG_RECIPE_CURRENT) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "TeplugQuantizeArgs.recipe %d is not delayed (0) or current (1)", args.recipe));
    }
    if (args.recipe == TEPLUG_RECIPE_DELAYED && !call.scale) {
      return absl::InvalidArgumentError(
          absl::StrCat(q_name, ".scale is NULL: delayed scaling quantizes with the given scale"));
    }
    if (call.scale) TEPLUG_CPU_RETURN_IF_ERROR(CheckScales(*call.scale, q.mode, *rule, 1, 1));
  } else {
    call.scale.reset();
  }
  if (call.amax) TEPLUG_CPU_RETURN_IF_ERROR(CheckScales(*call.amax, TEPLUG_SCALING_PER_TENSOR, {}, 1, 1));
  return call;
}

float* AsFloat(const MatrixView& t) { return static_cast<float*>(t.data); }
uint8_t* AsBytes(const MatrixView& t) { return static_cast<uint8_t*>(t.data); }

absl::Status Quantize(const TeplugQuantizeArgs& args, const QuantizeCall& call, int budget) {
  TEPLUG_CPU_RETURN_IF_ERROR(RequireData(call.input, "it is quantized"));
  const MatrixView& in = call.input;
  const int64_t rows = in.rows, cols = in.cols, n = in.elements;
  const Wide wide = WideOf(in.dtype);
  const Fp8Kind kind = KindOf(call.output.dtype);
  const int threads = quantize::ThreadsFor(n * 5, budget);
  quantize::ScaleOptions options;
  options.amax_epsilon = args.amax_epsilon;
  options.force_pow2_scales = args.force_pow2_scales != 0;
  options.input_max_finite = quantize::WideMaxFinite(wide);
  const float fp8_max = kind == Fp8Kind::kE4M3 ? 448.0f : 57344.0f;
  const bool current = call.mode == TEPLUG_SCALING_PER_TENSOR && args.recipe == TEPLUG_RECIPE_CURRENT;
  std::optional<float> amax;
  if (call.amax || current) amax = quantize::AbsMax(wide, in.data, n, threads);
  // The column-wise copy of every mode is the row-wise rule applied to the
  // transpose (MXFP8 then transposes codes and scales back).
  std::vector<float> transposed;
  if (call.columnwise_data) {
    transposed.resize(static_cast<size_t>(n));
    quantize::TransposeToFloat(wide, in.data, rows, cols, transposed.data(), threads);
  }
  switch (call.mode) {
    case TEPLUG_SCALING_PER_TENSOR: {
      float scale;
      if (current) {
        scale = quantize::ScaleFromAmax(*amax, fp8_max, options);
      } else {
        scale = *AsFloat(*call.scale);
        if (!std::isfinite(scale) || !(scale > 0.0f)) {
          return absl::InvalidArgumentError(absl::StrFormat(
              "%s: delayed scaling needs a finite scale > 0, got %g", call.scale->name, scale));
        }
      }
      const float scale_inv = 1.0f / scale;
      if (call.scale_inv) {
        quantize::QuantizeWithScale(wide, in.data, n, scale, kind, AsBytes(call.output), threads);
        *AsFloat(*call.scale_inv) = scale_inv;
      }
      if (call.columnwise_data) {
        quantize::QuantizeWithScale(Wide::kFp32, transposed.data(), n, scale, kind,
                                    AsBytes(*call.columnwise_data), threads);
        if (call.columnwise_scale_inv) *AsFloat(*call.columnwise_scale_inv) = scale_inv;
      }
      if (current && call.scale) *AsFloat(*call.scale) = scale;
      break;
    }
    case TEPLUG_SCALING_MXFP8_1D32: {
      if (call.scale_inv) {
        quantize::QuantizeMxRows(wide, in.data, rows, cols, kind, call.mx_rule,
                                 AsBytes(call.output), AsBytes(*call.scale_inv), threads);
      }
      if (call.columnwise_data) {
        const int64_t blocks = CeilDiv(rows, 32);
        std::vector<uint8_t> codes(static_cast<size_t>(n)), scales(static_cast<size_t>(cols * blocks));
        quantize::QuantizeMxRows(Wide::kFp32, transposed.data(), cols, rows, kind, call.mx_rule,
                                 codes.data(), scales.data(), threads);
        quantize::TransposeBytes(codes.data(), cols, rows, AsBytes(*call.columnwise_data), threads);
        quantize::TransposeBytes(scales.data(), cols, blocks, AsBytes(*call.columnwise_scale_inv),
                                 threads);
      }
      break;
    }
    default: {
      const int64_t block_rows = call.mode == TEPLUG_SCALING_BLOCK_2D128 ? 128 : 1;
      if (call.scale_inv) {
        quantize::QuantizeBlocks(wide, in.data, rows, cols, block_rows, kind, options,
                                 AsBytes(call.output), AsFloat(*call.scale_inv), threads);
      }
      if (call.columnwise_data) {
        quantize::QuantizeBlocks(Wide::kFp32, transposed.data(), cols, rows, block_rows, kind,
                                 options, AsBytes(*call.columnwise_data),
                                 AsFloat(*call.columnwise_scale_inv), threads);
      }
      break;
    }
  }
  if (call.amax) *AsFloat(*call.amax) = *amax;
  return absl::OkStatus();
}

// One dequantize call, checked.
struct DequantizeCall {
  MatrixView input, output, scale_inv;
  int32_t mode = 0;
  ScaleRule rule;
};

absl::StatusOr<DequantizeCall> CheckDequantize(const TeplugDequantizeArgs& args) {
  DequantizeCall call;
  absl::StatusOr<MatrixView> in = ReadHost(args.input, "TeplugDequantizeArgs.input");
  if (!in.ok()) return in.status();
  call.input = *std::move(in);
  absl::StatusOr<MatrixView> out = ReadHost(args.output, "TeplugDequantizeArgs.output");
  if (!out.ok()) return out.status();
  call.output = *std::move(out);
  if (call.input.dtype == TEPLUG_DTYPE_FP4_E2M1) {
    return absl::UnimplementedError(absl::StrCat(
        call.input.name, ": dtype fp4_e2m1 is not served by the cpu quantizer; it dequantizes "
                         "fp8_e4m3 and fp8_e5m2"));
  }
  TEPLUG_CPU_RETURN_IF_ERROR(RequireDType(call.input, kFp8DTypes, "dequantize reads only"));
  TEPLUG_CPU_RETURN_IF_ERROR(RequireDType(call.output, kWideDTypes, "dequantize writes only"));
  TEPLUG_CPU_RETURN_IF_ERROR(RequireShape(call.output, call.input.shape, "the input is"));
  const std::string q_name = call.input.name + ".quant";
  TeplugQuantization q;
  if (args.input->quant == nullptr ||
      !sdk::ReadVersioned(args.input->quant, &q, TEPLUG_STRUCT_SIZE(TeplugQuantization, scale_inv))) {
    return absl::InvalidArgumentError(
        absl::StrCat(q_name, " is NULL or too small: an fp8 tensor needs its mode and scale_inv"));
  }
  call.mode = q.mode;
  const std::optional<ScaleRule> rule = ScaleRuleOf(q.mode, call.input.rows, call.input.cols);
  if (!rule.has_value()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.mode is %s (%d); a %s tensor needs per_tensor, mxfp8_1d32, block_1d128 or block_2d128",
        q_name, sdk::ScalingName(q.mode), q.mode, sdk::DTypeName(call.input.dtype)));
  }
  call.rule = *rule;
  if (q.scale_inv == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(q_name, ".scale_inv is NULL: dequantize needs the scales"));
  }
  absl::StatusOr<MatrixView> s = ReadHost(q.scale_inv, q_name + ".scale_inv");
  if (!s.ok()) return s.status();
  call.scale_inv = *std::move(s);
  TEPLUG_CPU_RETURN_IF_ERROR(
      CheckScales(call.scale_inv, q.mode, *rule, call.input.rows, call.input.cols));
  return call;
}

absl::Status Dequantize(const DequantizeCall& call, int budget) {
  TEPLUG_CPU_RETURN_IF_ERROR(RequireData(call.input, "it is dequantized"));
  TEPLUG_CPU_RETURN_IF_ERROR(RequireData(call.output, "it is written"));
  quantize::ScaleGrid grid;
  grid.values = call.scale_inv.data;
  grid.kind = call.mode == TEPLUG_SCALING_PER_TENSOR
                  ? quantize::ScaleGrid::Kind::kPerTensor
                  : (call.mode == TEPLUG_SCALING_MXFP8_1D32 ? quantize::ScaleGrid::Kind::kMx
                                                            : quantize::ScaleGrid::Kind::kBlock);
  grid.block_rows = call.rule.block_rows;
  grid.block_cols = call.rule.block_cols;
  quantize::Dequantize(AsBytes(call.input), call.input.rows, call.input.cols,
                       KindOf(call.input.dtype), grid, WideOf(call.output.dtype), call.output.data,
                       quantize::ThreadsFor(call.input.elements * 5, budget));
  return absl::OkStatus();
}

// Refuses (false, with the reason) only what is not served; malformed args
// are the op's invalid_argument.
template <class Call>
bool Served(const absl::StatusOr<Call>& call, std::string* reason) {
  if (call.ok() || call.status().code() != absl::StatusCode::kUnimplemented) return true;
  *reason = std::string(call.status().message());
  return false;
}

void ThrowIfError(const absl::Status& status) {
  if (status.ok()) return;
  const std::string message(status.message());
  if (status.code() == absl::StatusCode::kInvalidArgument) throw sdk::InvalidArgument(message);
  if (status.code() == absl::StatusCode::kUnimplemented) throw sdk::Unsupported(message);
  throw sdk::Internal(message);
}

}  // namespace

absl::Status RunCpuQuantize(const TeplugQuantizeArgs& args, int threads) {
  absl::StatusOr<QuantizeCall> call = CheckQuantize(args);
  if (!call.ok()) return call.status();
  return Quantize(args, *call, threads);
}

absl::Status RunCpuDequantize(const TeplugDequantizeArgs& args, int threads) {
  absl::StatusOr<DequantizeCall> call = CheckDequantize(args);
  if (!call.ok()) return call.status();
  return Dequantize(*call, threads);
}

bool CpuQuantizer::SupportsQuantize(const TeplugQuantizeArgs& args, std::string* reason) {
  return Served(CheckQuantize(args), reason);
}
bool CpuQuantizer::SupportsDequantize(const TeplugDequantizeArgs& args, std::string* reason) {
  return Served(CheckDequantize(args), reason);
}
void CpuQuantizer::Quantize(const TeplugQuantizeArgs& args) { ThrowIfError(RunCpuQuantize(args, threads_)); }
void CpuQuantizer::Dequantize(const TeplugDequantizeArgs& args) {
  ThrowIfError(RunCpuDequantize(args, threads_));
}

}  // namespace teplug::cpu::provider
