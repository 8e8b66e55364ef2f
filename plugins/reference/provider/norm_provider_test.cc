// INorm v1 through the C ABI. The numbers are checked (a) against the fp64
// kernels called directly on the decoded inputs (the adapter's plumbing: which
// tensor is read as what, rank > 2 flattening, rounding once into each output
// dtype, mu/rsigma) and (b) for fp8 / MXFP8 y bit for bit against the
// registered IQuantizer applied through the ABI to the fp32 y of the same
// problem. Bad arguments are refused with a code and a message naming the field.
#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/reference/kernels/norm_reference.h"
#include "plugins/reference/provider/reference_entry.h"
#include "plugins/reference/provider/testing/abi_tensor.h"
#include "plugins/reference/provider/testing/direct_host.h"
#include "plugins/reference/provider/testing/norm_tensors.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::reference::provider {
namespace {

using testing::AbiTensor;

using testing::NormTensors;

// The kernel's forward for the values the ABI tensors of `t` hold.
NormForwardResult ExpectedForward(const NormTensors& t) {
  const NormProblem p{t.layernorm() ? NormKind::kLayerNorm : NormKind::kRmsNorm, t.rows, t.hidden,
                      t.fwd.zero_centered_gamma != 0};
  return *NormForward(p, t.x.Values(), t.gamma.Values(),
                      t.layernorm() ? t.beta.Values() : std::vector<double>{}, t.fwd.epsilon);
}

// `v` as stored in `dtype` (the one rounding the provider performs).
double Rounded(int32_t dtype, double v) {
  AbiTensor t(dtype, {1});
  t.Fill({v});
  return t.Values()[0];
}

class NormProviderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(host_.Run(&teplug_reference_entry).ok());
    norm_ = testing::Find<TeplugNormV1>(host_.recorded, sdk::kIidNormV1);
    quant_ = testing::Find<TeplugQuantizerV1>(host_.recorded, sdk::kIidQuantizerV1);
    ASSERT_NE(norm_, nullptr) << "the reference registers INorm/1 where the host serves it";
    ASSERT_NE(quant_, nullptr);
  }
  sdk::OwnedError Forward(const TeplugNormFwdArgs& a) {
    return sdk::OwnedError(norm_->vtbl->forward(norm_, &a));
  }
  sdk::OwnedError Backward(const TeplugNormBwdArgs& a) {
    return sdk::OwnedError(norm_->vtbl->backward(norm_, &a));
  }
  // Expects a refusal with `code` whose message contains `needle`.
  void ExpectRefused(const sdk::OwnedError& e, int32_t code, const std::string& needle) {
    ASSERT_FALSE(e.ok()) << "accepted; wanted: " << needle;
    EXPECT_EQ(e.code(), code) << e.message();
    EXPECT_NE(e.message().find(needle), std::string::npos) << e.message();
  }
  testing::DirectHost host_;
  TeplugNormV1* norm_ = nullptr;
  TeplugQuantizerV1* quant_ = nullptr;
  std::mt19937_64 rng_{4242};
};

struct DTypeCase {
  int32_t norm_type;
  bool zero_centered;
  int32_t x_dtype, w_dtype, y_dtype;
};

TEST_F(NormProviderTest, ForwardEqualsTheKernelRoundedOnceForEveryDTypeAndRank) {
  const std::vector<DTypeCase> cases = {
      {TEPLUG_NORM_LAYERNORM, false, TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP32},
      {TEPLUG_NORM_LAYERNORM, true, TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_BF16},
      {TEPLUG_NORM_RMSNORM, false, TEPLUG_DTYPE_FP16, TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_FP32},
      {TEPLUG_NORM_RMSNORM, true, TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP16, TEPLUG_DTYPE_FP16}};
  for (const DTypeCase& c : cases) {
    SCOPED_TRACE(std::string(sdk::NormTypeName(c.norm_type)) + (c.zero_centered ? " zc " : " ") +
                 sdk::DTypeName(c.x_dtype) + "/" + sdk::DTypeName(c.w_dtype) + "->" +
                 sdk::DTypeName(c.y_dtype));
    NormTensors p(c.norm_type, {2, 3, 40}, c.x_dtype, c.w_dtype, c.y_dtype, rng_);  // rank 3
    p.SetZeroCentered(c.zero_centered);
    sdk::OwnedError e = p.Forward(norm_);
    ASSERT_TRUE(e.ok()) << e.message();
    const NormForwardResult want = ExpectedForward(p);
    const std::vector<double> y = p.y.Values();
    ASSERT_EQ(y.size(), want.y.size());
    for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], Rounded(c.y_dtype, want.y[i])) << i;
    const std::vector<double> rsigma = p.rsigma.Values();
    for (int64_t r = 0; r < p.rows; ++r) {
      EXPECT_EQ(rsigma[r], static_cast<float>(want.rsigma[r])) << r;
      if (c.norm_type == TEPLUG_NORM_LAYERNORM) {
        EXPECT_EQ(p.mu.Values()[r], static_cast<float>(want.mu[r])) << r;
      }
    }
  }
}

