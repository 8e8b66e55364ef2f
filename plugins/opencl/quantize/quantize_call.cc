#include "plugins/opencl/quantize/quantize_call.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/opencl/provider/float_codec_kernels.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/names.hpp"

namespace teplug::opencl::quantize {
namespace {

using provider::DeviceTensor;
using provider::RequireShape;
using provider::ResolveDeviceTensor;
using provider::ShapeText;

// The kernel argument `kind` of a high-precision dtype; throws
// INVALID_ARGUMENT naming `name` for any other.
int HighPrecisionKind(int32_t dtype, const std::string& name) {
  switch (dtype) {
    case TEPLUG_DTYPE_FP32: return provider::kClKindFp32;
    case TEPLUG_DTYPE_FP16: return provider::kClKindFp16;
    case TEPLUG_DTYPE_BF16: return provider::kClKindBf16;
    default:
      throw sdk::InvalidArgument(absl::StrCat(name, " is ", sdk::DTypeName(dtype),
                                              "; it must be fp32, fp16 or bf16"));
  }
}

int BitsOfKind(int kind) { return kind == provider::kClKindFp32 ? 32 : 16; }

// true for fp8_e5m2, false for fp8_e4m3; fp4 is UNSUPPORTED, the rest invalid.
bool IsE5m2(int32_t dtype, const std::string& name) {
  if (dtype == TEPLUG_DTYPE_FP8_E4M3) return false;
  if (dtype == TEPLUG_DTYPE_FP8_E5M2) return true;
  if (dtype == TEPLUG_DTYPE_FP4_E2M1) {
    throw sdk::Unsupported(absl::StrCat(
        name, " is fp4_e2m1; the opencl quantizer serves fp8_e4m3 and fp8_e5m2 (quantizer.h "
              "defines no fp4 scale formula)"));
  }
  throw sdk::InvalidArgument(absl::StrCat(name, " is ", sdk::DTypeName(dtype),
                                          "; it must be fp8_e4m3 or fp8_e5m2"));
}

// rows = prod(shape[:-1]), cols = shape[-1] (a rank-0 tensor is [1, 1]).
void MatrixView(const TeplugTensor& t, int64_t* rows, int64_t* cols) {
  *rows = 1;
  *cols = t.rank > 0 ? t.shape[t.rank - 1] : 1;
  for (int i = 0; i + 1 < t.rank; ++i) *rows *= t.shape[i];
}

void RequireSameShape(const TeplugTensor& t, const std::string& name, const TeplugTensor& like) {
  RequireShape(t, name, std::vector<int64_t>(like.shape, like.shape + std::max(like.rank, 0)),
               "the input is");
}

// A per-tensor scalar (scale, scale_inv, amax): one fp32 element.
DeviceTensor ResolveScalar(const TeplugTensor* t, const std::string& name) {
  if (t->dtype != TEPLUG_DTYPE_FP32) {
    throw sdk::InvalidArgument(
        absl::StrCat(name, " is ", sdk::DTypeName(t->dtype), "; it must be one fp32 element"));
  }
  DeviceTensor d = ResolveDeviceTensor(*t, name, 32);
  if (d.elements != 1) {
    throw sdk::InvalidArgument(
        absl::StrCat(name, " is ", ShapeText(*t), "; it must be one fp32 element"));
  }
  return d;
}

DeviceTensor ResolveE8m0Grid(const TeplugTensor* t, const std::string& name, int64_t grid_rows,
                             int64_t grid_cols, const std::string& why) {
  RequireShape(*t, name, {grid_rows, grid_cols}, why);
  if (t->dtype != TEPLUG_DTYPE_E8M0) {
    throw sdk::InvalidArgument(
        absl::StrCat(name, " is ", sdk::DTypeName(t->dtype), "; mxfp8_1d32 scales are e8m0"));
  }
  return ResolveDeviceTensor(*t, name, 8);
}

const TeplugTensor* Required(const TeplugTensor* t, const std::string& name,
                             const std::string& why) {
  if (t == nullptr) throw sdk::InvalidArgument(absl::StrCat(name, " is NULL: ", why));
  return t;
}


}  // namespace

QuantizeCall ResolveQuantize(const TeplugQuantizeArgs& args) {
  if (args.input == nullptr || args.output == nullptr)
    throw sdk::InvalidArgument("TeplugQuantizeArgs: input and output are required");
  const TeplugTensor& in = *args.input;
  const TeplugTensor& out = *args.output;
  QuantizeCall c;
  c.kind = HighPrecisionKind(in.dtype, kIn);
  c.e5m2 = IsE5m2(out.dtype, kOut);
  const std::string q_name = absl::StrCat(kOut, ".quant");
  if (out.quant == nullptr)
    throw sdk::InvalidArgument(absl::StrCat(q_name, " is NULL: the scaling mode is needed"));
  const TeplugQuantization& q = *out.quant;
  c.mode = q.mode;
  if (c.mode == TEPLUG_SCALING_BLOCK_1D128 || c.mode == TEPLUG_SCALING_BLOCK_2D128) {
    throw sdk::Unsupported(absl::StrCat(q_name, ".mode is ", sdk::ScalingName(c.mode),
                                        "; the opencl quantizer serves per_tensor and mxfp8_1d32"));
  }
  if (c.mode != TEPLUG_SCALING_PER_TENSOR && c.mode != TEPLUG_SCALING_MXFP8_1D32) {
    throw sdk::InvalidArgument(absl::StrCat(q_name, ".mode is ", sdk::ScalingName(c.mode), " (",
                                            c.mode, "); quantize needs a scaling mode"));
  }
  c.input = ResolveDeviceTensor(in, kIn, BitsOfKind(c.kind));
  RequireSameShape(out, kOut, in);
  MatrixView(in, &c.rows, &c.cols);
  const bool mx = c.mode == TEPLUG_SCALING_MXFP8_1D32;
  if (!args.rowwise && !args.columnwise) {
    throw sdk::InvalidArgument(
        "TeplugQuantizeArgs: rowwise and columnwise are both false; at least one output is needed");
  }
  if (args.rowwise) {
    c.rowwise = ResolveDeviceTensor(out, kOut, 8);
    const std::string s_name = q_name + ".scale_inv";
    const TeplugTensor* s = Required(q.scale_inv, s_name, "rowwise output needs its scales");
    c.scale_inv = mx ? ResolveE8m0Grid(s, s_name, c.rows, CeilDiv(c.cols, kMxBlock),
                                       "mxfp8_1d32 row-wise scales are")
                     : ResolveScalar(s, s_name);
  }
  if (args.columnwise) {
    const std::string d_name = q_name + ".columnwise_data";
    const TeplugTensor* d = Required(q.columnwise_data, d_name, "columnwise is set");
    RequireShape(*d, d_name, mx ? std::vector<int64_t>{c.rows, c.cols}
                                : std::vector<int64_t>{c.cols, c.rows},
                 mx ? "mxfp8 column-wise codes keep the input's layout" : "the transpose is");
    if (d->dtype != out.dtype) {
      throw sdk::InvalidArgument(absl::StrCat(d_name, " is ", sdk::DTypeName(d->dtype),
                                              "; it must match the output's ",
                                              sdk::DTypeName(out.dtype)));
    }
    c.columnwise = ResolveDeviceTensor(*d, d_name, 8);
    const std::string s_name = q_name + ".columnwise_scale_inv";
    if (mx) {
      c.columnwise_scale_inv =
          ResolveE8m0Grid(Required(q.columnwise_scale_inv, s_name, "columnwise output needs its scales"),
                          s_name, CeilDiv(c.rows, kMxBlock), c.cols,
                          "mxfp8_1d32 column-wise scales are");
    } else if (q.columnwise_scale_inv != nullptr) {
      c.columnwise_scale_inv = ResolveScalar(q.columnwise_scale_inv, s_name);
    }
  }
  // OCP from a v1.0-v1.2 caller, whose struct ends before the field.
  const int32_t mx_rule =
      TEPLUG_FIELD_OR(args, TeplugQuantizeArgs, mx_scale_rule, TEPLUG_MX_SCALE_OCP);
  if (mx_rule != TEPLUG_MX_SCALE_OCP && mx_rule != TEPLUG_MX_SCALE_TRANSFORMER_ENGINE) {
    throw sdk::InvalidArgument(absl::StrCat("TeplugQuantizeArgs.mx_scale_rule ", mx_rule,
                                            " is not ocp (0) or transformer_engine (1)"));
  }
  c.te_rule = mx && mx_rule == TEPLUG_MX_SCALE_TRANSFORMER_ENGINE;
  if (!mx) {
    if (args.recipe != TEPLUG_RECIPE_DELAYED && args.recipe != TEPLUG_RECIPE_CURRENT) {
      throw sdk::InvalidArgument(absl::StrCat("TeplugQuantizeArgs.recipe ", args.recipe,
                                              " is not delayed (0) or current (1)"));
    }
    c.current = args.recipe == TEPLUG_RECIPE_CURRENT;
    if (c.current && !(args.amax_epsilon >= 0.0f)) {
      throw sdk::InvalidArgument(absl::StrCat("TeplugQuantizeArgs.amax_epsilon is ",
                                              args.amax_epsilon, "; it must be >= 0"));
    }
    if (!c.current || q.scale != nullptr) {
      c.scale = ResolveScalar(
          Required(q.scale, q_name + ".scale", "delayed scaling quantizes with the given scale"),
          q_name + ".scale");
    }
  }
  if (q.amax != nullptr) c.amax = ResolveScalar(q.amax, q_name + ".amax");
  const void* owner = nullptr;
  for (const DeviceTensor* t :
       {&c.input, c.rowwise ? &*c.rowwise : nullptr, c.scale_inv ? &*c.scale_inv : nullptr,
        c.columnwise ? &*c.columnwise : nullptr,
        c.columnwise_scale_inv ? &*c.columnwise_scale_inv : nullptr,
        c.scale ? &*c.scale : nullptr, c.amax ? &*c.amax : nullptr}) {
    if (t == nullptr || t->buffer == nullptr) continue;
    if (owner != nullptr && t->owner != owner) {
      throw sdk::InvalidArgument(
          "TeplugQuantizeArgs: the tensors are memory of different opencl contexts");
    }
    owner = t->owner;
  }
  return c;
}


DequantizeCall ResolveDequantize(const TeplugDequantizeArgs& args) {
  constexpr const char* kDIn = "TeplugDequantizeArgs.input";
  constexpr const char* kDOut = "TeplugDequantizeArgs.output";
  if (args.input == nullptr || args.output == nullptr)
    throw sdk::InvalidArgument("TeplugDequantizeArgs: input and output are required");
  const TeplugTensor& in = *args.input;
  DequantizeCall c;
  c.e5m2 = IsE5m2(in.dtype, kDIn);
  c.kind = HighPrecisionKind(args.output->dtype, kDOut);
  const std::string q_name = absl::StrCat(kDIn, ".quant");
  if (in.quant == nullptr)
    throw sdk::InvalidArgument(absl::StrCat(q_name, " is NULL: dequantize needs the scales"));
  const int32_t mode = in.quant->mode;
  if (mode == TEPLUG_SCALING_BLOCK_1D128 || mode == TEPLUG_SCALING_BLOCK_2D128) {
    throw sdk::Unsupported(absl::StrCat(q_name, ".mode is ", sdk::ScalingName(mode),
                                        "; the opencl quantizer serves per_tensor and mxfp8_1d32"));
  }
  if (mode != TEPLUG_SCALING_PER_TENSOR && mode != TEPLUG_SCALING_MXFP8_1D32) {
    throw sdk::InvalidArgument(
        absl::StrCat(q_name, ".mode is ", sdk::ScalingName(mode), " (", mode, ")"));
  }
  c.mx = mode == TEPLUG_SCALING_MXFP8_1D32;
  c.codes = ResolveDeviceTensor(in, kDIn, 8);
  RequireSameShape(*args.output, kDOut, in);
  c.output = ResolveDeviceTensor(*args.output, kDOut, BitsOfKind(c.kind));
  MatrixView(in, &c.rows, &c.cols);
  const std::string s_name = q_name + ".scale_inv";
  const TeplugTensor* s = Required(in.quant->scale_inv, s_name, "dequantize needs the scales");
  c.scales = c.mx ? ResolveE8m0Grid(s, s_name, c.rows, CeilDiv(c.cols, kMxBlock),
                                    "mxfp8_1d32 row-wise scales are")
                  : ResolveScalar(s, s_name);
  for (const DeviceTensor* t : {&c.codes, &c.scales}) {
    if (t->buffer != nullptr && c.output.buffer != nullptr && t->owner != c.output.owner) {
      throw sdk::InvalidArgument(
          "TeplugDequantizeArgs: the tensors are memory of different opencl contexts");
    }
  }
  return c;
}

}  // namespace teplug::opencl::quantize
