#include "plugins/reference/provider/norm_provider.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "plugins/reference/kernels/norm_reference.h"
#include "plugins/reference/provider/norm_output.h"
#include "plugins/reference/provider/status_bridge.h"
#include "plugins/reference/provider/tensor_io.h"
#include "plugins/reference/provider/tensor_view.h"
#include "teplug/sdk/names.hpp"

namespace teplug::reference::provider {
namespace {

constexpr char kFwd[] = "TeplugNormFwdArgs";
constexpr char kBwd[] = "TeplugNormBwdArgs";

absl::StatusOr<NormKind> KindOf(int32_t norm_type, const char* args) {
  if (norm_type == TEPLUG_NORM_LAYERNORM) return NormKind::kLayerNorm;
  if (norm_type == TEPLUG_NORM_RMSNORM) return NormKind::kRmsNorm;
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s.norm_type %d is not a TeplugNormType (layernorm 0, rmsnorm 1)", args, norm_type));
}

// The input x: high precision, rank >= 1, a hidden size of at least 1.
absl::StatusOr<TensorView> ViewInput(const TeplugTensor* t, const std::string& name) {
  absl::StatusOr<TensorView> v = ViewTensor(t, name);
  if (!v.ok()) return v.status();
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireDType(*v, kHighPrecisionDTypes, "norm inputs must be"));
  if (v->shape.empty() || v->shape.back() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": shape ", ShapeString(v->shape),
                     " but a norm input needs rank >= 1 and a last (hidden) dimension >= 1"));
  }
  return v;
}

// A required or optional high-precision tensor of exactly `shape`.
absl::StatusOr<std::optional<TensorView>> ViewShaped(const TeplugTensor* t, const std::string& name,
                                                     const std::vector<int64_t>& shape,
                                                     const std::string& shape_what, uint64_t dtypes,
                                                     bool required) {
  if (t == nullptr) {
    if (!required) return std::optional<TensorView>();
    return absl::InvalidArgumentError(absl::StrCat(name, " is NULL but it is required"));
  }
  absl::StatusOr<TensorView> v = ViewTensor(t, name);
  if (!v.ok()) return v.status();
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireShape(*v, shape, shape_what));
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireDType(*v, dtypes, "it must be"));
  return std::optional<TensorView>(*std::move(v));
}

// RMSNorm has no mean and no beta: a tensor given for one is a caller mistake.
absl::Status RequireAbsentForRms(NormKind kind, const TeplugTensor* t, const std::string& name) {
  if (kind == NormKind::kLayerNorm || t == nullptr) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(name, " is set but norm_type is rmsnorm, which has none; pass NULL"));
}

const uint64_t kFp32 = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32);

absl::Status WriteOptional(const std::optional<TensorView>& t, const std::vector<double>& values) {
  return t ? WriteValues(*t, values) : absl::OkStatus();
}

class ReferenceNorm : public sdk::NormImpl {
 public:
  void Forward(const TeplugNormFwdArgs& args) override {
    ThrowIfError(RunReferenceNormForward(args));
  }
  void Backward(const TeplugNormBwdArgs& args) override {
    ThrowIfError(RunReferenceNormBackward(args));
  }
};

}  // namespace

absl::Status RunReferenceNormForward(const TeplugNormFwdArgs& args) {
  const std::string n = kFwd;
  absl::StatusOr<NormKind> kind = KindOf(args.norm_type, kFwd);
  if (!kind.ok()) return kind.status();
  const bool ln = *kind == NormKind::kLayerNorm;
  if (!std::isfinite(args.epsilon) || args.epsilon < 0.0f) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.epsilon is %g; it must be finite and >= 0", kFwd, args.epsilon));
  }
  absl::StatusOr<TensorView> x = ViewInput(args.x, n + ".x");
  if (!x.ok()) return x.status();
  const int64_t rows = x->rows(), hidden = x->cols();
  const std::string hidden_what = absl::StrCat("x's hidden size is ", hidden, ", so it must be");
  const std::string rows_what = absl::StrCat("x has ", rows, " rows, so it must be");
  absl::StatusOr<std::optional<TensorView>> gamma =
      ViewShaped(args.gamma, n + ".gamma", {hidden}, hidden_what, kHighPrecisionDTypes, true);
  if (!gamma.ok()) return gamma.status();
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireAbsentForRms(*kind, args.beta, n + ".beta"));
  absl::StatusOr<std::optional<TensorView>> beta =
      ViewShaped(args.beta, n + ".beta", {hidden}, hidden_what, kHighPrecisionDTypes, ln);
  if (!beta.ok()) return beta.status();
  if (ln) {  // as TransformerEngine requires
    TEPLUG_REFERENCE_RETURN_IF_ERROR(
        RequireDType(**beta, TEPLUG_DTYPE_BIT((*gamma)->dtype), "it must have gamma's dtype"));
  }
  absl::StatusOr<TensorView> y = ViewTensor(args.y, n + ".y");
  if (!y.ok()) return y.status();
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireShape(*y, x->shape, "x is"));
  absl::StatusOr<NormOutputTarget> target = CheckNormOutput(*y, rows, hidden);
  if (!target.ok()) return target.status();
  // OCP from a v1.0-v1.2 caller, whose struct ends before the field.
  const int32_t rule = TEPLUG_FIELD_OR(args, TeplugNormFwdArgs, mx_scale_rule, TEPLUG_MX_SCALE_OCP);
  if (rule != TEPLUG_MX_SCALE_OCP && rule != TEPLUG_MX_SCALE_TRANSFORMER_ENGINE) {
    return absl::InvalidArgumentError(
        absl::StrCat(n, ".mx_scale_rule ", rule, " is not a TeplugMxScaleRule"));
  }
  target->mx_rule = rule == TEPLUG_MX_SCALE_TRANSFORMER_ENGINE ? MxScaleRule::kTransformerEngine
                                                               : MxScaleRule::kOcpSpec;
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireAbsentForRms(*kind, args.mu, n + ".mu"));
  absl::StatusOr<std::optional<TensorView>> mu =
      ViewShaped(args.mu, n + ".mu", {rows}, rows_what, kFp32, false);
  if (!mu.ok()) return mu.status();
  absl::StatusOr<std::optional<TensorView>> rsigma =
      ViewShaped(args.rsigma, n + ".rsigma", {rows}, rows_what, kFp32, false);
  if (!rsigma.ok()) return rsigma.status();

  absl::StatusOr<std::vector<double>> x_values = ReadValues(*x);
  if (!x_values.ok()) return x_values.status();
  absl::StatusOr<std::vector<double>> gamma_values = ReadValues(**gamma);
  if (!gamma_values.ok()) return gamma_values.status();
  std::vector<double> beta_values;
  if (ln) {
    absl::StatusOr<std::vector<double>> read = ReadValues(**beta);
    if (!read.ok()) return read.status();
    beta_values = *std::move(read);
  }
  const NormProblem problem{*kind, rows, hidden, args.zero_centered_gamma != 0};
  absl::StatusOr<NormForwardResult> out =
      NormForward(problem, *x_values, *gamma_values, beta_values, args.epsilon);
  if (!out.ok()) return out.status();
  TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteNormOutput(*target, out->y, rows, hidden));
  TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteOptional(*mu, out->mu));
  return WriteOptional(*rsigma, out->rsigma);
}

