#include "native/quantize/testing/kernel_cases.h"

#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>

#include "gtest/gtest.h"
#include "native/quantize/testing/quantize_call.h"
#include "plugins/reference/numerics/block_scaling.h"
#include "plugins/reference/numerics/float_formats.h"
#include "plugins/reference/numerics/mx_scaling.h"
#include "plugins/reference/numerics/per_tensor_scaling.h"
#include "plugins/reference/numerics/scale_from_amax.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native::quantize::testing {
namespace {

namespace ref = ::teplug::reference;

// Random input as the dtype's bits (uint16 for fp16/bf16, float bits for fp32)
// and as the exact float values the reference sees.
struct Input {
  std::vector<uint8_t> bytes;
  std::vector<float> values;
};

Input RandomInput(const KernelCase& c, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-6, 6);
  const size_t n = static_cast<size_t>(c.rows * c.cols);
  Input in;
  in.values.resize(n);
  for (size_t i = 0; i < n; ++i) {
    float v = std::ldexp(normal(rng), exponent(rng));
    if (c.specials) {
      switch (rng() % 200) {
        case 0:
          v = (rng() & 1) ? NAN : -NAN;
          break;
        case 1:
          v = (rng() & 1) ? INFINITY : -INFINITY;
          break;
        case 2:
          v = std::ldexp(normal(rng), -130);
          break;  // fp32 subnormal
        case 3:
          v = std::ldexp(normal(rng), -20);
          break;  // fp16 subnormal range
        default:
          break;
      }
    }
    in.values[i] = v;
  }
  const size_t width = c.input_dtype == TEPLUG_DTYPE_FP32 ? 4 : 2;
  in.bytes.resize(n * width);
  for (size_t i = 0; i < n; ++i) {
    if (width == 4) {
      std::memcpy(&in.bytes[i * 4], &in.values[i], 4);
      continue;
    }
    const uint16_t bits = c.input_dtype == TEPLUG_DTYPE_FP16 ? ref::EncodeFp16(in.values[i])
                                                             : ref::EncodeBf16(in.values[i]);
    in.values[i] =
        c.input_dtype == TEPLUG_DTYPE_FP16 ? ref::DecodeFp16(bits) : ref::DecodeBf16(bits);
    std::memcpy(&in.bytes[i * 2], &bits, 2);
  }
  return in;
}

// What the reference produces for a case: codes and scales as bytes.
struct Expected {
  std::vector<uint8_t> data, columnwise_data, scale_inv,
      columnwise_scale_inv;  // scales as raw bytes
  float scale = 0.0f, amax = 0.0f;
  std::vector<float> dequantized;  // of the row-wise encoding, fp32
};

template <class T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

float InputMaxFinite(int32_t dtype) {
  return dtype == TEPLUG_DTYPE_FP16
             ? ref::kFp16MaxNormal
             : (dtype == TEPLUG_DTYPE_BF16 ? ref::DecodeBf16(0x7F7F) : FLT_MAX);
}

constexpr float kDelayedScale = 3.0f;
constexpr float kEpsilon = 1e-6f;

// Power-of-two scales: on in the block modes (TE's Float8BlockScaling
// default), off in per-tensor current scaling (Float8CurrentScaling's).
bool Pow2(int32_t mode) {
  return mode == TEPLUG_SCALING_BLOCK_1D128 || mode == TEPLUG_SCALING_BLOCK_2D128;
}

