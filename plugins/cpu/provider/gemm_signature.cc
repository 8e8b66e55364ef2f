#include "plugins/cpu/provider/gemm_signature.h"

#include <cstring>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "plugins/cpu/provider/host_tensor.h"
#include "teplug/sdk/names.hpp"

namespace teplug::cpu::provider {
namespace {

constexpr uint64_t kServedDTypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32) |
                                   TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP16) |
                                   TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
// What A and B may be beyond kServedDTypes: fp8 with row-wise scales.
constexpr uint64_t kQuantizedDTypes =
    TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E5M2);

// Extents or strides of a GEMM tensor (rank 2 or 1: no allocation).
using Extents = absl::InlinedVector<int64_t, 2>;

std::string Dims(const Extents& v) { return absl::StrCat("[", absl::StrJoin(v, ", "), "]"); }

// A checked TeplugTensor: the fields the GEMM uses, strides filled in.
struct CheckedTensor {
  absl::string_view name;  // a literal: "TeplugGemmArgs.a"
  void* data = nullptr;
  int32_t dtype = 0;
  Extents shape, strides;
  int32_t scaling = 0;                 // fp8 operands: the TeplugScalingMode
  const void* scale_inv = nullptr;     // fp8 operands: its data
};

int64_t CeilDiv(int64_t x, int64_t y) { return (x + y - 1) / y; }

// The row-wise scales of an fp8 operand `t` (rows x cols as stored):
// quant, its mode, and scale_inv of the dtype and shape the mode gives
// (types.h), contiguous, in host memory.
absl::Status CheckScales(const TeplugTensor& tensor, absl::string_view name, CheckedTensor* c) {
  const TeplugQuantization* q = tensor.quant;
  if (q == nullptr) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s is %s but has no quant: a quantized operand is read as code * quant->scale_inv",
        name, sdk::DTypeName(c->dtype)));
  }
  if (q->struct_size < TEPLUG_STRUCT_SIZE(TeplugQuantization, scale_inv)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.quant->struct_size %d is too small to hold scale_inv", name, q->struct_size));
  }
  if (q->mode <= TEPLUG_SCALING_NONE || q->mode >= TEPLUG_SCALING_COUNT_) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.quant->mode %d: a quantized operand needs a scaling mode (per_tensor, mxfp8_1d32, "
        "block_1d128 or block_2d128)",
        name, q->mode));
  }
  if (q->scale_inv == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ".quant->scale_inv is NULL: a quantized operand is read as code * scale_inv"));
  }
  const std::string scale_name = absl::StrCat(name, ".quant->scale_inv");
  absl::StatusOr<HostTensor> read = ReadHostTensor(q->scale_inv, scale_name);
  if (!read.ok()) return read.status();
  const int64_t rows = c->shape[0], cols = c->shape[1];
  const bool mx = q->mode == TEPLUG_SCALING_MXFP8_1D32;
  const int32_t want_dtype = mx ? TEPLUG_DTYPE_E8M0 : TEPLUG_DTYPE_FP32;
  if (read->fields.dtype != want_dtype) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.dtype %s: %s scales are %s", scale_name,
                        sdk::DTypeName(read->fields.dtype), sdk::ScalingName(q->mode),
                        sdk::DTypeName(want_dtype)));
  }
  Extents want;
  switch (q->mode) {
    case TEPLUG_SCALING_PER_TENSOR:
      want = {1};
      break;
    case TEPLUG_SCALING_MXFP8_1D32:
      want = {rows, CeilDiv(cols, 32)};
      break;
    case TEPLUG_SCALING_BLOCK_1D128:
      want = {rows, CeilDiv(cols, 128)};
      break;
    default:  // block_2d128
      want = {CeilDiv(rows, 128), CeilDiv(cols, 128)};
      break;
  }
  int64_t want_elements = 1;
  for (int64_t e : want) want_elements *= e;
  const bool shape_ok = q->mode == TEPLUG_SCALING_PER_TENSOR
                            ? read->elements == 1
                            : Extents(read->shape.begin(), read->shape.end()) == want;
  if (!shape_ok) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: shape %s but %s scales of a [%d, %d] operand are %s", scale_name,
        DimsString(read->shape), sdk::ScalingName(q->mode), rows, cols, Dims(want)));
  }
  // Contiguous: each stride the product of the extents after it (extents of
  // 1 may have any stride).
  int64_t dense = 1;
  for (int i = static_cast<int>(read->shape.size()) - 1; i >= 0; --i) {
    if (read->shape[i] != 1 && read->strides[i] != dense) {
      return absl::UnimplementedError(absl::StrCat(
          scale_name, ": strides ", DimsString(read->strides),
          " are not contiguous; the cpu provider reads scales contiguous only"));
    }
    dense *= read->shape[i];
  }
  if (want_elements > 0 && read->fields.data == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(scale_name, ".data is NULL"));
  }
  c->scaling = q->mode;
  c->scale_inv = read->fields.data;
  return absl::OkStatus();
}

