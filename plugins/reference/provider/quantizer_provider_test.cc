// IQuantizer v1 through the ABI: every scaling mode x fp8 format, row-wise and
// column-wise. Checked (a) against the numerics library called directly (the
// adapter's plumbing: layouts, transposes, which scale goes where; MXFP8
// column-wise stays [rows, cols] with scales [ceil(rows/32), cols], per
// TeplugQuantization in interfaces/teplug/types.h) and (b)
// independently by quantize -> dequantize round trips within the format's
// half-ulp bound: |deq - x| <= 2^-(m+1) |x| + half the smallest subnormal
// times the block's scale_inv.
#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/reference/numerics/block_scaling.h"
#include "plugins/reference/numerics/mx_scaling.h"
#include "plugins/reference/numerics/per_tensor_scaling.h"
#include "plugins/reference/provider/reference_entry.h"
#include "plugins/reference/provider/testing/abi_tensor.h"
#include "plugins/reference/provider/testing/direct_host.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::reference::provider {
namespace {

using testing::AbiTensor;

struct Case {
  int32_t mode;
  int32_t dtype;
};

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  return std::string(sdk::ScalingName(info.param.mode)) + "_" + sdk::DTypeName(info.param.dtype);
}

std::vector<Case> AllCases() {
  std::vector<Case> out;
  for (int32_t mode : {TEPLUG_SCALING_PER_TENSOR, TEPLUG_SCALING_MXFP8_1D32,
                       TEPLUG_SCALING_BLOCK_1D128, TEPLUG_SCALING_BLOCK_2D128}) {
    for (int32_t dtype : {TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E5M2}) out.push_back({mode, dtype});
  }
  return out;
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::vector<int64_t> ScaleShape(int32_t mode, int64_t rows, int64_t cols) {
  switch (mode) {
    case TEPLUG_SCALING_MXFP8_1D32: return {rows, CeilDiv(cols, 32)};
    case TEPLUG_SCALING_BLOCK_1D128: return {rows, CeilDiv(cols, 128)};
    case TEPLUG_SCALING_BLOCK_2D128: return {CeilDiv(rows, 128), CeilDiv(cols, 128)};
    default: return {1};
  }
}

int32_t ScaleDType(int32_t mode) {
  return mode == TEPLUG_SCALING_MXFP8_1D32 ? TEPLUG_DTYPE_E8M0 : TEPLUG_DTYPE_FP32;
}

// Runs the entry once per test and finds IQuantizer v1.
class QuantizerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(host_.Run(&teplug_reference_entry).ok());
    q_ = testing::Find<TeplugQuantizerV1>(host_.recorded, sdk::kIidQuantizerV1);
    ASSERT_NE(q_, nullptr);
  }
  sdk::OwnedError Dequantize(TeplugTensor* in, TeplugTensor* out) {
    TeplugDequantizeArgs d = sdk::Versioned<TeplugDequantizeArgs>();
    d.input = in;
    d.output = out;
    return sdk::OwnedError(q_->vtbl->dequantize(q_, &d));
  }
  testing::DirectHost host_;
  TeplugQuantizerV1* q_ = nullptr;
  std::mt19937_64 rng_{777};
};

// The same, parameterised by the scaling case.
class QuantizerProviderTest : public QuantizerTest, public ::testing::WithParamInterface<Case> {
 protected:
  // An fp8 output [rows, cols] with row- and column-wise data and scales.
  std::unique_ptr<AbiTensor> MakeOutput(int64_t rows, int64_t cols) {
    const Case c = GetParam();
    auto out = std::make_unique<AbiTensor>(c.dtype, std::vector<int64_t>{rows, cols});
    const bool mx = c.mode == TEPLUG_SCALING_MXFP8_1D32;
    out->SetQuant(c.mode, std::make_unique<AbiTensor>(ScaleDType(c.mode), ScaleShape(c.mode, rows, cols)),
                  std::make_unique<AbiTensor>(c.dtype, mx ? std::vector<int64_t>{rows, cols}
                                                          : std::vector<int64_t>{cols, rows}),
                  std::make_unique<AbiTensor>(ScaleDType(c.mode),
                                              mx ? std::vector<int64_t>{CeilDiv(rows, 32), cols}
                                                 : ScaleShape(c.mode, cols, rows)));
    return out;
  }
};

