// IGemm v1 of the reference provider through the ABI (objects obtained from
// teplug_reference_entry), against a long double triple loop written here on
// the dequantized operand values. D is rounded once from the fp64 result, so
// the tolerance is the output format's half ulp (plus the fp64-vs-long-double
// summation difference, far below it).
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/reference/provider/reference_entry.h"
#include "plugins/reference/provider/testing/abi_tensor.h"
#include "plugins/reference/provider/testing/direct_host.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::reference::provider {
namespace {

using testing::AbiTensor;
using testing::RandomValues;

class GemmProviderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(host_.Run(&teplug_reference_entry).ok());
    gemm_ = testing::Find<TeplugGemmV1>(host_.recorded, sdk::kIidGemmV1);
    ASSERT_NE(gemm_, nullptr);
  }
  sdk::OwnedError Run(const TeplugGemmArgs& args) {
    return sdk::OwnedError(gemm_->vtbl->gemm(gemm_, &args));
  }
  // D = A B with alpha 1 and nothing else set.
  static TeplugGemmArgs PlainArgs(AbiTensor& a, AbiTensor& b, AbiTensor& d) {
    TeplugGemmArgs args = sdk::Versioned<TeplugGemmArgs>();
    args.a = a.get();
    args.b = b.get();
    args.d = d.get();
    args.alpha = 1.0f;
    return args;
  }
  testing::DirectHost host_;
  TeplugGemmV1* gemm_ = nullptr;
  std::mt19937_64 rng_{20240611};
};

// Expected Z = alpha op(A) op(B) + beta C + bias from real operand values.
std::vector<long double> NaiveGemm(const std::vector<double>& a, const std::vector<double>& b,
                                   int64_t m, int64_t n, int64_t k, bool ta, bool tb, double alpha,
                                   const std::vector<double>* c, double beta,
                                   const std::vector<double>* bias) {
  std::vector<long double> z(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      long double acc = 0;
      for (int64_t p = 0; p < k; ++p) {
        const long double av = ta ? a[p * m + i] : a[i * k + p];
        const long double bv = tb ? b[j * k + p] : b[p * n + j];
        acc += av * bv;
      }
      long double v = alpha * acc;
      if (c != nullptr) v += static_cast<long double>(beta) * (*c)[i * n + j];
      if (bias != nullptr) v += (*bias)[j];
      z[i * n + j] = v;
    }
  }
  return z;
}

long double Gelu(long double z) {
  const long double kS = std::sqrt(2.0L / 3.14159265358979323846264338327950288L);
  return 0.5L * z * (1.0L + std::tanh(kS * (z + 0.044715L * z * z * z)));
}

// |got - want| <= rel |want| + abs.
void ExpectClose(const std::vector<double>& got, const std::vector<long double>& want,
                 double rel, const std::string& what, double abs = 1e-30) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const double tol = rel * std::fabs(static_cast<double>(want[i])) + abs;
    ASSERT_NEAR(got[i], static_cast<double>(want[i]), tol) << what << " element " << i;
  }
}

TEST_F(GemmProviderTest, HighPrecisionWithTransposesBiasAndC) {
  const int64_t m = 5, n = 7, k = 9;
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      AbiTensor a(TEPLUG_DTYPE_BF16, ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k});
      AbiTensor b(TEPLUG_DTYPE_FP16, tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n});
      AbiTensor c(TEPLUG_DTYPE_FP32, {m, n});
      AbiTensor bias(TEPLUG_DTYPE_FP32, {n});
      AbiTensor d(TEPLUG_DTYPE_FP32, {m, n});
      a.Fill(RandomValues(rng_, a.count()));
      b.Fill(RandomValues(rng_, b.count()));
      c.Fill(RandomValues(rng_, c.count()));
      bias.Fill(RandomValues(rng_, bias.count()));
      TeplugGemmArgs args = sdk::Versioned<TeplugGemmArgs>();
      args.a = a.get();
      args.b = b.get();
      args.c = c.get();
      args.d = d.get();
      args.bias = bias.get();
      args.trans_a = ta;
      args.trans_b = tb;
      args.alpha = 0.75f;
      args.beta = -1.5f;
      ASSERT_TRUE(Run(args).ok());
      const auto cv = c.Values();
      const auto biasv = bias.Values();
      ExpectClose(d.Values(),
                  NaiveGemm(a.Values(), b.Values(), m, n, k, ta, tb, 0.75, &cv, -1.5, &biasv),
                  0x1p-24, "fp32 D");
    }
  }
}

