// IQuantizer/1's mx_scale_rule, the args field added in ABI v1.3: described
// as a fact and in the summary, refused outside its enum, read as OCP from a
// caller's shorter v1.0 struct (by the description and the key alike), keyed,
// and served only by a descriptor that declares TransformerEngine's rule.
#include <string>
#include <vector>

#include "core/ops/interface_module.h"
#include "core/ops/op_signature.h"
#include "core/ops/quantizer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::core {
namespace {

using ::testing::HasSubstr;

const std::vector<TeplugDeviceSupport> kAnyDevice = {
    {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_ANY, 0, 0, 0}};
constexpr size_t kV10Size = TEPLUG_STRUCT_SIZE(TeplugQuantizeArgs, stream);

// bf16 [64, 256] quantized to fp8_e4m3 in `mode`, and a descriptor serving
// every mode and feature but TransformerEngine's rule.
class QuantizeCase {
 public:
  explicit QuantizeCase(int32_t mode) {
    for (TeplugTensor* t : {&in_, &out_}) {
      *t = sdk::Versioned<TeplugTensor>();
      t->rank = 2;
      t->shape[0] = 64;
      t->shape[1] = 256;
    }
    in_.dtype = TEPLUG_DTYPE_BF16;
    out_.dtype = TEPLUG_DTYPE_FP8_E4M3;
    quant_ = sdk::Versioned<TeplugQuantization>();
    quant_.mode = mode;
    out_.quant = &quant_;
    args_ = sdk::Versioned<TeplugQuantizeArgs>();
    args_.input = &in_;
    args_.output = &out_;
    args_.rowwise = 1;
    caps_ = sdk::Versioned<TeplugQuantizerCaps>();
    caps_.devices = kAnyDevice.data();
    caps_.num_devices = 1;
    caps_.input_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
    caps_.output_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3);
    caps_.scaling_modes = TEPLUG_SCALING_BIT(TEPLUG_SCALING_PER_TENSOR) |
                          TEPLUG_SCALING_BIT(TEPLUG_SCALING_MXFP8_1D32);
    caps_.features = TEPLUG_QUANT_CAP_CURRENT_SCALING | TEPLUG_QUANT_CAP_DELAYED_SCALING;
  }
  QuantizeCase(const QuantizeCase&) = delete;
  QuantizeCase& operator=(const QuantizeCase&) = delete;

  absl::StatusOr<OpDescription> Describe() const {
    return DescribeOp(QuantizerModule(), TEPLUG_OP_QUANTIZE, &args_);
  }
  // "" when the descriptor accepts the op, the refusal otherwise.
  std::string Verdict() const {
    absl::StatusOr<Capability> cap = QuantizerModule().ReadCapability(&caps_);
    if (!cap.ok()) return std::string(cap.status().message());
    absl::StatusOr<OpDescription> d = Describe();
    if (!d.ok()) return std::string(d.status().message());
    std::optional<Refusal> r = CheckCapability(*cap, *d);
    return r ? FormatRefusal(*r, cap->devices) : "";
  }
  std::vector<int64_t> Key() const {
    OpSignature s;
    EXPECT_TRUE(BuildSignature(QuantizerModule(), TEPLUG_OP_QUANTIZE, &args_, &s));
    return {s.words(), s.words() + s.size()};
  }

  TeplugTensor in_, out_;
  TeplugQuantization quant_;
  TeplugQuantizeArgs args_;
  TeplugQuantizerCaps caps_;
};

TEST(QuantizerModuleTest, TheRuleIsAFactAndNamedInTheSummary) {
  QuantizeCase c(TEPLUG_SCALING_MXFP8_1D32);
  absl::StatusOr<OpDescription> ocp = c.Describe();
  ASSERT_TRUE(ocp.ok()) << ocp.status();
  ASSERT_NE(ocp->Facts().Find("mx_scale_rule"), nullptr);
  EXPECT_EQ(ocp->Facts().Find("mx_scale_rule")->text, "ocp");
  EXPECT_THAT(ocp->summary, ::testing::Not(HasSubstr("transformer_engine")));
  c.args_.mx_scale_rule = TEPLUG_MX_SCALE_TRANSFORMER_ENGINE;
  absl::StatusOr<OpDescription> te = c.Describe();
  ASSERT_TRUE(te.ok()) << te.status();
  EXPECT_EQ(te->Facts().Find("mx_scale_rule")->text, "transformer_engine");
  EXPECT_THAT(te->summary, HasSubstr("mxfp8_1d32 transformer_engine scale rule"));
}

TEST(QuantizerModuleTest, ARuleOutsideTheEnumIsRefusedNamingTheField) {
  QuantizeCase c(TEPLUG_SCALING_PER_TENSOR);
  c.args_.mx_scale_rule = TEPLUG_MX_SCALE_COUNT_;
  absl::StatusOr<OpDescription> d = c.Describe();
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(d.status().message()),
              HasSubstr("TeplugQuantizeArgs.mx_scale_rule 2 is not a TeplugMxScaleRule"));
}

// A caller built against v1.0-v1.2 headers: whatever lies past its struct
// is not read (here a TE rule and garbage that would be refused).
TEST(QuantizerModuleTest, AV10StructReadsAsOcpInTheDescriptionAndTheKey) {
  QuantizeCase full(TEPLUG_SCALING_MXFP8_1D32);
  for (int32_t past_the_end : {int32_t{TEPLUG_MX_SCALE_TRANSFORMER_ENGINE}, int32_t{77}}) {
    QuantizeCase old(TEPLUG_SCALING_MXFP8_1D32);
    old.args_.struct_size = kV10Size;
    old.args_.mx_scale_rule = past_the_end;
    absl::StatusOr<OpDescription> d = old.Describe();
    ASSERT_TRUE(d.ok()) << d.status();
    EXPECT_EQ(d->Facts().Find("mx_scale_rule")->text, "ocp");
    EXPECT_EQ(old.Key(), full.Key()) << "a v1.0 struct keys as the OCP rule";
    EXPECT_EQ(old.Verdict(), "") << "a v1.0 caller never asks for TransformerEngine's rule";
  }
}

TEST(QuantizerModuleTest, TheRuleIsKeyed) {
  QuantizeCase ocp(TEPLUG_SCALING_MXFP8_1D32), te(TEPLUG_SCALING_MXFP8_1D32);
  te.args_.mx_scale_rule = TEPLUG_MX_SCALE_TRANSFORMER_ENGINE;
  EXPECT_NE(ocp.Key(), te.Key());
}

TEST(QuantizerModuleTest, TransformerEnginesRuleNeedsTheFeatureInMxModeOnly) {
  QuantizeCase mx(TEPLUG_SCALING_MXFP8_1D32);
  mx.args_.mx_scale_rule = TEPLUG_MX_SCALE_TRANSFORMER_ENGINE;
  EXPECT_EQ(mx.Verdict(), "TransformerEngine's MXFP8 scale rule not supported");
  mx.caps_.features |= TEPLUG_QUANT_CAP_MX_TE_SCALE;
  EXPECT_EQ(mx.Verdict(), "");
  // Other modes ignore the rule, so a descriptor without the feature serves them.
  QuantizeCase per_tensor(TEPLUG_SCALING_PER_TENSOR);
  per_tensor.args_.mx_scale_rule = TEPLUG_MX_SCALE_TRANSFORMER_ENGINE;
  EXPECT_EQ(per_tensor.Verdict(), "");
}

}  // namespace
}  // namespace teplug::core