// Checks |deq - x| against the half-ulp bound, blockwise scale_inv given per element.
void ExpectRoundTrip(const std::vector<double>& x, const std::vector<double>& deq,
                     const std::vector<double>& scale_inv_per_element, int32_t dtype,
                     const std::string& what) {
  const int mantissa = dtype == TEPLUG_DTYPE_FP8_E4M3 ? 3 : 2;
  const double min_subnormal = dtype == TEPLUG_DTYPE_FP8_E4M3 ? 0x1p-9 : 0x1p-16;
  const double max_normal = dtype == TEPLUG_DTYPE_FP8_E4M3 ? 448.0 : 57344.0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double xi = static_cast<float>(x[i]);
    const double bound = std::ldexp(std::fabs(xi), -(mantissa + 1)) +
                         0.5 * min_subnormal * scale_inv_per_element[i];
    // Values the scale pushed above max normal clamp (MX spec rule): bounded by the clamp.
    const double clamp = max_normal * scale_inv_per_element[i];
    const double want = std::fabs(xi) > clamp ? std::copysign(clamp, xi) : xi;
    ASSERT_LE(std::fabs(deq[i] - want), bound)
        << what << " element " << i << " x=" << xi << " deq=" << deq[i];
  }
}

TEST_P(QuantizerProviderTest, RowAndColumnwiseMatchNumericsAndRoundTrip) {
  const Case c = GetParam();
  const int64_t rows = 130, cols = 67;  // partial blocks on both axes
  AbiTensor input(TEPLUG_DTYPE_BF16, {rows, cols});
  std::vector<double> x = testing::RandomValues(rng_, rows * cols, 0.001, 50.0);
  input.Fill(x);
  x = input.Values();  // the bf16 values actually quantized
  auto out = MakeOutput(rows, cols);
  TeplugQuantizeArgs args = sdk::Versioned<TeplugQuantizeArgs>();
  args.input = input.get();
  args.output = out->get();
  args.recipe = TEPLUG_RECIPE_CURRENT;
  args.rowwise = 1;
  args.columnwise = 1;
  sdk::OwnedError e(q_->vtbl->quantize(q_, &args));
  ASSERT_TRUE(e.ok()) << e.message();

  const std::vector<float> xf(x.begin(), x.end());
  const Fp8Format format = c.dtype == TEPLUG_DTYPE_FP8_E4M3 ? Fp8Format::kE4M3 : Fp8Format::kE5M2;
  std::vector<unsigned char> want_rows, want_cols;
  if (c.mode == TEPLUG_SCALING_PER_TENSOR) {
    CurrentScalingOptions o;
    o.input_max_finite = DecodeBf16(0x7F7F);
    auto q = QuantizeWithCurrentScaling(xf.data(), rows, cols, format, o, true);
    ASSERT_TRUE(q.ok());
    want_rows.assign(q->data.begin(), q->data.end());
    want_cols.assign(q->columnwise_data.begin(), q->columnwise_data.end());
    EXPECT_EQ(out->scale_inv()->Values()[0], q->scale_inv);
  } else if (c.mode == TEPLUG_SCALING_MXFP8_1D32) {
    auto q = QuantizeMxfp8(xf.data(), rows, cols, format, MxScaleRule::kOcpSpec, true);
    ASSERT_TRUE(q.ok());
    want_rows.assign(q->data.begin(), q->data.end());
    want_cols.assign(q->columnwise_data.begin(), q->columnwise_data.end());  // not transposed
    std::vector<unsigned char> scales = out->scale_inv()->Bytes(), col_scales = out->columnwise_scale_inv()->Bytes();
    scales.pop_back();
    col_scales.pop_back();
    EXPECT_EQ(scales, std::vector<unsigned char>(q->scales.begin(), q->scales.end()));
    EXPECT_EQ(col_scales, std::vector<unsigned char>(q->columnwise_scales.begin(), q->columnwise_scales.end()));
  } else {
    BlockScalingOptions o;
    o.force_pow2_scales = false;
    o.input_max_finite = DecodeBf16(0x7F7F);
    auto q = QuantizeBlockScaled(xf.data(), rows, cols, format,
                                 c.mode == TEPLUG_SCALING_BLOCK_1D128 ? BlockScalingKind::k1D
                                                                      : BlockScalingKind::k2D,
                                 o, true);
    ASSERT_TRUE(q.ok());
    want_rows.assign(q->data.begin(), q->data.end());
    want_cols.assign(q->columnwise_data.begin(), q->columnwise_data.end());
  }
  std::vector<unsigned char> got_rows = out->Bytes(), got_cols = out->columnwise_data()->Bytes();
  got_rows.pop_back();  // AbiTensor keeps one spare byte
  got_cols.pop_back();
  EXPECT_EQ(got_rows, want_rows);
  EXPECT_EQ(got_cols, want_cols);

  // Round trips through the ABI's dequantize, row-wise and column-wise.
  AbiTensor deq(TEPLUG_DTYPE_FP32, {rows, cols});
  ASSERT_TRUE(Dequantize(out->get(), deq.get()).ok());
  std::vector<double> scale_rows(x.size()), scale_cols(x.size());
  const auto sr = out->scale_inv()->Values(), sc = out->columnwise_scale_inv()->Values();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = 0; k < cols; ++k) {
      switch (c.mode) {
        case TEPLUG_SCALING_PER_TENSOR:
          scale_rows[r * cols + k] = sr[0];
          scale_cols[k * rows + r] = sr[0];
          break;
        case TEPLUG_SCALING_MXFP8_1D32:  // column-wise indexed [rows, cols], blocks down columns
          scale_rows[r * cols + k] = sr[r * CeilDiv(cols, 32) + k / 32];
          scale_cols[r * cols + k] = sc[(r / 32) * cols + k];
          break;
        case TEPLUG_SCALING_BLOCK_1D128:
          scale_rows[r * cols + k] = sr[r * CeilDiv(cols, 128) + k / 128];
          scale_cols[k * rows + r] = sc[k * CeilDiv(rows, 128) + r / 128];
          break;
        default:
          scale_rows[r * cols + k] = sr[(r / 128) * CeilDiv(cols, 128) + k / 128];
          scale_cols[k * rows + r] = sc[(k / 128) * CeilDiv(rows, 128) + r / 128];
          break;
      }
    }
  }
  ExpectRoundTrip(x, deq.Values(), scale_rows, c.dtype, "rowwise");
  double amax = 0;  // recorded in every mode
  for (double v : x) amax = std::max(amax, std::fabs(v));
  EXPECT_EQ(out->amax()->Values()[0], amax);
  if (c.mode == TEPLUG_SCALING_MXFP8_1D32) {
    // Column-wise MXFP8 is not a row-wise tensor the ABI can dequantize: decode here.
    const std::vector<double> codes_cols = out->columnwise_data()->Values();
    std::vector<double> deq_cols(x.size());
    for (size_t i = 0; i < x.size(); ++i) deq_cols[i] = codes_cols[i] * scale_cols[i];
    ExpectRoundTrip(x, deq_cols, scale_cols, c.dtype, "columnwise");
    return;
  }
  // Column-wise: a [cols, rows] tensor with its own quantization.
  AbiTensor colwise(c.dtype, {cols, rows});
  std::vector<unsigned char> codes = out->columnwise_data()->Bytes();
  std::copy(codes.begin(), codes.end(), colwise.bytes());
  auto cs = std::make_unique<AbiTensor>(ScaleDType(c.mode), ScaleShape(c.mode, cols, rows));
  std::vector<unsigned char> sbytes = out->columnwise_scale_inv()->Bytes();
  std::copy(sbytes.begin(), sbytes.end(), cs->bytes());
  colwise.SetQuant(c.mode, std::move(cs));
  AbiTensor deq_cols(TEPLUG_DTYPE_FP32, {cols, rows});
  ASSERT_TRUE(Dequantize(colwise.get(), deq_cols.get()).ok());
  std::vector<double> xt(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = 0; k < cols; ++k) xt[k * rows + r] = x[r * cols + k];
  }
  ExpectRoundTrip(xt, deq_cols.Values(), scale_cols, c.dtype, "columnwise");
}

