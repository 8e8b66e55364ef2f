// Every refusal of the native quantizer's argument checks, and the launch
// description of valid calls, without a GPU.
#include "native/quantize/quantize_plan.h"

#include <functional>
#include <ostream>
#include <string>

#include "gtest/gtest.h"
#include "native/quantize/testing/quantize_call.h"

namespace teplug::native::quantize {
namespace {

using testing::QuantizeCall;
using testing::TensorOf;

TEST(PlanQuantize, DelayedPerTensorCallBecomesItsLaunch) {
  QuantizeCall call(TEPLUG_SCALING_PER_TENSOR, 6, 40);
  // A rank-3 input is viewed as [prod(shape[:-1]), shape[-1]].
  call.input.rank = 3;
  call.input.shape[0] = 2;
  call.input.shape[1] = 3;
  call.input.shape[2] = 40;
  call.output.rank = 3;
  for (int k = 0; k < 3; ++k) call.output.shape[k] = call.input.shape[k];
  call.input.dtype = TEPLUG_DTYPE_BF16;
  call.args.stream = reinterpret_cast<TeplugStream>(0x1234);
  auto plan = PlanQuantize(call.args, true);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const QuantizeLaunch& l = plan->launch;
  EXPECT_EQ(l.input, call.input_buffer.data());
  EXPECT_EQ(l.input_type, HighPrecision::kBf16);
  EXPECT_EQ(l.rows, 6);
  EXPECT_EQ(l.cols, 40);
  EXPECT_EQ(l.kind, Fp8Kind::kE4M3);
  EXPECT_EQ(l.scaling, Scaling::kPerTensor);
  EXPECT_FALSE(l.current_scaling);
  EXPECT_EQ(l.scale, &call.scale_value);
  EXPECT_EQ(l.amax, &call.amax_value);
  EXPECT_EQ(l.rowwise_data, call.codes.data());
  EXPECT_EQ(l.rowwise_scale_inv, call.scale_inv_buffer.data());
  EXPECT_EQ(l.columnwise_data, call.columnwise_codes.data());
  EXPECT_EQ(l.columnwise_scale_inv, call.columnwise_scale_inv_buffer.data());
  EXPECT_EQ(l.input_max_finite, kBf16MaxFinite);
  EXPECT_EQ(l.stream, reinterpret_cast<void*>(0x1234));
  EXPECT_EQ(plan->ordinal, 0);
}

TEST(PlanQuantize, OptionsReachTheBlockModesButNotMx) {
  for (int32_t mode :
       {TEPLUG_SCALING_BLOCK_1D128, TEPLUG_SCALING_BLOCK_2D128, TEPLUG_SCALING_MXFP8_1D32}) {
    QuantizeCall call(mode, 130, 300);
    call.args.amax_epsilon = 0.25f;
    call.args.force_pow2_scales = 1;
    call.output.dtype = TEPLUG_DTYPE_FP8_E5M2;
    call.columnwise_data.dtype = TEPLUG_DTYPE_FP8_E5M2;
    call.input.dtype = TEPLUG_DTYPE_FP16;
    auto plan = PlanQuantize(call.args, true);
    ASSERT_TRUE(plan.ok()) << mode << ": " << plan.status();
    const bool mx = mode == TEPLUG_SCALING_MXFP8_1D32;
    EXPECT_EQ(plan->launch.amax_epsilon, mx ? 0.0f : 0.25f) << mode;
    EXPECT_EQ(plan->launch.force_pow2_scales, !mx) << mode;
    EXPECT_EQ(plan->launch.kind, Fp8Kind::kE5M2);
    EXPECT_EQ(plan->launch.input_max_finite, kFp16MaxFinite);
    EXPECT_EQ(plan->launch.mx_rule, MxRule::kOcp);
  }
}

TEST(PlanQuantize, TheMxScaleRuleReachesTheMxLaunchOnly) {
  for (int32_t mode :
       {TEPLUG_SCALING_PER_TENSOR, TEPLUG_SCALING_MXFP8_1D32, TEPLUG_SCALING_BLOCK_1D128}) {
    for (int32_t rule : {TEPLUG_MX_SCALE_OCP, TEPLUG_MX_SCALE_TRANSFORMER_ENGINE}) {
      QuantizeCall call(mode, 8, 64);
      call.args.mx_scale_rule = rule;
      auto plan = PlanQuantize(call.args, true);
      ASSERT_TRUE(plan.ok()) << mode << "/" << rule << ": " << plan.status();
      const bool te =
          mode == TEPLUG_SCALING_MXFP8_1D32 && rule == TEPLUG_MX_SCALE_TRANSFORMER_ENGINE;
      EXPECT_EQ(plan->launch.mx_rule, te ? MxRule::kTransformerEngine : MxRule::kOcp)
          << mode << "/" << rule;
    }
  }
  // A caller built against v1.0-v1.2 headers passes a struct without the field.
  QuantizeCall old(TEPLUG_SCALING_MXFP8_1D32, 8, 64);
  old.args.mx_scale_rule = TEPLUG_MX_SCALE_TRANSFORMER_ENGINE;  // past its struct_size: never read
  old.args.struct_size = TEPLUG_STRUCT_SIZE(TeplugQuantizeArgs, stream);
  auto plan = PlanQuantize(old.args, true);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->launch.mx_rule, MxRule::kOcp);
}

TEST(PlanQuantize, SupportsMayOmitDataButTheCallMayNot) {
  QuantizeCall call(TEPLUG_SCALING_MXFP8_1D32, 4, 64);
  call.input.data = nullptr;
  call.output.data = nullptr;
  EXPECT_TRUE(PlanQuantize(call.args, false).ok());
  auto refused = PlanQuantize(call.args, true);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "TeplugQuantizeArgs.input.data is NULL");
}