TEST_F(GemmProviderTest, Fp8PerTensorOperandsIntoBf16) {
  const int64_t m = 6, n = 4, k = 8;
  AbiTensor a(TEPLUG_DTYPE_FP8_E4M3, {m, k});
  AbiTensor b(TEPLUG_DTYPE_FP8_E5M2, {k, n});
  AbiTensor d(TEPLUG_DTYPE_BF16, {m, n});
  a.Fill(RandomValues(rng_, a.count(), 0.5, 300.0));
  b.Fill(RandomValues(rng_, b.count(), 0.5, 3000.0));
  a.SetPerTensor(64.0f, 0.015625f);
  b.SetPerTensor(1.0f, 0.375f);
  TeplugGemmArgs args = sdk::Versioned<TeplugGemmArgs>();
  args.a = a.get();
  args.b = b.get();
  args.d = d.get();
  args.alpha = 1.0f;
  ASSERT_TRUE(Run(args).ok());
  std::vector<double> av = a.Values(), bv = b.Values();
  for (double& v : av) v *= 0.015625;
  for (double& v : bv) v *= 0.375;
  ExpectClose(d.Values(), NaiveGemm(av, bv, m, n, k, false, false, 1.0, nullptr, 0, nullptr),
              0x1p-8, "bf16 D");
}

// Block-scaled operands: MXFP8 A (e8m0 per 32) and block_1d128 B (fp32 per 128).
TEST_F(GemmProviderTest, MxAndBlockScaledOperands) {
  const int64_t m = 3, n = 2, k = 160;
  AbiTensor a(TEPLUG_DTYPE_FP8_E4M3, {m, k});
  AbiTensor b(TEPLUG_DTYPE_FP8_E4M3, {n, k});  // trans_b: stored [n, k], blocks along k
  AbiTensor d(TEPLUG_DTYPE_FP32, {m, n});
  a.Fill(RandomValues(rng_, a.count(), 1.0, 400.0));
  b.Fill(RandomValues(rng_, b.count(), 1.0, 400.0));
  auto a_scales = std::make_unique<AbiTensor>(TEPLUG_DTYPE_E8M0, std::vector<int64_t>{m, 5});
  std::vector<double> a_codes(15);
  std::uniform_int_distribution<int> e(120, 134);
  for (double& c : a_codes) c = e(rng_);
  a_scales->Fill(a_codes);
  auto b_scales = std::make_unique<AbiTensor>(TEPLUG_DTYPE_FP32, std::vector<int64_t>{n, 2});
  b_scales->Fill({0.25, 3.0, 0.5, 1.0 / 3.0});
  const std::vector<double> a_scale_values = a_scales->Values();
  const std::vector<double> b_scale_values = b_scales->Values();
  a.SetQuant(TEPLUG_SCALING_MXFP8_1D32, std::move(a_scales));
  b.SetQuant(TEPLUG_SCALING_BLOCK_1D128, std::move(b_scales));
  TeplugGemmArgs args = sdk::Versioned<TeplugGemmArgs>();
  args.a = a.get();
  args.b = b.get();
  args.d = d.get();
  args.trans_b = 1;
  args.alpha = 1.0f;
  ASSERT_TRUE(Run(args).ok());
  std::vector<double> av = a.Values(), bv = b.Values();
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t c = 0; c < k; ++c) av[r * k + c] *= a_scale_values[r * 5 + c / 32];
  }
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t c = 0; c < k; ++c) bv[r * k + c] *= b_scale_values[r * 2 + c / 128];
  }
  ExpectClose(d.Values(), NaiveGemm(av, bv, m, n, k, false, true, 1.0, nullptr, 0, nullptr),
              0x1p-24, "fp32 D");
}