INSTANTIATE_TEST_SUITE_P(AllModes, QuantizerProviderTest, ::testing::ValuesIn(AllCases()), CaseName);

// Error paths and the delayed recipe, outside the parameterised suite.
using QuantizerErrorsTest = QuantizerTest;

TEST_F(QuantizerErrorsTest, DelayedScalingUsesTheGivenScale) {
  AbiTensor input(TEPLUG_DTYPE_FP32, {4, 8});
  input.Fill(testing::RandomValues(rng_, 32, 0.1, 3.0));
  AbiTensor out(TEPLUG_DTYPE_FP8_E4M3, {4, 8});
  out.SetPerTensor(100.0f, 0.0f);  // 3 * 100 = 300 < 448: nothing saturates
  TeplugQuantizeArgs args = sdk::Versioned<TeplugQuantizeArgs>();
  args.input = input.get();
  args.output = out.get();
  args.recipe = TEPLUG_RECIPE_DELAYED;
  args.rowwise = 1;
  ASSERT_TRUE(sdk::OwnedError(q_->vtbl->quantize(q_, &args)).ok());
  const auto x = input.Values(), codes = out.Values();
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_NEAR(codes[i], x[i] * 100.0, std::fabs(x[i] * 100.0) * 0x1p-4) << i;
  }
  EXPECT_EQ(out.scale_inv()->Values()[0], 1.0f / 100.0f);
  EXPECT_EQ(out.scale()->Values()[0], 100.0f);
}