Expected Reference(const KernelCase& c, const std::vector<float>& x) {
  const ref::Fp8Format f =
      c.output_dtype == TEPLUG_DTYPE_FP8_E4M3 ? ref::Fp8Format::kE4M3 : ref::Fp8Format::kE5M2;
  const size_t rows = static_cast<size_t>(c.rows), cols = static_cast<size_t>(c.cols);
  Expected e;
  e.amax = ref::AbsMaxIgnoringNan(x.data(), x.size());
  if (c.mode == TEPLUG_SCALING_PER_TENSOR) {
    ref::CurrentScalingOptions o;
    o.amax_epsilon = kEpsilon;
    o.force_pow2_scales = Pow2(c.mode);
    o.input_max_finite = InputMaxFinite(c.input_dtype);
    auto r = c.current
                 ? ref::QuantizeWithCurrentScaling(x.data(), rows, cols, f, o, true)
                 : ref::QuantizeWithDelayedScaling(x.data(), rows, cols, kDelayedScale, f, true);
    EXPECT_TRUE(r.ok()) << r.status();
    e.data = r->data;
    e.columnwise_data = r->columnwise_data;
    e.scale = r->scale;
    e.scale_inv = Bytes(std::vector<float>{r->scale_inv});
    e.columnwise_scale_inv = e.scale_inv;
    e.dequantized.resize(x.size());
    EXPECT_TRUE(
        ref::DequantizePerTensor(r->data.data(), x.size(), f, r->scale_inv, e.dequantized.data())
            .ok());
  } else if (c.mode == TEPLUG_SCALING_MXFP8_1D32) {
    auto r = ref::QuantizeMxfp8(
        x.data(), rows, cols, f,
        c.te_rule ? ref::MxScaleRule::kTransformerEngine : ref::MxScaleRule::kOcpSpec, true);
    EXPECT_TRUE(r.ok()) << r.status();
    e.data = r->data;
    e.columnwise_data = r->columnwise_data;
    e.scale_inv = r->scales;
    e.columnwise_scale_inv = r->columnwise_scales;
    e.dequantized = *ref::DequantizeMxfp8(*r, false);
  } else {
    ref::BlockScalingOptions o;
    o.amax_epsilon = kEpsilon;
    o.force_pow2_scales = Pow2(c.mode);
    o.input_max_finite = InputMaxFinite(c.input_dtype);
    auto r =
        ref::QuantizeBlockScaled(x.data(), rows, cols, f,
                                 c.mode == TEPLUG_SCALING_BLOCK_1D128 ? ref::BlockScalingKind::k1D
                                                                      : ref::BlockScalingKind::k2D,
                                 o, true);
    EXPECT_TRUE(r.ok()) << r.status();
    e.data = r->data;
    e.columnwise_data = r->columnwise_data;
    e.scale_inv = Bytes(r->scale_inv);
    e.columnwise_scale_inv = Bytes(r->columnwise_scale_inv);
    e.dequantized = *ref::DequantizeBlockScaled(*r, false);
  }
  return e;
}

std::vector<int64_t> Grid(const KernelCase& c, bool columnwise) {
  auto cdiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  const int64_t r = c.rows, k = c.cols;
  switch (c.mode) {
    case TEPLUG_SCALING_MXFP8_1D32:
      return columnwise ? std::vector<int64_t>{cdiv(r, 32), k}
                        : std::vector<int64_t>{r, cdiv(k, 32)};
    case TEPLUG_SCALING_BLOCK_1D128:
      return columnwise ? std::vector<int64_t>{k, cdiv(r, 128)}
                        : std::vector<int64_t>{r, cdiv(k, 128)};
    case TEPLUG_SCALING_BLOCK_2D128:
      return columnwise ? std::vector<int64_t>{cdiv(k, 128), cdiv(r, 128)}
                        : std::vector<int64_t>{cdiv(r, 128), cdiv(k, 128)};
    default:
      return {1};
  }
}

size_t Elements(const std::vector<int64_t>& shape) {
  size_t n = 1;
  for (int64_t s : shape) n *= static_cast<size_t>(s);
  return n;
}

// NaN matches any NaN; everything else bit for bit.
bool SameValue(float want, float got) {
  if (std::isnan(want)) return std::isnan(got);
  uint32_t a, b;
  std::memcpy(&a, &want, 4);
  std::memcpy(&b, &got, 4);
  return a == b;
}

// A buffer of `memory` holding `bytes`.
struct Buffer {
  Buffer(CaseMemory& memory, size_t bytes) : memory(memory), p(memory.Allocate(bytes)) {}
  template <class T>
  void Upload(const std::vector<T>& v) {
    memory.Upload(p, v.data(), v.size() * sizeof(T));
  }
  template <class T>
  std::vector<T> Download(size_t n) const {
    std::vector<T> v(n);
    memory.Download(v.data(), p, n * sizeof(T));
    return v;
  }
  CaseMemory& memory;
  void* p;
};

// "" for a call through the C table that succeeded, else its status and message.
std::string Failure(TeplugError* e) {
  if (e == nullptr) return "";
  std::string message = "status " + std::to_string(e->code) + ": " + e->message;
  e->destroy(e);
  return message;
}

// "" when `got` equals `want`, else where they first differ and how many
// bytes do (a short message where a vector dump would be thousands of lines).
std::string Mismatch(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
  if (got.size() != want.size()) {
    return std::to_string(got.size()) + " bytes, want " + std::to_string(want.size());
  }
  size_t first = got.size(), count = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] == want[i]) continue;
    if (count++ == 0) first = i;
  }
  if (count == 0) return "";
  return std::to_string(count) + " of " + std::to_string(got.size()) + " bytes differ; byte " +
         std::to_string(first) + " is " + std::to_string(got[first]) + ", want " +
         std::to_string(want[first]);
}

}  // namespace