TEST_F(NormProviderTest, ZeroCenteredGammaMultipliesByGammaPlusOne) {
  NormTensors plain(TEPLUG_NORM_LAYERNORM, {4, 24}, TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP32,
                    TEPLUG_DTYPE_FP32, rng_);
  NormTensors centered(TEPLUG_NORM_LAYERNORM, {4, 24}, TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP32,
                       TEPLUG_DTYPE_FP32, rng_);
  centered.x.Fill(plain.x.Values());
  centered.beta.Fill(plain.beta.Values());
  std::vector<double> g = testing::RandomValues(rng_, 24, 0.5, 1.5);
  for (double& v : g) v = std::fabs(v);  // in [0.5, 2]: v - 1 is exact (Sterbenz)
  plain.gamma.Fill(g);
  g = plain.gamma.Values();  // as stored in fp32
  for (double& v : g) v -= 1.0;
  centered.gamma.Fill(g);
  centered.SetZeroCentered(true);
  ASSERT_TRUE(plain.Forward(norm_).ok());
  ASSERT_TRUE(centered.Forward(norm_).ok());
  EXPECT_EQ(centered.y.Bytes(), plain.y.Bytes());
}

TEST_F(NormProviderTest, HighPrecisionAmaxIsThatOfTheStoredValues) {
  NormTensors p(TEPLUG_NORM_RMSNORM, {5, 33}, TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP32,
                TEPLUG_DTYPE_BF16, rng_);
  p.y.SetQuant(TEPLUG_SCALING_NONE, nullptr);
  ASSERT_TRUE(p.Forward(norm_).ok());
  double amax = 0;
  for (double v : p.y.Values()) amax = std::max(amax, std::fabs(v));
  EXPECT_EQ(p.y.amax()->Values()[0], amax);
}

// The fp32 y of the problem, then IQuantizer (through the ABI) into `out`.
class NormQuantizedOutputTest
    : public NormProviderTest,
      public ::testing::WithParamInterface<std::tuple<int32_t, int32_t, int32_t, int32_t>> {
 protected:
  void QuantizeWithIQuantizer(AbiTensor* fp32_y, AbiTensor* out, int32_t mx_scale_rule) {
    TeplugQuantizeArgs q = sdk::Versioned<TeplugQuantizeArgs>();
    q.input = fp32_y->get();
    q.output = out->get();
    q.recipe = TEPLUG_RECIPE_DELAYED;
    q.rowwise = 1;
    q.mx_scale_rule = mx_scale_rule;
    sdk::OwnedError e(quant_->vtbl->quantize(quant_, &q));
    ASSERT_TRUE(e.ok()) << e.message();
  }
};

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