// TransformerEngine's MX rule (mx_scale_rule, v1.3), checked from its
// definition in quantizer.h rather than against the numerics library: each
// block's scale code is the exponent of fp32(amax * fp32(1/448)) rounded up,
// no element saturates, and every element is within half an e4m3 ulp. The
// OCP call on the same input differs exactly on the blocks whose maximum's
// significand exceeds 1.75 (there TE's scale is twice OCP's); a caller built
// against v1.0 headers gets OCP whatever lies past its struct.
TEST_F(QuantizerErrorsTest, TransformerEnginesMxRuleFollowsItsDefinition) {
  constexpr int64_t kRows = 8, kCols = 96, kBlocks = kCols / 32;
  AbiTensor input(TEPLUG_DTYPE_FP32, {kRows, kCols});
  const std::vector<double> x = testing::RandomValues(rng_, kRows * kCols, 0.05, 1.0);
  input.Fill(x);
  auto quantize = [&](int32_t rule, size_t struct_size) {
    auto out =
        std::make_unique<AbiTensor>(TEPLUG_DTYPE_FP8_E4M3, std::vector<int64_t>{kRows, kCols});
    out->SetQuant(
        TEPLUG_SCALING_MXFP8_1D32,
        std::make_unique<AbiTensor>(TEPLUG_DTYPE_E8M0, std::vector<int64_t>{kRows, kBlocks}));
    TeplugQuantizeArgs args = sdk::Versioned<TeplugQuantizeArgs>();
    args.struct_size = struct_size;
    args.input = input.get();
    args.output = out->get();
    args.rowwise = 1;
    args.mx_scale_rule = rule;
    sdk::OwnedError e(q_->vtbl->quantize(q_, &args));
    EXPECT_TRUE(e.ok()) << e.message();
    return out;
  };
  const auto te = quantize(TEPLUG_MX_SCALE_TRANSFORMER_ENGINE, sizeof(TeplugQuantizeArgs));
  const auto ocp = quantize(TEPLUG_MX_SCALE_OCP, sizeof(TeplugQuantizeArgs));
  const std::vector<unsigned char> te_scales = te->scale_inv()->Bytes(),
                                   ocp_scales = ocp->scale_inv()->Bytes();
  const std::vector<double> te_codes = te->Values();
  int differing = 0;
  for (int64_t r = 0; r < kRows; ++r) {
    for (int64_t b = 0; b < kBlocks; ++b) {
      float amax = 0;
      for (int64_t i = 0; i < 32; ++i)
        amax = std::max(amax, std::fabs(static_cast<float>(x[r * kCols + 32 * b + i])));
      int exponent = 0;
      const float m = std::frexp(amax * (1.0f / 448.0f), &exponent);  // m in [0.5, 1)
      const int want = (m == 0.5f ? exponent - 1 : exponent) + 127;
      const size_t s = static_cast<size_t>(r * kBlocks + b);
      ASSERT_EQ(te_scales[s], want) << "block " << r << "," << b << " amax " << amax;
      const double scale = std::ldexp(1.0, want - 127);
      for (int64_t i = 0; i < 32; ++i) {
        const size_t k = static_cast<size_t>(r * kCols + 32 * b + i);
        const double xi = static_cast<float>(x[k]);
        EXPECT_LE(std::fabs(xi / scale), 448.0) << "TE's scale never saturates";
        EXPECT_LE(std::fabs(te_codes[k] * scale - xi),
                  std::ldexp(std::fabs(xi), -4) + 0x1p-10 * scale)
            << k;
      }
      int amax_exponent = 0;
      const bool above = 2 * std::frexp(amax, &amax_exponent) > 1.75f;
      EXPECT_EQ(te_scales[s], ocp_scales[s] + (above ? 1 : 0))
          << "block " << r << "," << b << " amax " << amax;
      differing += above ? 1 : 0;
    }
  }
  EXPECT_GT(differing, 0) << "the input never told the rules apart";
  const auto old =
      quantize(TEPLUG_MX_SCALE_TRANSFORMER_ENGINE, TEPLUG_STRUCT_SIZE(TeplugQuantizeArgs, stream));
  EXPECT_EQ(old->scale_inv()->Bytes(), ocp_scales) << "a v1.0 struct never asks for TE's rule";
  EXPECT_EQ(old->Bytes(), ocp->Bytes());

  AbiTensor out(TEPLUG_DTYPE_FP8_E4M3, {kRows, kCols});
  out.SetQuant(
      TEPLUG_SCALING_MXFP8_1D32,
      std::make_unique<AbiTensor>(TEPLUG_DTYPE_E8M0, std::vector<int64_t>{kRows, kBlocks}));
  TeplugQuantizeArgs bad = sdk::Versioned<TeplugQuantizeArgs>();
  bad.input = input.get();
  bad.output = out.get();
  bad.rowwise = 1;
  bad.mx_scale_rule = 5;
  sdk::OwnedError e(q_->vtbl->quantize(q_, &bad));
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(e.message(), "TeplugQuantizeArgs.mx_scale_rule 5 is not a TeplugMxScaleRule");
}