std::string KernelCase::Name() const {
  return std::string(sdk::ScalingName(mode)) +
         (mode == TEPLUG_SCALING_PER_TENSOR ? (current ? "/current" : "/delayed") : "") +
         (te_rule ? "/transformer_engine" : "") + " " + sdk::DTypeName(input_dtype) + "->" +
         sdk::DTypeName(output_dtype) + " [" + std::to_string(rows) + ", " + std::to_string(cols) +
         "]" + (specials ? " with NaN/Inf/subnormals" : "") + (rowwise ? " rowwise" : "") +
         (columnwise ? " columnwise" : "");
}

std::vector<KernelCase> EveryServedCase() {
  struct ModeCase {
    int32_t mode;
    bool current;
    // An aligned shape and a ragged one: partial blocks and tiles, and for
    // the block modes an odd column count, so the 4-element groups of the
    // tile kernels end short (the scalar path).
    std::vector<std::pair<int64_t, int64_t>> shapes;
    bool te_rule = false;
  };
  const ModeCase modes[] = {
      {TEPLUG_SCALING_PER_TENSOR, false, {{64, 512}, {37, 300}}},
      {TEPLUG_SCALING_PER_TENSOR, true, {{64, 512}, {37, 300}}},
      {TEPLUG_SCALING_MXFP8_1D32, false, {{64, 256}, {70, 100}}},
      {TEPLUG_SCALING_MXFP8_1D32, false, {{64, 256}, {70, 100}}, true},
      {TEPLUG_SCALING_BLOCK_1D128, false, {{256, 256}, {130, 301}}},
      {TEPLUG_SCALING_BLOCK_2D128, false, {{256, 256}, {130, 301}}},
  };
  std::vector<KernelCase> cases;
  for (const ModeCase& m : modes) {
    for (int32_t in_dtype : {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP16, TEPLUG_DTYPE_BF16}) {
      for (int32_t out_dtype : {TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E5M2}) {
        for (const auto& shape : m.shapes) {
          for (bool specials : {false, true}) {
            for (int directions : {1, 2, 3}) {  // row-wise, column-wise, both
              KernelCase c{m.mode,      m.current,    in_dtype, out_dtype,
                           shape.first, shape.second, specials};
              c.rowwise = (directions & 1) != 0;
              c.columnwise = (directions & 2) != 0;
              c.te_rule = m.te_rule;
              cases.push_back(c);
            }
          }
        }
      }
    }
  }
  return cases;
}