TEST_P(NormQuantizedOutputTest, Fp8YIsBitForBitTheReferenceQuantizerOfTheFp32Y) {
  const auto [norm_type, mode, dtype, rule] = GetParam();
  const std::vector<int64_t> shape = {3, 80};  // 80: a partial MX block per row
  std::mt19937_64 rng_a(7), rng_b(7);
  NormTensors quantized(norm_type, shape, TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_FP32, dtype, rng_a);
  NormTensors high(norm_type, shape, TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP32,
                   rng_b);
  quantized.SetZeroCentered(true);
  high.SetZeroCentered(true);
  quantized.fwd.mx_scale_rule = rule;  // per_tensor ignores it
  AbiTensor via_quantizer(dtype, shape);
  if (mode == TEPLUG_SCALING_PER_TENSOR) {
    quantized.y.SetPerTensor(3.5f, -1.0f);  // scale_inv and amax are outputs
    via_quantizer.SetPerTensor(3.5f, -1.0f);
  } else {
    const std::vector<int64_t> grid = {3, CeilDiv(80, 32)};
    quantized.y.SetQuant(mode, std::make_unique<AbiTensor>(TEPLUG_DTYPE_E8M0, grid));
    via_quantizer.SetQuant(mode, std::make_unique<AbiTensor>(TEPLUG_DTYPE_E8M0, grid));
  }
  sdk::OwnedError e = quantized.Forward(norm_);
  ASSERT_TRUE(e.ok()) << e.message();
  ASSERT_TRUE(high.Forward(norm_).ok());
  QuantizeWithIQuantizer(&high.y, &via_quantizer, rule);
  EXPECT_EQ(quantized.y.Bytes(), via_quantizer.Bytes()) << "codes";
  EXPECT_EQ(quantized.y.scale_inv()->Bytes(), via_quantizer.scale_inv()->Bytes()) << "scale_inv";
  EXPECT_EQ(quantized.y.amax()->Values(), via_quantizer.amax()->Values()) << "amax";
  EXPECT_GT(quantized.y.amax()->Values()[0], 0.0);
  EXPECT_EQ(quantized.rsigma.Bytes(), high.rsigma.Bytes());
}

INSTANTIATE_TEST_SUITE_P(
    ModesAndFormats, NormQuantizedOutputTest,
    ::testing::Combine(::testing::Values(TEPLUG_NORM_LAYERNORM, TEPLUG_NORM_RMSNORM),
                       ::testing::Values(TEPLUG_SCALING_PER_TENSOR, TEPLUG_SCALING_MXFP8_1D32),
                       ::testing::Values(TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E5M2),
                       ::testing::Values(TEPLUG_MX_SCALE_OCP, TEPLUG_MX_SCALE_TRANSFORMER_ENGINE)),
    [](const auto& info) {
      return std::string(sdk::NormTypeName(std::get<0>(info.param))) + "_" +
             sdk::ScalingName(std::get<1>(info.param)) + "_" +
             sdk::DTypeName(std::get<2>(info.param)) + "_" +
             sdk::MxScaleRuleName(std::get<3>(info.param));
    });

TEST_F(NormProviderTest, BackwardEqualsTheKernelOnTheGivenStatistics) {
  for (int32_t type : {TEPLUG_NORM_LAYERNORM, TEPLUG_NORM_RMSNORM}) {
    for (bool zc : {false, true}) {
      SCOPED_TRACE(std::string(sdk::NormTypeName(type)) + (zc ? " zero-centered" : ""));
      NormTensors t(type, {6, 48}, TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP32, rng_);
      t.SetZeroCentered(zc);
      ASSERT_TRUE(t.Forward(norm_).ok());
      sdk::OwnedError e = t.Backward(norm_);
      ASSERT_TRUE(e.ok()) << e.message();
      const bool ln = type == TEPLUG_NORM_LAYERNORM;
      const NormProblem p{ln ? NormKind::kLayerNorm : NormKind::kRmsNorm, t.rows, t.hidden, zc};
      const NormBackwardResult want =
          *NormBackward(p, t.dy.Values(), t.x.Values(), ln ? t.mu.Values() : std::vector<double>{},
                        t.rsigma.Values(), t.gamma.Values());
      const std::vector<double> dx = t.dx.Values(), dgamma = t.dgamma.Values();
      for (size_t i = 0; i < dx.size(); ++i) ASSERT_EQ(dx[i], static_cast<float>(want.dx[i])) << i;
      for (size_t i = 0; i < dgamma.size(); ++i) {
        ASSERT_EQ(dgamma[i], static_cast<float>(want.dgamma[i])) << i;
        if (ln) ASSERT_EQ(t.dbeta.Values()[i], static_cast<float>(want.dbeta[i])) << i;
      }
    }
  }
}