TEST_F(GemmProviderTest, Fp4OperandWithPerTensorScale) {
  const int64_t m = 2, n = 3, k = 4;
  AbiTensor a(TEPLUG_DTYPE_FP4_E2M1, {m, k});
  AbiTensor b(TEPLUG_DTYPE_FP32, {k, n});
  AbiTensor d(TEPLUG_DTYPE_FP32, {m, n});
  a.Fill(RandomValues(rng_, a.count(), 0.5, 6.0));
  b.Fill(RandomValues(rng_, b.count()));
  a.SetPerTensor(1.0f, 0.125f);
  TeplugGemmArgs args = sdk::Versioned<TeplugGemmArgs>();
  args.a = a.get();
  args.b = b.get();
  args.d = d.get();
  args.alpha = 1.0f;
  ASSERT_TRUE(Run(args).ok());
  std::vector<double> av = a.Values();
  for (double& v : av) v *= 0.125;
  ExpectClose(d.Values(), NaiveGemm(av, b.Values(), m, n, k, false, false, 1, nullptr, 0, nullptr),
              0x1p-24, "fp32 D");
}

TEST_F(GemmProviderTest, GeluWithPreGeluOutAndAccumulate) {
  const int64_t m = 4, n = 5, k = 3;
  AbiTensor a(TEPLUG_DTYPE_FP32, {m, k});
  AbiTensor b(TEPLUG_DTYPE_FP32, {k, n});
  AbiTensor d(TEPLUG_DTYPE_FP32, {m, n});
  AbiTensor pre(TEPLUG_DTYPE_FP32, {m, n});
  a.Fill(RandomValues(rng_, a.count()));
  b.Fill(RandomValues(rng_, b.count()));
  const std::vector<double> d_old = RandomValues(rng_, d.count());
  d.Fill(d_old);
  const std::vector<double> d_old_f = d.Values();
  TeplugGemmArgs args = sdk::Versioned<TeplugGemmArgs>();
  args.a = a.get();
  args.b = b.get();
  args.d = d.get();
  args.pre_gelu_out = pre.get();
  args.epilogue = TEPLUG_EPILOGUE_GELU;
  AbiTensor ignored_c(TEPLUG_DTYPE_FP32, {m, n});
  ignored_c.Fill(RandomValues(rng_, ignored_c.count()));
  args.c = ignored_c.get();  // ignored with accumulate, like beta
  args.accumulate = 1;
  args.alpha = 2.0f;
  args.beta = 0.0f;
  ASSERT_TRUE(Run(args).ok());
  const std::vector<long double> z =
      NaiveGemm(a.Values(), b.Values(), m, n, k, false, false, 2.0, &d_old_f, 1.0, nullptr);
  std::vector<long double> g(z.size());
  for (size_t i = 0; i < z.size(); ++i) g[i] = Gelu(z[i]);
  ExpectClose(pre.Values(), z, 0x1p-24, "pre_gelu_out");
  // fp64 GELU cancels in 1 + tanh(..) for negative z: an absolute 1e-15
  // (fp64 epsilon times the |z| <= 10 here) on top of fp32's half ulp.
  ExpectClose(d.Values(), g, 0x1p-24, "gelu D", 1e-15);
}