TEST(PlanQuantize, ColumnwiseOnlyNeedsNoRowwiseData) {
  QuantizeCall call(TEPLUG_SCALING_BLOCK_1D128, 4, 64);
  call.args.rowwise = 0;
  call.output.data = nullptr;
  call.quant.scale_inv = nullptr;
  auto plan = PlanQuantize(call.args, true);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->launch.rowwise_data, nullptr);
  EXPECT_NE(plan->launch.columnwise_data, nullptr);
}

struct Refusal {
  const char* what;
  int32_t mode;
  std::function<void(QuantizeCall&)> breaks;
  absl::StatusCode code;
  const char* message;  // the status message, exactly
};

void PrintTo(const Refusal& r, std::ostream* os) { *os << r.what; }

class QuantizeRefusal : public ::testing::TestWithParam<Refusal> {};

TEST_P(QuantizeRefusal, NamesTheFieldAndTheValue) {
  const Refusal& r = GetParam();
  QuantizeCall call(r.mode, 8, 64);
  r.breaks(call);
  auto plan = PlanQuantize(call.args, true);
  ASSERT_FALSE(plan.ok()) << r.what;
  EXPECT_EQ(plan.status().code(), r.code) << r.what << ": " << plan.status();
  EXPECT_EQ(std::string(plan.status().message()), r.message) << r.what;
}

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
constexpr auto kNotServed = absl::StatusCode::kUnimplemented;
TeplugDevice g_opencl = [] {
  TeplugDevice d = sdk::Versioned<TeplugDevice>();
  d.kind = TEPLUG_DEVICE_OPENCL;
  return d;
}();
TeplugDevice g_cuda1 = [] {
  TeplugDevice d = sdk::Versioned<TeplugDevice>();
  d.kind = TEPLUG_DEVICE_CUDA;
  d.ordinal = 1;
  return d;
}();