TEST_F(NormProviderTest, AnEmptyBatchSucceedsWithZeroAmaxAndZeroWeightGradients) {
  NormTensors t(TEPLUG_NORM_LAYERNORM, {0, 16}, TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP32,
                TEPLUG_DTYPE_FP8_E4M3, rng_);
  t.y.SetQuant(TEPLUG_SCALING_MXFP8_1D32,
               std::make_unique<AbiTensor>(TEPLUG_DTYPE_E8M0, std::vector<int64_t>{0, 1}));
  sdk::OwnedError e = t.Forward(norm_);
  ASSERT_TRUE(e.ok()) << e.message();
  EXPECT_EQ(t.y.amax()->Values()[0], 0.0) << "amax of no values";
  t.SetZeroCentered(true);
  t.dgamma.Fill(std::vector<double>(16, 5.0));
  sdk::OwnedError b = t.Backward(norm_);
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_EQ(t.dgamma.Values(), std::vector<double>(16, 0.0)) << "a sum over no rows";
}

// One bad call: how the valid args are changed, and the refusal expected.
template <class Args>
struct BadCall {
  std::function<void(Args*)> edit;
  int32_t code;
  std::string needle;
};

TEST_F(NormProviderTest, ForwardArgumentErrorsNameTheField) {
  NormTensors p(TEPLUG_NORM_LAYERNORM, {4, 16}, TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP32,
                TEPLUG_DTYPE_FP32, rng_);
  AbiTensor gamma15(TEPLUG_DTYPE_FP32, {15}), bf16_beta(TEPLUG_DTYPE_BF16, {16}),
      y_4x17(TEPLUG_DTYPE_FP32, {4, 17}), mu3(TEPLUG_DTYPE_FP32, {3}),
      int_x(TEPLUG_DTYPE_INT32, {4, 16});
  const int32_t kBad = TEPLUG_INVALID_ARGUMENT;
  const std::vector<BadCall<TeplugNormFwdArgs>> calls = {
      {[](auto* a) { a->norm_type = 7; }, kBad, "TeplugNormFwdArgs.norm_type 7"},
      {[](auto* a) { a->epsilon = -1.0f; }, kBad, "TeplugNormFwdArgs.epsilon is -1"},
      {[](auto* a) { a->beta = nullptr; }, kBad, "TeplugNormFwdArgs.beta is NULL"},
      {[](auto* a) { a->norm_type = TEPLUG_NORM_RMSNORM; }, kBad,
       "TeplugNormFwdArgs.beta is set but norm_type is rmsnorm"},
      {[](auto* a) { a->norm_type = TEPLUG_NORM_RMSNORM, a->beta = nullptr; }, kBad,
       "TeplugNormFwdArgs.mu is set but norm_type is rmsnorm"},
      {[&](auto* a) { a->gamma = gamma15.get(); }, kBad, "TeplugNormFwdArgs.gamma: shape [15]"},
      {[&](auto* a) { a->beta = bf16_beta.get(); }, kBad,
       "TeplugNormFwdArgs.beta: dtype bf16 but it must have gamma's dtype"},
      {[&](auto* a) { a->y = y_4x17.get(); }, kBad, "TeplugNormFwdArgs.y: shape [4, 17]"},
      {[&](auto* a) { a->mu = mu3.get(); }, kBad, "TeplugNormFwdArgs.mu: shape [3]"},
      {[&](auto* a) { a->x = int_x.get(); }, kBad, "TeplugNormFwdArgs.x: dtype int32"},
  };
  for (const auto& call : calls) {
    TeplugNormFwdArgs a = p.fwd;
    call.edit(&a);
    ExpectRefused(Forward(a), call.code, call.needle);
  }
}