// `matrix`: the tensor must be rank 2 (every GEMM tensor but the bias, whose
// shape [N] is checked by the caller).
// `operand`: A or B, which may be fp8 with row-wise scales.
absl::StatusOr<CheckedTensor> Check(const TeplugTensor* tensor, absl::string_view name,
                                    bool matrix = true, bool operand = false) {
  absl::StatusOr<HostTensor> read = ReadHostTensor(tensor, name);
  if (!read.ok()) return read.status();
  const TeplugTensor& t = read->fields;
  if (matrix && t.rank != 2) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: rank %d but GEMM operands are rank-2 matrices", name, t.rank));
  }
  CheckedTensor c;
  c.name = name;
  c.data = t.data;
  c.dtype = t.dtype;
  c.shape.assign(read->shape.begin(), read->shape.end());
  c.strides.assign(read->strides.begin(), read->strides.end());
  const int64_t elements = read->elements;
  if (elements > 0 && c.data == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.data is NULL but the tensor has %d elements", name, elements));
  }
  const bool quantized = operand && (TEPLUG_DTYPE_BIT(c.dtype) & kQuantizedDTypes) != 0;
  if ((TEPLUG_DTYPE_BIT(c.dtype) & kServedDTypes) == 0 && !quantized) {
    return absl::UnimplementedError(absl::StrFormat(
        "%s.dtype %s: the cpu provider serves fp32, fp16 and bf16 here%s", name,
        sdk::DTypeName(c.dtype), operand ? " (and fp8_e4m3, fp8_e5m2 with scales)" : ""));
  }
  if (quantized) {
    if (absl::Status st = CheckScales(t, name, &c); !st.ok()) return st;
    if (c.strides[1] != 1 || c.strides[0] != c.shape[1]) {
      return absl::UnimplementedError(absl::StrCat(
          name, ": strides ", Dims(c.strides), " for shape ", Dims(c.shape),
          ": the cpu provider reads quantized operands contiguous only"));
    }
  } else if (t.quant != nullptr) {
    return absl::UnimplementedError(absl::StrCat(
        name, ".quant is set on a ", sdk::DTypeName(c.dtype),
        " tensor: the cpu provider serves quant on fp8 A and B only"));
  }
  for (int i = 0; i < t.rank; ++i) {
    if (c.strides[i] < 0) {
      return absl::UnimplementedError(
          absl::StrFormat("%s.strides[%d] is %d: the cpu provider serves positive strides only",
                          name, i, c.strides[i]));
    }
  }
  return c;
}

absl::StatusOr<std::optional<CheckedTensor>> CheckOptional(const TeplugTensor* tensor,
                                                           absl::string_view name,
                                                           bool matrix = true) {
  if (tensor == nullptr) return std::optional<CheckedTensor>();
  absl::StatusOr<CheckedTensor> c = Check(tensor, name, matrix);
  if (!c.ok()) return c.status();
  return std::optional<CheckedTensor>(*std::move(c));
}

absl::Status RequireShape(const CheckedTensor& t, const Extents& expected, const char* what) {
  if (t.shape == expected) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(t.name, ": shape ", Dims(t.shape), " but ", what, " ", Dims(expected)));
}

StoredMatrix Stored(const CheckedTensor& t) {
  StoredMatrix s;
  s.dtype = t.dtype;
  s.scaling = t.scaling;
  if (t.shape.size() == 1) {  // bias [N] as [1, N]
    s.rows = 1;
    s.cols = t.shape[0];
    s.col_stride = t.strides[0];
    s.row_stride = s.cols * s.col_stride;
  } else {
    s.rows = t.shape[0];
    s.cols = t.shape[1];
    s.row_stride = t.strides[0];
    s.col_stride = t.strides[1];
  }
  // A single row's stride never matters: make it the dense one, so equal
  // layouts get equal keys.
  if (s.rows <= 1) s.row_stride = s.cols * s.col_stride;
  if (s.cols <= 1) s.col_stride = 1;
  return s;
}

std::string MatrixText(const StoredMatrix& s) {
  return absl::StrCat(sdk::DTypeName(s.dtype), s.quantized() ? "/" : "",
                      s.quantized() ? sdk::ScalingName(s.scaling) : "", "[", s.rows, "x", s.cols,
                      ":", s.row_stride, ",", s.col_stride, "]");
}

int64_t ElementBytes(int32_t dtype) {
  switch (dtype) {
    case TEPLUG_DTYPE_FP32:
      return 4;
    case TEPLUG_DTYPE_FP16:
    case TEPLUG_DTYPE_BF16:
      return 2;
    default:
      return 1;  // fp8
  }
}