TEST_F(GemmProviderTest, Fp8OutputScaledSaturatedWithAmax) {
  const int64_t m = 3, n = 4, k = 5;
  AbiTensor a(TEPLUG_DTYPE_FP32, {m, k});
  AbiTensor b(TEPLUG_DTYPE_FP32, {k, n});
  AbiTensor d(TEPLUG_DTYPE_FP8_E4M3, {m, n});
  a.Fill(RandomValues(rng_, a.count()));
  b.Fill(RandomValues(rng_, b.count()));
  d.SetPerTensor(200.0f, 0.0f);  // large scale: some products saturate at 448
  TeplugGemmArgs args = sdk::Versioned<TeplugGemmArgs>();
  args.a = a.get();
  args.b = b.get();
  args.d = d.get();
  args.alpha = 1.0f;
  ASSERT_TRUE(Run(args).ok());
  const auto z = NaiveGemm(a.Values(), b.Values(), m, n, k, false, false, 1, nullptr, 0, nullptr);
  const std::vector<double> codes = d.Values();
  long double amax = 0;
  for (size_t i = 0; i < z.size(); ++i) {
    amax = std::max(amax, std::fabs(z[i]));
    const double scaled = static_cast<double>(z[i]) * 200.0;
    if (std::fabs(scaled) >= 464.0) {
      EXPECT_EQ(codes[i], std::copysign(448.0, scaled)) << "element " << i << " saturates";
    } else {
      EXPECT_NEAR(codes[i], scaled, std::fabs(scaled) * 0x1p-4 + 0x1p-10) << "element " << i;
    }
  }
  EXPECT_FLOAT_EQ(d.amax()->Values()[0], static_cast<float>(amax));
  EXPECT_EQ(d.scale_inv()->Values()[0], 1.0f / 200.0f);
}

// Strides are all given or all zero (row-major contiguous); a mix is a
// malformed tensor, refused by name whichever operand carries it.
TEST_F(GemmProviderTest, StridesMixingZeroAndNonZeroAreInvalid) {
  AbiTensor a(TEPLUG_DTYPE_FP32, {2, 3});
  AbiTensor b(TEPLUG_DTYPE_FP32, {3, 4});
  AbiTensor d(TEPLUG_DTYPE_FP32, {2, 4});
  a.Fill(RandomValues(rng_, a.count()));
  b.Fill(RandomValues(rng_, b.count()));
  TeplugGemmArgs args = PlainArgs(a, b, d);
  a.get()->strides[1] = 1;  // strides [0, 1]
  sdk::OwnedError e = Run(args);
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("TeplugGemmArgs.a.strides [0, 1] mix zero and non-zero"),
            std::string::npos)
      << e.message();

  a.get()->strides[0] = 3;  // every stride given: the contiguous ones, accepted
  EXPECT_TRUE(Run(args).ok());

  d.get()->strides[0] = 4;  // strides [4, 0]
  e = Run(args);
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("TeplugGemmArgs.d.strides [4, 0] mix zero and non-zero"),
            std::string::npos)
      << e.message();
}

// fp4_e2m1 operands, like fp8 ones, are read as code * scale_inv: without
// quantization metadata or without its scale_inv the GEMM has no real values.
TEST_F(GemmProviderTest, Fp4OperandWithoutScaleInvIsInvalid) {
  AbiTensor a(TEPLUG_DTYPE_FP32, {2, 4});
  AbiTensor b(TEPLUG_DTYPE_FP4_E2M1, {4, 2});
  AbiTensor d(TEPLUG_DTYPE_FP32, {2, 2});
  a.Fill(RandomValues(rng_, a.count()));
  b.Fill(RandomValues(rng_, b.count(), 0.5, 6.0));
  TeplugGemmArgs args = PlainArgs(a, b, d);
  sdk::OwnedError e = Run(args);
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("TeplugGemmArgs.b.quant is NULL"), std::string::npos) << e.message();

  b.SetQuant(TEPLUG_SCALING_PER_TENSOR, nullptr);
  e = Run(args);
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("TeplugGemmArgs.b.quant.scale_inv is NULL"), std::string::npos)
      << e.message();
}

