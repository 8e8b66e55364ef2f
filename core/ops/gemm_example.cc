// Example IGemm/1 ops for `teplug explain`: D[m,n] = op(A) op(B), the
// operands' dtypes, transposes, bias, epilogue and accumulation as given.
#include <string>
#include <vector>

#include "core/ops/example_params.h"
#include "core/ops/gemm.h"
#include "teplug/sdk/names.hpp"

namespace teplug::core {
namespace {

bool IsScaled(int32_t d) { return IsFp8(d) || d == TEPLUG_DTYPE_FP4_E2M1; }

}  // namespace

absl::StatusOr<std::vector<ExampleParam>> GemmExampleParams(const InterfaceModule& module,
                                                            const OpSpec&) {
  const config::InterfaceVocabulary v = module.Vocabulary();
  constexpr int64_t kMaxDim = int64_t{1} << 40;
  return std::vector<ExampleParam>{
      AlsoSets(FactParam(v, "dtype", "bf16"), "a_dtype"),
      Following(FactParam(v, "b_dtype", ""), "dtype"),
      ComputedDefault(FactParam(v, "c_dtype", ""), "none: no C"),
      ComputedDefault(FactParam(v, "d_dtype", ""), "dtype, bf16 for fp8/fp4 A"),
      FactParam(v, "m", "1024", 1, kMaxDim),
      FactParam(v, "n", "1024", 1, kMaxDim),
      FactParam(v, "k", "1024", 1, kMaxDim),
      SwitchParam("trans_a", "A is transposed"),
      SwitchParam("trans_b", "B is transposed"),
      SwitchParam("with_bias", "add a bias vector"),
      NameParam("epilogue", "the epilogue after the product", "none", {"none", "gelu"}),
      SwitchParam("accumulate", "D += op(A) op(B)"),
      NameParam("scaling_mode", "scaling mode of fp8/fp4 operands", "per_tensor",
                ScalingModeNames()),
  };
}

void BuildGemmExample(const OpSpec&, const ExampleValues& v, ExampleOp* e) {
  const int64_t m = v.Integer("m"), n = v.Integer("n"), k = v.Integer("k");
  const bool ta = v.Switch("trans_a"), tb = v.Switch("trans_b");
  const int32_t da = DTypeValue(v, "dtype"), db = DTypeValue(v, "b_dtype");
  const int32_t dd =
      v.IsSet("d_dtype") ? DTypeValue(v, "d_dtype") : (IsScaled(da) ? TEPLUG_DTYPE_BF16 : da);
  const int32_t mode = ScalingModeValue(v, "scaling_mode");
  TeplugTensor* a = e->NewTensor(da, ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k});
  TeplugTensor* b = e->NewTensor(db, tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n});
  if (IsScaled(da)) a->quant = e->NewQuantization(mode, a->shape[0], a->shape[1]);
  if (IsScaled(db)) b->quant = e->NewQuantization(mode, b->shape[0], b->shape[1]);
  TeplugTensor* d = e->NewTensor(dd, {m, n});
  if (IsFp8(dd)) d->quant = e->NewQuantization(TEPLUG_SCALING_PER_TENSOR, 1, 1);
  auto* g = e->NewStruct<TeplugGemmArgs>();
  g->a = a, g->b = b, g->d = d;
  if (v.IsSet("c_dtype")) g->c = e->NewTensor(DTypeValue(v, "c_dtype"), {m, n});
  g->trans_a = ta, g->trans_b = tb;
  g->alpha = 1.0f;
  if (v.Switch("with_bias")) g->bias = e->NewTensor(IsFp8(dd) ? TEPLUG_DTYPE_BF16 : dd, {n});
  if (v.Name("epilogue") == "gelu") g->epilogue = TEPLUG_EPILOGUE_GELU;
  g->accumulate = v.Switch("accumulate");
  e->args = g;
}

}  // namespace teplug::core