// Whether the bytes two stored matrices span intersect (empty ones never do).
bool Overlap(const void* x, const StoredMatrix& xs, const void* y, const StoredMatrix& ys) {
  auto span = [](const void* data, const StoredMatrix& s) {
    const uintptr_t begin = reinterpret_cast<uintptr_t>(data);
    if (s.rows == 0 || s.cols == 0) return std::pair<uintptr_t, uintptr_t>(begin, begin);
    const int64_t last = (s.rows - 1) * s.row_stride + (s.cols - 1) * s.col_stride;
    const int64_t element = ElementBytes(s.dtype);
    return std::pair<uintptr_t, uintptr_t>(begin, begin + (last + 1) * element);
  };
  const auto [x0, x1] = span(x, xs);
  const auto [y0, y1] = span(y, ys);
  return x0 < x1 && y0 < y1 && x0 < y1 && y0 < x1;
}

bool SameLayout(const StoredMatrix& x, const StoredMatrix& y) {
  return x.dtype == y.dtype && x.scaling == y.scaling && x.rows == y.rows && x.cols == y.cols &&
         x.row_stride == y.row_stride && x.col_stride == y.col_stride;
}

#define TEPLUG_CPU_RETURN_IF_ERROR(expr)                                \
  do {                                                                  \
    if (::absl::Status status_ = (expr); !status_.ok()) return status_; \
  } while (0)

}  // namespace

bool StoredMatrix::IsRowMajorDense() const { return col_stride == 1 && row_stride >= cols; }

namespace {

// Appends the bytes of `value` (a trivially copyable field) to `key`.
template <class T>
void AppendBytes(std::string* key, const T& value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  key->append(bytes, sizeof(T));
}

void AppendMatrix(std::string* key, const std::optional<StoredMatrix>& s) {
  AppendBytes(key, s.has_value());
  if (!s) return;
  for (int64_t field : {int64_t{s->dtype}, int64_t{s->scaling}, s->rows, s->cols, s->row_stride,
                        s->col_stride})
    AppendBytes(key, field);
}

}  // namespace

std::string GemmSignature::Key() const {
  // Fixed-size binary fields in a fixed order: one allocation, and equal
  // keys exactly for equal signatures.
  std::string key;
  key.reserve(256);
  for (int64_t dim : {m, n, k}) AppendBytes(&key, dim);
  for (bool flag : {trans_a, trans_b, c_from_d, c_overlaps_d, gelu}) AppendBytes(&key, flag);
  AppendBytes(&key, alpha);
  AppendBytes(&key, beta);
  for (const StoredMatrix* matrix : {&a, &b, &d}) AppendMatrix(&key, *matrix);
  for (const std::optional<StoredMatrix>* matrix : {&c, &bias, &pre_gelu})
    AppendMatrix(&key, *matrix);
  return key;
}

std::string GemmSignature::Describe() const {
  std::string text = absl::StrCat("m=", m, " n=", n, " k=", k, " trans_a=", int{trans_a},
                                  " trans_b=", int{trans_b}, " a=", MatrixText(a),
                                  " b=", MatrixText(b), " d=", MatrixText(d));
  absl::StrAppend(&text, " c=", c ? MatrixText(*c) : (c_from_d ? "d" : "none"),
                  c_overlaps_d ? " (overlapping d)" : "");
  absl::StrAppendFormat(&text, " alpha=%g beta=%g", alpha, beta);
  absl::StrAppend(&text, " bias=", bias ? MatrixText(*bias) : "none", " gelu=", int{gelu},
                  " pre_gelu_out=", pre_gelu ? MatrixText(*pre_gelu) : "none");
  return text;
}

