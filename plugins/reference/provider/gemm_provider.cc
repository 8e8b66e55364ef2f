#include "plugins/reference/provider/gemm_provider.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "plugins/reference/kernels/gemm_reference.h"
#include "plugins/reference/provider/status_bridge.h"
#include "plugins/reference/provider/tensor_io.h"
#include "plugins/reference/provider/tensor_view.h"
#include "teplug/sdk/names.hpp"

namespace teplug::reference::provider {
namespace {

absl::Status RequireRank2(const TensorView& t) {
  if (t.shape.size() == 2) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s: rank %d (shape %s) but GEMM operands are rank-2 matrices", t.name, t.shape.size(),
      ShapeString(t.shape)));
}

class ReferenceGemm : public sdk::GemmImpl {
 public:
  bool Supports(const TeplugGemmArgs& args, std::string* reason) override {
    if (args.accumulate && args.d != nullptr &&
        (TEPLUG_DTYPE_BIT(args.d->dtype) & kFp8DTypes) != 0) {
      *reason = "accumulate into an fp8 D (" + std::string(sdk::DTypeName(args.d->dtype)) +
                ") is not supported: D's old codes have no trustworthy scale";
      return false;
    }
    return true;
  }
  void Gemm(const TeplugGemmArgs& args) override { ThrowIfError(RunReferenceGemm(args)); }
};

}  // namespace

absl::Status RunReferenceGemm(const TeplugGemmArgs& args) {
  absl::StatusOr<TensorView> a = ViewTensor(args.a, "TeplugGemmArgs.a");
  if (!a.ok()) return a.status();
  absl::StatusOr<TensorView> b = ViewTensor(args.b, "TeplugGemmArgs.b");
  if (!b.ok()) return b.status();
  absl::StatusOr<TensorView> d = ViewTensor(args.d, "TeplugGemmArgs.d");
  if (!d.ok()) return d.status();
  absl::StatusOr<std::optional<TensorView>> c = ViewOptionalTensor(args.c, "TeplugGemmArgs.c");
  if (!c.ok()) return c.status();
  absl::StatusOr<std::optional<TensorView>> bias =
      ViewOptionalTensor(args.bias, "TeplugGemmArgs.bias");
  if (!bias.ok()) return bias.status();
  absl::StatusOr<std::optional<TensorView>> pre_gelu =
      ViewOptionalTensor(args.pre_gelu_out, "TeplugGemmArgs.pre_gelu_out");
  if (!pre_gelu.ok()) return pre_gelu.status();

  const uint64_t operand_dtypes = kHighPrecisionDTypes | kScaledDTypes;
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireRank2(*a));
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireRank2(*b));
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireRank2(*d));
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireDType(*a, operand_dtypes, "GEMM operands must be"));
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireDType(*b, operand_dtypes, "GEMM operands must be"));
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireDType(*d, kWritableDTypes, "D must be"));

  const int64_t m = args.trans_a ? a->shape[1] : a->shape[0];
  const int64_t k = args.trans_a ? a->shape[0] : a->shape[1];
  const int64_t kb = args.trans_b ? b->shape[1] : b->shape[0];
  const int64_t n = args.trans_b ? b->shape[0] : b->shape[1];
  if (kb != k) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "TeplugGemmArgs.b: shape %s (trans_b %d) gives op(B) [%d, %d] but op(A) is [%d, %d]: "
        "the inner dimensions differ",
        ShapeString(b->shape), args.trans_b, kb, n, m, k));
  }
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireShape(*d, {m, n}, "op(A) op(B) is"));
  if (args.epilogue != TEPLUG_EPILOGUE_NONE && args.epilogue != TEPLUG_EPILOGUE_GELU) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "TeplugGemmArgs.epilogue %d is not a TeplugGemmEpilogue (none 0, gelu 1)", args.epilogue));
  }
  const bool gelu = args.epilogue == TEPLUG_EPILOGUE_GELU;
  if (pre_gelu->has_value() && !gelu) {
    return absl::InvalidArgumentError(
        "TeplugGemmArgs.pre_gelu_out is set but epilogue is none; it receives the pre-GELU "
        "result of the gelu epilogue only");
  }
  if (args.accumulate) c->reset();  // gemm.h: C is D; c and beta are ignored
  if (args.accumulate && (TEPLUG_DTYPE_BIT(d->dtype) & kFp8DTypes) != 0) {
    return absl::UnimplementedError(absl::StrCat(
        "TeplugGemmArgs.accumulate with an ", sdk::DTypeName(d->dtype),
        " D is not supported by the reference provider"));
  }
  if (c->has_value()) {
    TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireRank2(**c));
    TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireShape(**c, {m, n}, "D is"));
  }
  if (bias->has_value()) {
    TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireShape(**bias, {n}, "bias is added to every row of D, so it is"));
  }
  if (pre_gelu->has_value()) {
    TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireShape(**pre_gelu, {m, n}, "D is"));
    TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireDType(**pre_gelu, kWritableDTypes, "pre_gelu_out must be"));
  }

  absl::StatusOr<std::vector<double>> a_values = ReadValues(*a);
  if (!a_values.ok()) return a_values.status();
  absl::StatusOr<std::vector<double>> b_values = ReadValues(*b);
  if (!b_values.ok()) return b_values.status();
  // With accumulate the kernel reads D's old contents from d itself (C is D).
  std::vector<double> c_values, d_values, bias_values;
  double beta = args.beta;
  if (args.accumulate) {
    absl::StatusOr<std::vector<double>> old = ReadValues(*d);
    if (!old.ok()) return old.status();
    d_values = *std::move(old);
    beta = 1.0;
  } else if (c->has_value()) {
    absl::StatusOr<std::vector<double>> read = ReadValues(**c);
    if (!read.ok()) return read.status();
    c_values = *std::move(read);
  } else {
    beta = 0.0;  // no C term: beta is ignored
  }
  if (bias->has_value()) {
    absl::StatusOr<std::vector<double>> read = ReadValues(**bias);
    if (!read.ok()) return read.status();
    bias_values = *std::move(read);
  }

  GemmOptions options;
  options.m = m;
  options.n = n;
  options.k = k;
  options.transpose_a = args.trans_a != 0;
  options.transpose_b = args.trans_b != 0;
  options.alpha = args.alpha;
  options.beta = beta;
  options.bias = bias->has_value() ? bias_values.data() : nullptr;
  options.gelu = gelu;
  options.accumulate = args.accumulate != 0;
  d_values.resize(static_cast<size_t>(m * n));  // no-op when accumulate read it
  std::vector<double> pre_values(gelu ? static_cast<size_t>(m * n) : 0);
  // Stored matrices are dense row-major copies: stored [rows, cols].
  const ConstMatrixView a_view{a_values->data(), a->shape[1], 1};
  const ConstMatrixView b_view{b_values->data(), b->shape[1], 1};
  const ConstMatrixView c_view{c_values.empty() ? nullptr : c_values.data(), n, 1};
  const MatrixView d_view{d_values.data(), n, 1};
  const MatrixView pre_view{gelu ? pre_values.data() : nullptr, n, 1};
  absl::Status computed = GemmReference(options, a_view, b_view, c_view, d_view, pre_view);
  if (!computed.ok()) {
    return absl::Status(computed.code(), absl::StrCat("IGemm reference: ", computed.message()));
  }
  if (pre_gelu->has_value()) TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteValues(**pre_gelu, pre_values));
  return WriteValues(*d, d_values);
}

std::unique_ptr<sdk::GemmImpl> NewReferenceGemm() { return std::make_unique<ReferenceGemm>(); }

}  // namespace teplug::reference::provider