INSTANTIATE_TEST_SUITE_P(
    EveryField, QuantizeRefusal,
    ::testing::Values(Refusal{"input NULL", TEPLUG_SCALING_PER_TENSOR,
                              [](QuantizeCall& c) { c.args.input = nullptr; }, kInvalid,
                              "TeplugQuantizeArgs.input is NULL"},
                      Refusal{"mx_scale_rule outside the enum", TEPLUG_SCALING_MXFP8_1D32,
                              [](QuantizeCall& c) { c.args.mx_scale_rule = 2; }, kInvalid,
                              "TeplugQuantizeArgs.mx_scale_rule is 2; it must be ocp (0) or "
                              "transformer_engine (1)"},
                      Refusal{"input struct too small", TEPLUG_SCALING_PER_TENSOR,
                              [](QuantizeCall& c) { c.input.struct_size = 8; }, kInvalid,
                              "TeplugQuantizeArgs.input.struct_size 8 is smaller than v1.0's 168"},
                      Refusal{"input int8", TEPLUG_SCALING_PER_TENSOR,
                              [](QuantizeCall& c) { c.input.dtype = TEPLUG_DTYPE_INT8; }, kInvalid,
                              "TeplugQuantizeArgs.input.dtype is int8 (8); quantize reads fp32, "
                              "fp16 or bf16"},
                      Refusal{"input in host memory", TEPLUG_SCALING_PER_TENSOR,
                              [](QuantizeCall& c) { c.input.device = nullptr; }, kNotServed,
                              "TeplugQuantizeArgs.input is in host memory (device NULL): native "
                              "quantizes tensors in CUDA memory"},
                      Refusal{"input on OpenCL", TEPLUG_SCALING_PER_TENSOR,
                              [](QuantizeCall& c) { c.input.device = &g_opencl; }, kNotServed,
                              "TeplugQuantizeArgs.input is on a opencl device: native quantizes "
                              "tensors in CUDA memory"},
                      Refusal{"input strided", TEPLUG_SCALING_PER_TENSOR,
                              [](QuantizeCall& c) {
                                c.input.strides[0] = 128;
                                c.input.strides[1] = 1;
                              },
                              kNotServed,
                              "TeplugQuantizeArgs.input.strides[0] is 128 where row-major [8, 64] "
                              "has 64: native quantizes "
                              "contiguous row-major tensors only"},
                      Refusal{"input strides mixed", TEPLUG_SCALING_PER_TENSOR,
                              [](QuantizeCall& c) { c.input.strides[1] = 1; }, kInvalid,
                              "TeplugQuantizeArgs.input.strides mix zero and non-zero entries: "
                              "give all of them or none"},
                      Refusal{"input negative extent", TEPLUG_SCALING_PER_TENSOR,
                              [](QuantizeCall& c) { c.input.shape[0] = -2; }, kInvalid,
                              "TeplugQuantizeArgs.input.shape[0] is -2"},
                      Refusal{"input rank 9", TEPLUG_SCALING_PER_TENSOR,
                              [](QuantizeCall& c) { c.input.rank = 9; }, kInvalid,
                              "TeplugQuantizeArgs.input.rank 9 is outside 0..8"},
                      Refusal{"input misaligned", TEPLUG_SCALING_PER_TENSOR,
                              [](QuantizeCall& c) {
                                c.input.data = reinterpret_cast<char*>(c.input_buffer.data()) + 2;
                              },
                              kInvalid,
                              "TeplugQuantizeArgs.input.data is not aligned to its 4-byte fp32 "
                              "elements"},
                      Refusal{"output NULL", TEPLUG_SCALING_PER_TENSOR,
                              [](QuantizeCall& c) { c.args.output = nullptr; }, kInvalid,
                              "TeplugQuantizeArgs.output is NULL"},
                      Refusal{"output fp4", TEPLUG_SCALING_PER_TENSOR,
                              [](QuantizeCall& c) { c.output.dtype = TEPLUG_DTYPE_FP4_E2M1; },
                              kNotServed,
                              "TeplugQuantizeArgs.output.dtype is fp4_e2m1: native has no fp4 "
                              "scaling recipe (teplug v1.0 defines "
                              "none); use fp8_e4m3 or fp8_e5m2"},
                      Refusal{"output fp16", TEPLUG_SCALING_PER_TENSOR,
                              [](QuantizeCall& c) { c.output.dtype = TEPLUG_DTYPE_FP16; }, kInvalid,
                              "TeplugQuantizeArgs.output.dtype is fp16 (2); the quantized side is "
                              "fp8_e4m3, fp8_e5m2 or fp4_e2m1"},
                      Refusal{"output on another GPU", TEPLUG_SCALING_PER_TENSOR,
                              [](QuantizeCall& c) { c.output.device = &g_cuda1; }, kInvalid,
                              "TeplugQuantizeArgs.output is on cuda:1 but TeplugQuantizeArgs.input "
                              "is on cuda:0; one call runs on "
                              "one GPU"},
                      Refusal{"output shape", TEPLUG_SCALING_PER_TENSOR,
                              [](QuantizeCall& c) { c.output.shape[1] = 63; }, kInvalid,
                              "TeplugQuantizeArgs.output has shape [8, 63] but the input's shape "
                              "is [8, 64]"},
                      Refusal{
                          "quant NULL", TEPLUG_SCALING_PER_TENSOR,
                          [](QuantizeCall& c) { c.output.quant = nullptr; }, kInvalid,
                          "TeplugQuantizeArgs.output.quant is NULL: the scaling mode is needed"},
                      Refusal{"mode none", TEPLUG_SCALING_PER_TENSOR,
                              [](QuantizeCall& c) { c.quant.mode = TEPLUG_SCALING_NONE; }, kInvalid,
                              "TeplugQuantizeArgs.output.quant.mode is none (0); a quantized "
                              "tensor needs per_tensor, mxfp8_1d32, "
                              "block_1d128 or block_2d128"},
                      Refusal{"no direction", TEPLUG_SCALING_PER_TENSOR,
                              [](QuantizeCall& c) {
                                c.args.rowwise = 0;
                                c.args.columnwise = 0;
                              },
                              kInvalid,
                              "TeplugQuantizeArgs: rowwise and columnwise are both 0; at least one "
                              "output is needed"},
                      Refusal{"negative epsilon", TEPLUG_SCALING_BLOCK_1D128,
                              [](QuantizeCall& c) { c.args.amax_epsilon = -1.0f; }, kInvalid,
                              "TeplugQuantizeArgs.amax_epsilon is -1; it must be finite and >= 0"},
                      Refusal{"NaN epsilon", TEPLUG_SCALING_BLOCK_1D128,
                              [](QuantizeCall& c) { c.args.amax_epsilon = NAN; }, kInvalid,
                              "TeplugQuantizeArgs.amax_epsilon is nan; it must be finite and >= 0"},
                      Refusal{"scale_inv NULL", TEPLUG_SCALING_MXFP8_1D32,
                              [](QuantizeCall& c) { c.quant.scale_inv = nullptr; }, kInvalid,
                              "TeplugQuantizeArgs.output.quant.scale_inv is NULL"},
                      Refusal{"mx scales fp32", TEPLUG_SCALING_MXFP8_1D32,
                              [](QuantizeCall& c) { c.scale_inv.dtype = TEPLUG_DTYPE_FP32; },
                              kInvalid,
                              "TeplugQuantizeArgs.output.quant.scale_inv.dtype is fp32 (1); "
                              "mxfp8_1d32 scales are e8m0"},
                      Refusal{"mx scale grid", TEPLUG_SCALING_MXFP8_1D32,
                              [](QuantizeCall& c) { c.scale_inv.shape[1] = 3; }, kInvalid,
                              "TeplugQuantizeArgs.output.quant.scale_inv has shape [8, 3] but "
                              "mxfp8_1d32 scaling of a [8, 64] "
                              "tensor needs [8, 2]"},
                      Refusal{"2d scale grid", TEPLUG_SCALING_BLOCK_2D128,
                              [](QuantizeCall& c) { c.scale_inv.shape[0] = 8; }, kInvalid,
                              "TeplugQuantizeArgs.output.quant.scale_inv has shape [8, 1] but "
                              "block_2d128 scaling of a [8, 64] "
                              "tensor needs [1, 1]"},
                      Refusal{"per-tensor scale_inv of two", TEPLUG_SCALING_PER_TENSOR,
                              [](QuantizeCall& c) { c.scale_inv.shape[0] = 2; }, kInvalid,
                              "TeplugQuantizeArgs.output.quant.scale_inv has shape [2] (2 "
                              "elements) but per_tensor scaling of a "
                              "[8, 64] tensor needs one fp32 element"},
                      Refusal{"scale_inv in host memory", TEPLUG_SCALING_PER_TENSOR,
                              [](QuantizeCall& c) { c.scale_inv.device = nullptr; }, kNotServed,
                              "TeplugQuantizeArgs.output.quant.scale_inv is in host memory (device "
                              "NULL): native quantizes tensors "
                              "in CUDA memory"},
                      Refusal{"columnwise_data NULL", TEPLUG_SCALING_PER_TENSOR,
                              [](QuantizeCall& c) { c.quant.columnwise_data = nullptr; }, kInvalid,
                              "TeplugQuantizeArgs.output.quant.columnwise_data is NULL"},
                      Refusal{"columnwise not transposed", TEPLUG_SCALING_BLOCK_1D128,
                              [](QuantizeCall& c) {
                                c.columnwise_data.shape[0] = 8;
                                c.columnwise_data.shape[1] = 64;
                              },
                              kInvalid,
                              "TeplugQuantizeArgs.output.quant.columnwise_data has shape [8, 64] "
                              "but the column-wise copy is the "
                              "transpose [64, 8]"},
                      Refusal{"mx columnwise transposed", TEPLUG_SCALING_MXFP8_1D32,
                              [](QuantizeCall& c) {
                                c.columnwise_data.shape[0] = 64;
                                c.columnwise_data.shape[1] = 8;
                              },
                              kInvalid,
                              "TeplugQuantizeArgs.output.quant.columnwise_data has shape [64, 8] "
                              "but mxfp8_1d32 column-wise codes "
                              "keep the input's [rows, cols]: [8, 64]"},
                      Refusal{
                          "columnwise dtype", TEPLUG_SCALING_PER_TENSOR,
                          [](QuantizeCall& c) { c.columnwise_data.dtype = TEPLUG_DTYPE_FP8_E5M2; },
                          kInvalid,
                          "TeplugQuantizeArgs.output.quant.columnwise_data.dtype is fp8_e5m2 (5); "
                          "it must be the output's "
                          "fp8_e4m3"},
                      Refusal{"block columnwise scales NULL", TEPLUG_SCALING_BLOCK_2D128,
                              [](QuantizeCall& c) { c.quant.columnwise_scale_inv = nullptr; },
                              kInvalid,
                              "TeplugQuantizeArgs.output.quant.columnwise_scale_inv is NULL"},
                      Refusal{"1d columnwise grid", TEPLUG_SCALING_BLOCK_1D128,
                              [](QuantizeCall& c) {
                                c.columnwise_scale_inv.shape[0] = 1;
                                c.columnwise_scale_inv.shape[1] = 64;
                              },
                              kInvalid,
                              "TeplugQuantizeArgs.output.quant.columnwise_scale_inv has shape [1, "
                              "64] but column-wise block_1d128 "
                              "scaling of a [8, 64] tensor needs [64, 1]"},
                      Refusal{"mx columnwise grid", TEPLUG_SCALING_MXFP8_1D32,
                              [](QuantizeCall& c) { c.columnwise_scale_inv.shape[1] = 2; },
                              kInvalid,
                              "TeplugQuantizeArgs.output.quant.columnwise_scale_inv has shape [1, "
                              "2] but column-wise mxfp8_1d32 "
                              "scaling of a [8, 64] tensor needs [1, 64]"},
                      Refusal{
                          "recipe 7", TEPLUG_SCALING_PER_TENSOR,
                          [](QuantizeCall& c) { c.args.recipe = 7; }, kInvalid,
                          "TeplugQuantizeArgs.recipe is 7; it must be delayed (0) or current (1)"},
                      Refusal{"delayed without scale", TEPLUG_SCALING_PER_TENSOR,
                              [](QuantizeCall& c) { c.quant.scale = nullptr; }, kInvalid,
                              "TeplugQuantizeArgs.output.quant.scale is NULL"},
                      Refusal{"amax of two", TEPLUG_SCALING_MXFP8_1D32,
                              [](QuantizeCall& c) { c.amax.shape[0] = 2; }, kInvalid,
                              "TeplugQuantizeArgs.output.quant.amax has shape [2] (2 elements) but "
                              "amax is one fp32 element"},
                      Refusal{"output data NULL", TEPLUG_SCALING_PER_TENSOR,
                              [](QuantizeCall& c) { c.output.data = nullptr; }, kInvalid,
                              "TeplugQuantizeArgs.output.data is NULL"}),
    [](const ::testing::TestParamInfo<Refusal>& info) {
      std::string name = info.param.what;
      for (char& ch : name) {
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return name;
    });

TEST(PlanQuantize, CurrentScalingNeedsNoScale) {
  QuantizeCall call(TEPLUG_SCALING_PER_TENSOR, 8, 64);
  call.args.recipe = TEPLUG_RECIPE_CURRENT;
  call.quant.scale = nullptr;
  call.quant.columnwise_scale_inv = nullptr;  // optional in per-tensor mode
  auto plan = PlanQuantize(call.args, true);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->launch.current_scaling);
  EXPECT_EQ(plan->launch.scale, nullptr);
  EXPECT_EQ(plan->launch.columnwise_scale_inv, nullptr);
}