TEST_F(NormProviderTest, QuantizedOutputErrorsNameTheField) {
  NormTensors p(TEPLUG_NORM_LAYERNORM, {4, 16}, TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP32,
                TEPLUG_DTYPE_FP8_E4M3, rng_);
  auto scales = [](int32_t dtype, std::vector<int64_t> shape) {
    return std::make_unique<AbiTensor>(dtype, std::move(shape));
  };
  ExpectRefused(p.Forward(norm_), TEPLUG_INVALID_ARGUMENT, "TeplugNormFwdArgs.y.quant is NULL");
  p.y.SetQuant(TEPLUG_SCALING_BLOCK_1D128, scales(TEPLUG_DTYPE_FP32, {4, 1}));
  ExpectRefused(p.Forward(norm_), TEPLUG_UNSUPPORTED,
                "TeplugNormFwdArgs.y.quant.mode is block_1d128");
  p.y.SetQuant(TEPLUG_SCALING_PER_TENSOR, nullptr);
  ExpectRefused(p.Forward(norm_), TEPLUG_INVALID_ARGUMENT,
                "TeplugNormFwdArgs.y.quant.scale is NULL");
  p.y.SetQuant(TEPLUG_SCALING_MXFP8_1D32, scales(TEPLUG_DTYPE_E8M0, {4, 2}));
  ExpectRefused(p.Forward(norm_), TEPLUG_INVALID_ARGUMENT,
                "TeplugNormFwdArgs.y.quant.scale_inv: shape [4, 2]");
  p.y.SetQuant(TEPLUG_SCALING_MXFP8_1D32, scales(TEPLUG_DTYPE_E8M0, {4, 1}),
               scales(TEPLUG_DTYPE_FP8_E4M3, {4, 16}));
  ExpectRefused(p.Forward(norm_), TEPLUG_INVALID_ARGUMENT,
                "columnwise_data/columnwise_scale_inv are set");
  NormTensors high(TEPLUG_NORM_RMSNORM, {4, 16}, TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP32,
                   TEPLUG_DTYPE_FP32, rng_);
  high.y.SetPerTensor(1.0f, 1.0f);
  ExpectRefused(high.Forward(norm_), TEPLUG_INVALID_ARGUMENT,
                "TeplugNormFwdArgs.y.quant: mode per_tensor with scale/scale_inv on a fp32 y");
}

TEST_F(NormProviderTest, BackwardArgumentErrorsNameTheField) {
  NormTensors t(TEPLUG_NORM_LAYERNORM, {4, 16}, TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP32,
                TEPLUG_DTYPE_FP32, rng_);
  ASSERT_TRUE(t.Forward(norm_).ok());
  AbiTensor dy_4x15(TEPLUG_DTYPE_FP32, {4, 15}), fp16_rsigma(TEPLUG_DTYPE_FP16, {4});
  const int32_t kBad = TEPLUG_INVALID_ARGUMENT;
  const std::vector<BadCall<TeplugNormBwdArgs>> calls = {
      {[](auto* a) { a->norm_type = -1; }, kBad, "TeplugNormBwdArgs.norm_type -1"},
      {[](auto* a) { a->mu = nullptr; }, kBad, "TeplugNormBwdArgs.mu is NULL"},
      {[](auto* a) { a->rsigma = nullptr; }, kBad, "TeplugNormBwdArgs.rsigma is NULL"},
      {[](auto* a) { a->dbeta = nullptr; }, kBad, "TeplugNormBwdArgs.dbeta is NULL"},
      {[](auto* a) { a->norm_type = TEPLUG_NORM_RMSNORM; }, kBad,
       "TeplugNormBwdArgs.mu is set but norm_type is rmsnorm"},
      {[](auto* a) { a->norm_type = TEPLUG_NORM_RMSNORM, a->mu = nullptr; }, kBad,
       "TeplugNormBwdArgs.dbeta is set but norm_type is rmsnorm"},
      {[&](auto* a) { a->dy = dy_4x15.get(); }, kBad, "TeplugNormBwdArgs.dy: shape [4, 15]"},
      {[&](auto* a) { a->rsigma = fp16_rsigma.get(); }, kBad,
       "TeplugNormBwdArgs.rsigma: dtype fp16"},
  };
  for (const auto& call : calls) {
    TeplugNormBwdArgs a = t.bwd;
    call.edit(&a);
    ExpectRefused(Backward(a), call.code, call.needle);
  }
}

}  // namespace
}  // namespace teplug::reference::provider
