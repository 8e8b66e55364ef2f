// The native IQuantizer's capability descriptor declares exactly what its
// argument checks accept: every declared (input dtype, output dtype, mode)
// combination plans, every undeclared one is refused; each declared feature
// is a call the checks accept.
#include "native/quantize/quantizer_caps.h"

#include "gtest/gtest.h"
#include "native/quantize/quantize_plan.h"
#include "native/quantize/testing/quantize_call.h"

namespace teplug::native::quantize {
namespace {

using testing::QuantizeCall;

TEST(NativeQuantizerCaps, DeclaresExactlyWhatTheChecksServe) {
  const TeplugQuantizerCaps& caps = *NativeQuantizerCaps();
  int served = 0;
  for (int32_t in = 1; in < TEPLUG_DTYPE_COUNT_; ++in) {
    for (int32_t out = 1; out < TEPLUG_DTYPE_COUNT_; ++out) {
      for (int32_t mode = 0; mode < TEPLUG_SCALING_COUNT_; ++mode) {
        QuantizeCall call(mode, 8, 256);
        call.input.dtype = in;
        call.output.dtype = out;
        call.columnwise_data.dtype = out;
        const bool declared = (caps.input_dtypes & TEPLUG_DTYPE_BIT(in)) != 0 &&
                              (caps.output_dtypes & TEPLUG_DTYPE_BIT(out)) != 0 &&
                              (caps.scaling_modes & TEPLUG_SCALING_BIT(mode)) != 0;
        const auto plan = PlanQuantize(call.args, false);
        EXPECT_EQ(plan.ok(), declared)
            << "input " << in << " output " << out << " mode " << mode << ": " << plan.status();
        served += plan.ok() ? 1 : 0;
      }
    }
  }
  EXPECT_EQ(served, 3 * 2 * 4);
}

TEST(NativeQuantizerCaps, EveryDeclaredFeatureIsAcceptedAndDevicesAreCudaWithoutBounds) {
  const TeplugQuantizerCaps& caps = *NativeQuantizerCaps();
  ASSERT_EQ(caps.num_devices, 1u);
  EXPECT_EQ(caps.devices[0].kind, TEPLUG_DEVICE_CUDA);
  // Open vendor and arch, so that supports() answers with the runtime's reason.
  EXPECT_EQ(caps.devices[0].vendor_id, TEPLUG_VENDOR_ANY);
  EXPECT_EQ(caps.devices[0].arch_min, 0);
  EXPECT_EQ(caps.devices[0].arch_max, 0);

  QuantizeCall current(TEPLUG_SCALING_PER_TENSOR, 8, 256);
  current.args.recipe = TEPLUG_RECIPE_CURRENT;
  EXPECT_EQ(PlanQuantize(current.args, true).ok(),
            (caps.features & TEPLUG_QUANT_CAP_CURRENT_SCALING) != 0);
  QuantizeCall delayed(TEPLUG_SCALING_PER_TENSOR, 8, 256);
  EXPECT_EQ(PlanQuantize(delayed.args, true).ok(),
            (caps.features & TEPLUG_QUANT_CAP_DELAYED_SCALING) != 0);
  QuantizeCall columnwise(TEPLUG_SCALING_BLOCK_1D128, 8, 256);
  columnwise.args.rowwise = 0;
  EXPECT_EQ(PlanQuantize(columnwise.args, true).ok(),
            (caps.features & TEPLUG_QUANT_CAP_COLUMNWISE) != 0);
  QuantizeCall dequantize(TEPLUG_SCALING_MXFP8_1D32, 8, 256);
  EXPECT_EQ(PlanDequantize(dequantize.DequantizeArgs(), true).ok(),
            (caps.features & TEPLUG_QUANT_CAP_DEQUANTIZE) != 0);
  QuantizeCall te_rule(TEPLUG_SCALING_MXFP8_1D32, 8, 256);
  te_rule.args.mx_scale_rule = TEPLUG_MX_SCALE_TRANSFORMER_ENGINE;
  const auto te_plan = PlanQuantize(te_rule.args, true);
  EXPECT_EQ(te_plan.ok() && te_plan->launch.mx_rule == MxRule::kTransformerEngine,
            (caps.features & TEPLUG_QUANT_CAP_MX_TE_SCALE) != 0);
  EXPECT_EQ(caps.features, TEPLUG_QUANT_CAP_CURRENT_SCALING | TEPLUG_QUANT_CAP_DELAYED_SCALING |
                               TEPLUG_QUANT_CAP_COLUMNWISE | TEPLUG_QUANT_CAP_DEQUANTIZE |
                               TEPLUG_QUANT_CAP_MX_TE_SCALE);
}

}  // namespace
}  // namespace teplug::native::quantize