void RunKernelCase(TeplugQuantizerV1* quantizer, CaseMemory& memory, const KernelCase& c,
                   void* stream,
                   const std::function<void(const TeplugQuantizeArgs&)>& before_call) {
  SCOPED_TRACE(c.Name());
  const Input in =
      RandomInput(c, static_cast<uint32_t>(c.rows * 131 + c.cols + c.mode * 7 + c.input_dtype));
  const Expected want = Reference(c, in.values);
  TeplugDevice cuda = sdk::Versioned<TeplugDevice>();
  cuda.kind = TEPLUG_DEVICE_CUDA;
  const size_t n = static_cast<size_t>(c.rows * c.cols);
  const bool mx = c.mode == TEPLUG_SCALING_MXFP8_1D32;
  const int32_t scale_dtype = mx ? TEPLUG_DTYPE_E8M0 : TEPLUG_DTYPE_FP32;
  const size_t scale_bytes = mx ? 1 : 4;
  const std::vector<int64_t> grid = Grid(c, false), columnwise_grid = Grid(c, true);

  Buffer input(memory, in.bytes.size()), codes(memory, n), columnwise_codes(memory, n),
      scale_inv(memory, Elements(grid) * scale_bytes),
      columnwise_scale_inv(memory, Elements(columnwise_grid) * scale_bytes), scale(memory, 4),
      amax(memory, 4);
  input.Upload(in.bytes);
  scale.Upload(std::vector<float>{kDelayedScale});
  amax.Upload(std::vector<float>{-1.0f});  // must be overwritten

  TeplugTensor t_in = TensorOf(input.p, c.input_dtype, {c.rows, c.cols}, &cuda);
  TeplugTensor t_out = TensorOf(codes.p, c.output_dtype, {c.rows, c.cols}, &cuda);
  TeplugTensor t_cw = TensorOf(
      columnwise_codes.p, c.output_dtype,
      mx ? std::vector<int64_t>{c.rows, c.cols} : std::vector<int64_t>{c.cols, c.rows}, &cuda);
  TeplugTensor t_si = TensorOf(scale_inv.p, scale_dtype, grid, &cuda);
  TeplugTensor t_csi = TensorOf(columnwise_scale_inv.p, scale_dtype, columnwise_grid, &cuda);
  TeplugTensor t_scale = TensorOf(scale.p, TEPLUG_DTYPE_FP32, {1}, &cuda);
  TeplugTensor t_amax = TensorOf(amax.p, TEPLUG_DTYPE_FP32, {1}, &cuda);
  TeplugQuantization q = sdk::Versioned<TeplugQuantization>();
  q.mode = c.mode;
  q.scale = &t_scale;
  q.scale_inv = &t_si;
  q.amax = &t_amax;
  q.columnwise_data = &t_cw;
  q.columnwise_scale_inv = &t_csi;
  t_out.quant = &q;
  TeplugQuantizeArgs a = sdk::Versioned<TeplugQuantizeArgs>();
  a.input = &t_in;
  a.output = &t_out;
  a.recipe = c.current ? TEPLUG_RECIPE_CURRENT : TEPLUG_RECIPE_DELAYED;
  a.amax_epsilon = mx ? 0.0f : kEpsilon;
  a.force_pow2_scales = Pow2(c.mode) ? 1 : 0;
  a.rowwise = c.rowwise ? 1 : 0;
  a.columnwise = c.columnwise ? 1 : 0;
  a.mx_scale_rule = c.te_rule ? TEPLUG_MX_SCALE_TRANSFORMER_ENGINE : TEPLUG_MX_SCALE_OCP;
  a.stream = stream;

  if (before_call) before_call(a);
  ASSERT_EQ(Failure(quantizer->vtbl->quantize(quantizer, &a)), "");
  memory.Synchronize(stream);

  if (c.rowwise) {
    EXPECT_EQ(Mismatch(codes.Download<uint8_t>(n), want.data), "") << "row-wise codes";
    EXPECT_EQ(Mismatch(scale_inv.Download<uint8_t>(want.scale_inv.size()), want.scale_inv), "")
        << "row-wise scales";
  }
  if (c.columnwise) {
    EXPECT_EQ(Mismatch(columnwise_codes.Download<uint8_t>(n), want.columnwise_data), "")
        << "column-wise codes";
    EXPECT_EQ(Mismatch(columnwise_scale_inv.Download<uint8_t>(want.columnwise_scale_inv.size()),
                       want.columnwise_scale_inv),
              "")
        << "column-wise scales";
  }
  EXPECT_TRUE(SameValue(want.amax, amax.Download<float>(1)[0]));
  if (c.mode == TEPLUG_SCALING_PER_TENSOR) {
    EXPECT_TRUE(SameValue(c.current ? want.scale : kDelayedScale, scale.Download<float>(1)[0]));
  }

  // Dequantize the row-wise codes into fp32 and bf16.
  if (!c.rowwise) return;
  for (int32_t out_dtype : {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_BF16}) {
    Buffer values(memory, n * 4);
    TeplugTensor t_values = TensorOf(values.p, out_dtype, {c.rows, c.cols}, &cuda);
    TeplugDequantizeArgs d = sdk::Versioned<TeplugDequantizeArgs>();
    d.input = &t_out;
    d.output = &t_values;
    d.stream = stream;
    ASSERT_EQ(Failure(quantizer->vtbl->dequantize(quantizer, &d)), "");
    memory.Synchronize(stream);
    size_t mismatches = 0;
    if (out_dtype == TEPLUG_DTYPE_FP32) {
      const std::vector<float> got = values.Download<float>(n);
      for (size_t i = 0; i < n; ++i) mismatches += SameValue(want.dequantized[i], got[i]) ? 0 : 1;
    } else {
      const std::vector<uint16_t> got = values.Download<uint16_t>(n);
      for (size_t i = 0; i < n; ++i) {
        mismatches += SameValue(ref::DecodeBf16(ref::EncodeBf16(want.dequantized[i])),
                                ref::DecodeBf16(got[i]))
                          ? 0
                          : 1;
      }
    }
    EXPECT_EQ(mismatches, 0u) << "dequantize into " << sdk::DTypeName(out_dtype);
  }
}

}  // namespace teplug::native::quantize::testing