// IGemm specifies the value of a zero result, not its sign (an accumulator
// that starts at +0 turns a sum of -0 products into +0). A row of -0 in A
// gives zeros, and the other rows are unaffected.
TEST_F(GemmProviderTest, ZeroResultsFromNegativeZeroInputsAreZeros) {
  const int64_t m = 3, n = 4, k = 5;
  AbiTensor a(TEPLUG_DTYPE_FP32, {m, k});
  AbiTensor b(TEPLUG_DTYPE_FP32, {k, n});
  AbiTensor d(TEPLUG_DTYPE_FP32, {m, n});
  std::vector<double> av = RandomValues(rng_, a.count());
  for (int64_t p = 0; p < k; ++p) av[1 * k + p] = -0.0;  // row 1 of A is -0
  a.Fill(av);
  b.Fill(RandomValues(rng_, b.count()));
  TeplugGemmArgs args = PlainArgs(a, b, d);
  ASSERT_TRUE(Run(args).ok());
  const std::vector<double> got = d.Values();
  const std::vector<long double> want =
      NaiveGemm(a.Values(), b.Values(), m, n, k, false, false, 1, nullptr, 0, nullptr);
  for (int64_t j = 0; j < n; ++j) EXPECT_EQ(got[1 * n + j], 0.0) << "D[1][" << j << "]";
  ExpectClose(got, want, 0x1p-24, "fp32 D");
}

TEST_F(GemmProviderTest, ErrorsNameTheField) {
  AbiTensor a(TEPLUG_DTYPE_FP32, {2, 3});
  AbiTensor b(TEPLUG_DTYPE_FP32, {4, 5});
  AbiTensor d(TEPLUG_DTYPE_FP32, {2, 5});
  TeplugGemmArgs args = sdk::Versioned<TeplugGemmArgs>();
  args.a = a.get();
  args.b = b.get();
  args.d = d.get();
  sdk::OwnedError e = Run(args);
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("TeplugGemmArgs.b: shape [4, 5]"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("op(A) is [2, 3]"), std::string::npos) << e.message();

  AbiTensor b_ok(TEPLUG_DTYPE_FP32, {3, 5});
  args.b = b_ok.get();
  TeplugDevice cuda = sdk::Versioned<TeplugDevice>();
  cuda.kind = TEPLUG_DEVICE_CUDA;
  a.get()->device = &cuda;
  e = Run(args);
  EXPECT_EQ(e.code(), TEPLUG_UNSUPPORTED);
  EXPECT_NE(e.message().find("TeplugGemmArgs.a.device: kind cuda"), std::string::npos) << e.message();
  a.get()->device = nullptr;

  AbiTensor a8(TEPLUG_DTYPE_FP8_E4M3, {2, 3});
  args.a = a8.get();
  e = Run(args);
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("TeplugGemmArgs.a.quant is NULL"), std::string::npos) << e.message();

  auto wrong = std::make_unique<AbiTensor>(TEPLUG_DTYPE_E8M0, std::vector<int64_t>{2, 2});
  a8.SetQuant(TEPLUG_SCALING_MXFP8_1D32, std::move(wrong));
  e = Run(args);
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("TeplugGemmArgs.a.quant.scale_inv: shape [2, 2]"), std::string::npos)
      << e.message();
  EXPECT_NE(e.message().find("[2, 1]"), std::string::npos) << e.message();

  args.a = a.get();
  args.accumulate = 1;
  AbiTensor d8(TEPLUG_DTYPE_FP8_E4M3, {2, 5});
  d8.SetPerTensor(1.0f, 1.0f);
  args.d = d8.get();
  char reason[256];
  EXPECT_EQ(gemm_->vtbl->supports(reinterpret_cast<TeplugObject*>(gemm_), TEPLUG_OP_GEMM, &args,
                                  reason, sizeof(reason)),
            0);
  EXPECT_NE(std::string(reason).find("accumulate into an fp8 D"), std::string::npos) << reason;
  EXPECT_EQ(Run(args).code(), TEPLUG_UNSUPPORTED);
}

}  // namespace
}  // namespace teplug::reference::provider