absl::Status RunReferenceNormBackward(const TeplugNormBwdArgs& args) {
  const std::string n = kBwd;
  absl::StatusOr<NormKind> kind = KindOf(args.norm_type, kBwd);
  if (!kind.ok()) return kind.status();
  const bool ln = *kind == NormKind::kLayerNorm;
  absl::StatusOr<TensorView> x = ViewInput(args.x, n + ".x");
  if (!x.ok()) return x.status();
  const int64_t rows = x->rows(), hidden = x->cols();
  const std::string hidden_what = absl::StrCat("x's hidden size is ", hidden, ", so it must be");
  const std::string rows_what = absl::StrCat("x has ", rows, " rows, so it must be");
  const std::string x_what = "x is";
  absl::StatusOr<std::optional<TensorView>> dy =
      ViewShaped(args.dy, n + ".dy", x->shape, x_what, kHighPrecisionDTypes, true);
  if (!dy.ok()) return dy.status();
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireAbsentForRms(*kind, args.mu, n + ".mu"));
  absl::StatusOr<std::optional<TensorView>> mu =
      ViewShaped(args.mu, n + ".mu", {rows}, rows_what, kFp32, ln);
  if (!mu.ok()) return mu.status();
  absl::StatusOr<std::optional<TensorView>> rsigma =
      ViewShaped(args.rsigma, n + ".rsigma", {rows}, rows_what, kFp32, true);
  if (!rsigma.ok()) return rsigma.status();
  absl::StatusOr<std::optional<TensorView>> gamma =
      ViewShaped(args.gamma, n + ".gamma", {hidden}, hidden_what, kHighPrecisionDTypes, true);
  if (!gamma.ok()) return gamma.status();
  absl::StatusOr<std::optional<TensorView>> dx =
      ViewShaped(args.dx, n + ".dx", x->shape, x_what, kHighPrecisionDTypes, true);
  if (!dx.ok()) return dx.status();
  absl::StatusOr<std::optional<TensorView>> dgamma =
      ViewShaped(args.dgamma, n + ".dgamma", {hidden}, hidden_what, kHighPrecisionDTypes, true);
  if (!dgamma.ok()) return dgamma.status();
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireAbsentForRms(*kind, args.dbeta, n + ".dbeta"));
  absl::StatusOr<std::optional<TensorView>> dbeta =
      ViewShaped(args.dbeta, n + ".dbeta", {hidden}, hidden_what, kHighPrecisionDTypes, ln);
  if (!dbeta.ok()) return dbeta.status();

  // Every input is read before any output is written, so outputs may alias inputs.
  absl::StatusOr<std::vector<double>> dy_values = ReadValues(**dy);
  if (!dy_values.ok()) return dy_values.status();
  absl::StatusOr<std::vector<double>> x_values = ReadValues(*x);
  if (!x_values.ok()) return x_values.status();
  std::vector<double> mu_values;
  if (ln) {
    absl::StatusOr<std::vector<double>> read = ReadValues(**mu);
    if (!read.ok()) return read.status();
    mu_values = *std::move(read);
  }
  absl::StatusOr<std::vector<double>> rsigma_values = ReadValues(**rsigma);
  if (!rsigma_values.ok()) return rsigma_values.status();
  absl::StatusOr<std::vector<double>> gamma_values = ReadValues(**gamma);
  if (!gamma_values.ok()) return gamma_values.status();
  const NormProblem problem{*kind, rows, hidden, args.zero_centered_gamma != 0};
  absl::StatusOr<NormBackwardResult> out =
      NormBackward(problem, *dy_values, *x_values, mu_values, *rsigma_values, *gamma_values);
  if (!out.ok()) return out.status();
  TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteValues(**dx, out->dx));
  TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteValues(**dgamma, out->dgamma));
  return WriteOptional(*dbeta, out->dbeta);
}

std::unique_ptr<sdk::NormImpl> NewReferenceNorm() { return std::make_unique<ReferenceNorm>(); }

}  // namespace teplug::reference::provider