// The output's own data may be NULL when only the column-wise codes are
// written; with rowwise set, NULL data is refused by name.
TEST_F(QuantizerErrorsTest, OutputDataMayBeNullOnlyWithoutRowwise) {
  AbiTensor input(TEPLUG_DTYPE_FP32, {2, 32});
  input.Fill(testing::RandomValues(rng_, 64));
  AbiTensor out(TEPLUG_DTYPE_FP8_E4M3, {2, 32});
  out.SetQuant(TEPLUG_SCALING_BLOCK_1D128,
               std::make_unique<AbiTensor>(TEPLUG_DTYPE_FP32, std::vector<int64_t>{2, 1}),
               std::make_unique<AbiTensor>(TEPLUG_DTYPE_FP8_E4M3, std::vector<int64_t>{32, 2}),
               std::make_unique<AbiTensor>(TEPLUG_DTYPE_FP32, std::vector<int64_t>{32, 1}));
  out.get()->data = nullptr;
  TeplugQuantizeArgs args = sdk::Versioned<TeplugQuantizeArgs>();
  args.input = input.get();
  args.output = out.get();
  args.columnwise = 1;
  sdk::OwnedError e(q_->vtbl->quantize(q_, &args));
  EXPECT_TRUE(e.ok()) << e.message();

  args.rowwise = 1;
  e = sdk::OwnedError(q_->vtbl->quantize(q_, &args));
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("TeplugQuantizeArgs.output.data is NULL but rowwise is set"),
            std::string::npos)
      << e.message();
}