absl::StatusOr<GemmCall> ReadGemmCall(const TeplugGemmArgs& args) {
  absl::StatusOr<CheckedTensor> a = Check(args.a, "TeplugGemmArgs.a", true, /*operand=*/true);
  if (!a.ok()) return a.status();
  absl::StatusOr<CheckedTensor> b = Check(args.b, "TeplugGemmArgs.b", true, /*operand=*/true);
  if (!b.ok()) return b.status();
  absl::StatusOr<CheckedTensor> d = Check(args.d, "TeplugGemmArgs.d");
  if (!d.ok()) return d.status();
  absl::StatusOr<std::optional<CheckedTensor>> c = CheckOptional(args.c, "TeplugGemmArgs.c");
  if (!c.ok()) return c.status();
  absl::StatusOr<std::optional<CheckedTensor>> bias =
      CheckOptional(args.bias, "TeplugGemmArgs.bias", /*matrix=*/false);
  if (!bias.ok()) return bias.status();
  absl::StatusOr<std::optional<CheckedTensor>> pre =
      CheckOptional(args.pre_gelu_out, "TeplugGemmArgs.pre_gelu_out");
  if (!pre.ok()) return pre.status();

  GemmCall call;
  GemmSignature& s = call.signature;
  s.trans_a = args.trans_a != 0;
  s.trans_b = args.trans_b != 0;
  s.m = s.trans_a ? a->shape[1] : a->shape[0];
  s.k = s.trans_a ? a->shape[0] : a->shape[1];
  const int64_t kb = s.trans_b ? b->shape[1] : b->shape[0];
  s.n = s.trans_b ? b->shape[0] : b->shape[1];
  if (kb != s.k) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "TeplugGemmArgs.b: shape %s (trans_b %d) gives op(B) [%d, %d] but op(A) is [%d, %d]: "
        "the inner dimensions differ",
        Dims(b->shape), args.trans_b, kb, s.n, s.m, s.k));
  }
  TEPLUG_CPU_RETURN_IF_ERROR(RequireShape(*d, {s.m, s.n}, "op(A) op(B) is"));
  if (args.epilogue != TEPLUG_EPILOGUE_NONE && args.epilogue != TEPLUG_EPILOGUE_GELU) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "TeplugGemmArgs.epilogue %d is not a TeplugGemmEpilogue (none 0, gelu 1)", args.epilogue));
  }
  s.gelu = args.epilogue == TEPLUG_EPILOGUE_GELU;
  if (pre->has_value() && !s.gelu) {
    return absl::InvalidArgumentError(
        "TeplugGemmArgs.pre_gelu_out is set but epilogue is none; it receives the pre-GELU "
        "result of the gelu epilogue only");
  }
  if (c->has_value() && !args.accumulate) {
    TEPLUG_CPU_RETURN_IF_ERROR(RequireShape(**c, {s.m, s.n}, "D is"));
  }
  if (bias->has_value()) {
    TEPLUG_CPU_RETURN_IF_ERROR(
        RequireShape(**bias, {s.n}, "bias is added to every row of D, so it is"));
  }
  if (pre->has_value()) TEPLUG_CPU_RETURN_IF_ERROR(RequireShape(**pre, {s.m, s.n}, "D is"));
  if (s.k == 0) {
    return absl::UnimplementedError(absl::StrFormat(
        "TeplugGemmArgs.a: shape %s gives k = 0 (an empty inner dimension), which the cpu "
        "provider does not serve",
        Dims(a->shape)));
  }

  s.a = Stored(*a);
  s.b = Stored(*b);
  s.d = Stored(*d);
  s.alpha = args.alpha;
  call.buffers.a = a->data;
  call.buffers.b = b->data;
  call.buffers.a_scale_inv = a->scale_inv;
  call.buffers.b_scale_inv = b->scale_inv;
  call.buffers.d = d->data;
  if (args.accumulate) {  // gemm.h: C is D and beta = 1; c and beta are ignored
    s.c_from_d = true;
    s.beta = 1.f;
  } else if (c->has_value()) {
    const StoredMatrix stored_c = Stored(**c);
    if ((*c)->data == d->data && SameLayout(stored_c, s.d)) {
      s.c_from_d = true;
    } else {
      s.c = stored_c;
      call.buffers.c = (*c)->data;
    }
    s.beta = args.beta;
  }
  if (bias->has_value()) {
    s.bias = Stored(**bias);
    call.buffers.bias = (*bias)->data;
  }
  if (pre->has_value()) {
    s.pre_gelu = Stored(**pre);
    call.buffers.pre_gelu = (*pre)->data;
  }
  // The matmul writes its outputs while it reads its inputs: they must not
  // share memory. A C that overlaps D without being D is read into the fp32
  // result before D is written (GemmPlan).
  const GemmBuffers& buf = call.buffers;
  struct Named {
    const char* name;
    const void* data;
    const std::optional<StoredMatrix> stored;
  };
  const Named outputs[] = {{"d", buf.d, s.d}, {"pre_gelu_out", buf.pre_gelu, s.pre_gelu}};
  const Named inputs[] = {{"a", buf.a, s.a},
                          {"b", buf.b, s.b},
                          {"bias", buf.bias, s.bias},
                          {"pre_gelu_out", buf.pre_gelu, s.pre_gelu}};
  for (const Named& out : outputs) {
    if (!out.stored) continue;
    for (const Named& in : inputs) {
      if (!in.stored || std::strcmp(in.name, out.name) == 0) continue;
      if (Overlap(out.data, *out.stored, in.data, *in.stored)) {
        return absl::UnimplementedError(absl::StrCat(
            "TeplugGemmArgs.", out.name, " overlaps TeplugGemmArgs.", in.name,
            " in memory: the cpu provider writes ", out.name, " while it reads ", in.name));
      }
    }
  }
  s.c_overlaps_d = s.c.has_value() && Overlap(buf.c, *s.c, buf.d, s.d);
  return call;
}

}  // namespace teplug::cpu::provider
