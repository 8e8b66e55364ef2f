#include "plugins/reference/provider/attention_provider.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/reference/kernels/attention_reference.h"
#include "plugins/reference/provider/attention_problem.h"
#include "plugins/reference/provider/status_bridge.h"
#include "plugins/reference/provider/tensor_io.h"
#include "plugins/reference/provider/tensor_view.h"

namespace teplug::reference::provider {
namespace {

constexpr uint64_t kQkvDTypes = kHighPrecisionDTypes | kFp8DTypes;

// Views q, k, v (or dq, dk, dv), named args_name + names[i], and checks that
// each dtype is in `allowed` (RequireDType's `what` says why).
absl::Status ViewTriple(const std::array<const TeplugTensor*, 3>& tensors,
                        const std::array<const char*, 3>& names, const std::string& args_name,
                        uint64_t allowed, const char* what, std::vector<TensorView>* out) {
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<TensorView> t = ViewTensor(tensors[i], args_name + names[i]);
    if (!t.ok()) return t.status();
    TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireDType(*t, allowed, what));
    out->push_back(*std::move(t));
  }
  return absl::OkStatus();
}

absl::Status ViewQkv(const TeplugTensor* q, const TeplugTensor* k, const TeplugTensor* v,
                     const std::string& args_name, std::vector<TensorView>* out) {
  return ViewTriple({q, k, v}, {".q", ".k", ".v"}, args_name, kQkvDTypes,
                    "attention inputs must be", out);
}

// Gathers canonical Q, K, V.
absl::Status GatherInputs(const AttentionProblem& p, const std::vector<TensorView>& qkv,
                          std::vector<double>* q, std::vector<double>* k, std::vector<double>* v) {
  const QkvTensor which[] = {QkvTensor::kQ, QkvTensor::kK, QkvTensor::kV};
  std::vector<double>* outs[] = {q, k, v};
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<std::vector<double>> g = GatherQkv(p, which[i], qkv[i]);
    if (!g.ok()) return g.status();
    *outs[i] = *std::move(g);
  }
  return absl::OkStatus();
}

absl::Status Prefixed(const absl::Status& s, const char* what) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(what, ": ", s.message()));
}

class ReferenceAttention : public sdk::AttentionImpl {
 public:
  void Forward(const TeplugAttentionFwdArgs& args) override {
    ThrowIfError(RunReferenceAttentionForward(args));
  }
  void Backward(const TeplugAttentionBwdArgs& args) override {
    ThrowIfError(RunReferenceAttentionBackward(args));
  }
};

}  // namespace

absl::Status RunReferenceAttentionForward(const TeplugAttentionFwdArgs& args) {
  const std::string an = "TeplugAttentionFwdArgs";
  absl::StatusOr<AttentionProblem> p = ReadAttentionProblem(args.params, args.bias, an);
  if (!p.ok()) return p.status();
  std::vector<TensorView> qkv;
  TEPLUG_REFERENCE_RETURN_IF_ERROR(ViewQkv(args.q, args.k, args.v, an, &qkv));
  absl::StatusOr<TensorView> o = ViewTensor(args.o, an + ".o");
  if (!o.ok()) return o.status();
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireDType(*o, kWritableDTypes, "o must be"));
  absl::StatusOr<std::optional<TensorView>> lse = ViewOptionalTensor(args.softmax_lse, an + ".softmax_lse");
  if (!lse.ok()) return lse.status();
  if (p->options.is_training && !lse->has_value()) {
    return absl::InvalidArgumentError(
        an + ".softmax_lse is NULL but params.is_training is set; backward needs it");
  }
  if (lse->has_value()) TEPLUG_REFERENCE_RETURN_IF_ERROR(CheckLse(*p, **lse));
  std::vector<double> q, k, v;
  TEPLUG_REFERENCE_RETURN_IF_ERROR(GatherInputs(*p, qkv, &q, &k, &v));
  absl::StatusOr<AttentionForwardResult> r = AttentionForward(p->shape, p->options, q, k, v);
  if (!r.ok()) return Prefixed(r.status(), "IAttention forward");
  TEPLUG_REFERENCE_RETURN_IF_ERROR(ScatterOutput(*p, r->o, *o));
  if (lse->has_value()) TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteValues(**lse, r->lse));
  return absl::OkStatus();
}

absl::Status RunReferenceAttentionBackward(const TeplugAttentionBwdArgs& args) {
  const std::string an = "TeplugAttentionBwdArgs";
  absl::StatusOr<AttentionProblem> p = ReadAttentionProblem(args.params, args.bias, an);
  if (!p.ok()) return p.status();
  std::vector<TensorView> qkv;
  TEPLUG_REFERENCE_RETURN_IF_ERROR(ViewQkv(args.q, args.k, args.v, an, &qkv));
  absl::StatusOr<TensorView> o = ViewTensor(args.o, an + ".o");
  if (!o.ok()) return o.status();
  absl::StatusOr<TensorView> d_o = ViewTensor(args.d_o, an + ".d_o");
  if (!d_o.ok()) return d_o.status();
  absl::StatusOr<TensorView> lse = ViewTensor(args.softmax_lse, an + ".softmax_lse");
  if (!lse.ok()) return lse.status();
  TEPLUG_REFERENCE_RETURN_IF_ERROR(CheckLse(*p, *lse));
  std::vector<TensorView> grads;
  TEPLUG_REFERENCE_RETURN_IF_ERROR(ViewTriple({args.dq, args.dk, args.dv}, {".dq", ".dk", ".dv"},
                                              an, kWritableDTypes, "gradients must be", &grads));
  absl::StatusOr<std::optional<TensorView>> dbias = ViewOptionalTensor(args.dbias, an + ".dbias");
  if (!dbias.ok()) return dbias.status();
  if (dbias->has_value()) {
    if (p->options.bias.empty()) {
      return absl::InvalidArgumentError(
          an + ".dbias is set but params.bias_type takes no bias tensor (pre_scale/post_scale only)");
    }
    TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireShape(**dbias, p->bias_shape, "bias is"));
  }
  std::vector<double> q, k, v;
  TEPLUG_REFERENCE_RETURN_IF_ERROR(GatherInputs(*p, qkv, &q, &k, &v));
  absl::StatusOr<std::vector<double>> o_values = GatherOutputLike(*p, *o);
  if (!o_values.ok()) return o_values.status();
  absl::StatusOr<std::vector<double>> do_values = GatherOutputLike(*p, *d_o);
  if (!do_values.ok()) return do_values.status();
  absl::StatusOr<std::vector<double>> lse_values = ReadValues(*lse);
  if (!lse_values.ok()) return lse_values.status();
  absl::StatusOr<AttentionGradients> g =
      AttentionBackward(p->shape, p->options, q, k, v, *o_values, *lse_values, *do_values);
  if (!g.ok()) return Prefixed(g.status(), "IAttention backward");
  TEPLUG_REFERENCE_RETURN_IF_ERROR(
      ScatterGradients(*p, g->dq, g->dk, g->dv, grads[0], grads[1], grads[2]));
  if (dbias->has_value()) TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteValues(**dbias, g->dbias));
  return absl::OkStatus();
}

std::unique_ptr<sdk::AttentionImpl> NewReferenceAttention() {
  return std::make_unique<ReferenceAttention>();
}

}  // namespace teplug::reference::provider