TEST(PlanDequantize, ValidMxCallBecomesItsLaunch) {
  QuantizeCall call(TEPLUG_SCALING_MXFP8_1D32, 8, 64);
  TeplugDequantizeArgs d = call.DequantizeArgs();
  call.dequantized.dtype = TEPLUG_DTYPE_BF16;
  auto plan = PlanDequantize(d, true);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->launch.codes, call.codes.data());
  EXPECT_EQ(plan->launch.scaling, Scaling::kMx);
  EXPECT_EQ(plan->launch.scale_inv, call.scale_inv_buffer.data());
  EXPECT_EQ(plan->launch.output, call.dequantized_buffer.data());
  EXPECT_EQ(plan->launch.output_type, HighPrecision::kBf16);
  EXPECT_EQ(plan->launch.rows, 8);
  EXPECT_EQ(plan->launch.cols, 64);
}

TEST(PlanDequantize, EveryRefusalNamesItsField) {
  struct Case {
    std::function<void(QuantizeCall&)> breaks;
    absl::StatusCode code;
    const char* message;
  };
  const Case cases[] = {
      {[](QuantizeCall& c) { c.output.dtype = TEPLUG_DTYPE_FP32; }, kInvalid,
       "TeplugDequantizeArgs.input.dtype is fp32 (1); the quantized side is fp8_e4m3, fp8_e5m2 or "
       "fp4_e2m1"},
      {[](QuantizeCall& c) { c.output.dtype = TEPLUG_DTYPE_FP4_E2M1; }, kNotServed,
       "TeplugDequantizeArgs.input.dtype is fp4_e2m1: native has no fp4 scaling recipe (teplug "
       "v1.0 defines none); "
       "use fp8_e4m3 or fp8_e5m2"},
      {[](QuantizeCall& c) { c.dequantized.dtype = TEPLUG_DTYPE_FP8_E4M3; }, kInvalid,
       "TeplugDequantizeArgs.output.dtype is fp8_e4m3 (4); dequantize writes fp32, fp16 or bf16"},
      {[](QuantizeCall& c) { c.dequantized.shape[0] = 4; }, kInvalid,
       "TeplugDequantizeArgs.output has shape [4, 64] but the input's shape is [8, 64]"},
      {[](QuantizeCall& c) { c.dequantized.device = nullptr; }, kNotServed,
       "TeplugDequantizeArgs.output is in host memory (device NULL): native quantizes tensors in "
       "CUDA memory"},
      {[](QuantizeCall& c) { c.quant.scale_inv = nullptr; }, kInvalid,
       "TeplugDequantizeArgs.input.quant.scale_inv is NULL: dequantize reads the row-wise data "
       "with its scales"},
      {[](QuantizeCall& c) { c.scale_inv.shape[1] = 1; }, kInvalid,
       "TeplugDequantizeArgs.input.quant.scale_inv has shape [8, 1] but mxfp8_1d32 scaling of a "
       "[8, 64] tensor "
       "needs [8, 2]"},
      {[](QuantizeCall& c) { c.output.quant = nullptr; }, kInvalid,
       "TeplugDequantizeArgs.input.quant is NULL: the scaling mode is needed"},
      {[](QuantizeCall& c) { c.output.data = nullptr; }, kInvalid,
       "TeplugDequantizeArgs.input.data is NULL"},
  };
  for (const Case& k : cases) {
    QuantizeCall call(TEPLUG_SCALING_MXFP8_1D32, 8, 64);
    TeplugDequantizeArgs d = call.DequantizeArgs();
    k.breaks(call);
    auto plan = PlanDequantize(d, true);
    ASSERT_FALSE(plan.ok()) << k.message;
    EXPECT_EQ(plan.status().code(), k.code) << k.message;
    EXPECT_EQ(std::string(plan.status().message()), k.message);
  }
}

}  // namespace
}  // namespace teplug::native::quantize