// A mix of zero and non-zero strides is malformed, in the input and in the
// output alike.
TEST_F(QuantizerErrorsTest, StridesMixingZeroAndNonZeroAreInvalid) {
  AbiTensor input(TEPLUG_DTYPE_FP32, {2, 32});
  input.Fill(testing::RandomValues(rng_, 64));
  AbiTensor out(TEPLUG_DTYPE_FP8_E4M3, {2, 32});
  out.SetPerTensor(1.0f, 0.0f);
  TeplugQuantizeArgs args = sdk::Versioned<TeplugQuantizeArgs>();
  args.input = input.get();
  args.output = out.get();
  args.recipe = TEPLUG_RECIPE_CURRENT;
  args.rowwise = 1;
  input.get()->strides[0] = 32;  // strides [32, 0]
  sdk::OwnedError e(q_->vtbl->quantize(q_, &args));
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("TeplugQuantizeArgs.input.strides [32, 0] mix zero and non-zero"),
            std::string::npos)
      << e.message();

  input.get()->strides[1] = 1;
  e = sdk::OwnedError(q_->vtbl->quantize(q_, &args));
  EXPECT_TRUE(e.ok()) << e.message();

  out.get()->strides[1] = 1;  // strides [0, 1]
  e = sdk::OwnedError(q_->vtbl->quantize(q_, &args));
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("TeplugQuantizeArgs.output.strides [0, 1] mix zero and non-zero"),
            std::string::npos)
      << e.message();

  TeplugDequantizeArgs deq = sdk::Versioned<TeplugDequantizeArgs>();
  AbiTensor back(TEPLUG_DTYPE_FP32, {2, 32});
  deq.input = out.get();
  deq.output = back.get();
  e = sdk::OwnedError(q_->vtbl->dequantize(q_, &deq));
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("TeplugDequantizeArgs.input.strides [0, 1] mix zero and non-zero"),
            std::string::npos)
      << e.message();
}

TEST_F(QuantizerErrorsTest, RefusesFp4AndMissingScales) {
  AbiTensor input(TEPLUG_DTYPE_FP32, {2, 32});
  input.Fill(testing::RandomValues(rng_, 64));
  AbiTensor fp4(TEPLUG_DTYPE_FP4_E2M1, {2, 32});
  fp4.SetQuant(TEPLUG_SCALING_MXFP8_1D32,
               std::make_unique<AbiTensor>(TEPLUG_DTYPE_E8M0, std::vector<int64_t>{2, 1}));
  TeplugQuantizeArgs args = sdk::Versioned<TeplugQuantizeArgs>();
  args.input = input.get();
  args.output = fp4.get();
  args.rowwise = 1;
  sdk::OwnedError e(q_->vtbl->quantize(q_, &args));
  EXPECT_EQ(e.code(), TEPLUG_UNSUPPORTED);
  EXPECT_NE(e.message().find("TeplugQuantizeArgs.output: dtype fp4_e2m1"), std::string::npos)
      << e.message();

  AbiTensor out(TEPLUG_DTYPE_FP8_E4M3, {2, 32});
  out.SetQuant(TEPLUG_SCALING_BLOCK_1D128, nullptr);
  args.output = out.get();
  e = sdk::OwnedError(q_->vtbl->quantize(q_, &args));
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("TeplugQuantizeArgs.output.quant.scale_inv is NULL"), std::string::npos)
      << e.message();

  out.SetQuant(TEPLUG_SCALING_BLOCK_1D128,
               std::make_unique<AbiTensor>(TEPLUG_DTYPE_FP32, std::vector<int64_t>{2, 2}));
  e = sdk::OwnedError(q_->vtbl->quantize(q_, &args));
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("scale_inv: shape [2, 2] but block_1d128 scaling of a [2, 32] tensor "
                             "needs [2, 1]"),
            std::string::npos)
      << e.message();
}

}  // namespace
}  // namespace teplug::reference::provider
