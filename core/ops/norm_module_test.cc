// INorm/1's core module: its args are validated and described from its field
// tables (facts, summary), its descriptor is read with every limit checked,
// each capability refuses with the values involved, and its key holds
// exactly the keyed fields.
#include <string>

#include "core/ops/interface_module.h"
#include "core/ops/norm.h"
#include "core/ops/op_signature.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "teplug/quantizer.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::core {
namespace {

using ::testing::HasSubstr;

const std::vector<TeplugDeviceSupport> kAnyDevice = {{sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_ANY, 0, 0, 0}};

// A bf16 LayerNorm forward over [4, 256] with a descriptor that accepts it.
class NormCase {
 public:
  NormCase() {
    for (TeplugTensor* t : {&x_, &gamma_, &beta_, &y_, &mu_, &rsigma_, &dy_, &dx_, &dgamma_, &dbeta_}) {
      *t = sdk::Versioned<TeplugTensor>();
      t->dtype = TEPLUG_DTYPE_BF16;
    }
    for (TeplugTensor* t : {&x_, &y_, &dy_, &dx_}) Shape(t, {4, 256});
    for (TeplugTensor* t : {&gamma_, &beta_, &dgamma_, &dbeta_}) Shape(t, {256});
    for (TeplugTensor* t : {&mu_, &rsigma_}) {
      Shape(t, {4});
      t->dtype = TEPLUG_DTYPE_FP32;
    }
    fwd_ = sdk::Versioned<TeplugNormFwdArgs>();
    fwd_.norm_type = TEPLUG_NORM_LAYERNORM;
    fwd_.epsilon = 1e-5f;
    fwd_.x = &x_, fwd_.gamma = &gamma_, fwd_.beta = &beta_, fwd_.y = &y_, fwd_.mu = &mu_, fwd_.rsigma = &rsigma_;
    bwd_ = sdk::Versioned<TeplugNormBwdArgs>();
    bwd_.norm_type = TEPLUG_NORM_LAYERNORM;
    bwd_.dy = &dy_, bwd_.x = &x_, bwd_.mu = &mu_, bwd_.rsigma = &rsigma_, bwd_.gamma = &gamma_;
    bwd_.dx = &dx_, bwd_.dgamma = &dgamma_, bwd_.dbeta = &dbeta_;
    caps_ = sdk::Versioned<TeplugNormCaps>();
    caps_.devices = kAnyDevice.data();
    caps_.num_devices = 1;
    caps_.input_dtypes = caps_.weight_dtypes = caps_.output_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
    caps_.norm_types = TEPLUG_NORM_TYPE_BIT(TEPLUG_NORM_LAYERNORM) | TEPLUG_NORM_TYPE_BIT(TEPLUG_NORM_RMSNORM);
    caps_.features = TEPLUG_NORM_CAP_BACKWARD | TEPLUG_NORM_CAP_ZERO_CENTERED_GAMMA;
  }
  NormCase(const NormCase&) = delete;
  NormCase& operator=(const NormCase&) = delete;

  static void Shape(TeplugTensor* t, std::initializer_list<int64_t> dims) {
    t->rank = 0;
    for (int64_t d : dims) t->shape[t->rank++] = d;
  }
  // "" when the descriptor accepts the op, the refusal otherwise; the
  // descriptor's own problem when it is malformed.
  std::string Verdict(int32_t op) {
    absl::StatusOr<Capability> cap = NormModule().ReadCapability(&caps_);
    if (!cap.ok()) return std::string(cap.status().message());
    absl::StatusOr<OpDescription> d = Describe(op);
    if (!d.ok()) return std::string(d.status().message());
    std::optional<Refusal> r = CheckCapability(*cap, *d);
    return r ? FormatRefusal(*r, cap->devices) : "";
  }
  absl::StatusOr<OpDescription> Describe(int32_t op) {
    return DescribeOp(NormModule(), op, op == TEPLUG_NORM_OP_FORWARD ? static_cast<const void*>(&fwd_) : &bwd_);
  }

  TeplugTensor x_, gamma_, beta_, y_, mu_, rsigma_, dy_, dx_, dgamma_, dbeta_;
  TeplugNormFwdArgs fwd_;
  TeplugNormBwdArgs bwd_;
  TeplugNormCaps caps_;
};

TEST(NormModuleTest, DescribedWithItsFactsAndSummary) {
  NormCase n;
  n.fwd_.zero_centered_gamma = 1;
  absl::StatusOr<OpDescription> d = n.Describe(TEPLUG_NORM_OP_FORWARD);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->summary, "norm forward layernorm bf16[4,256] hidden=256 zero_centered_gamma on cpu:0");
  const config::OpFacts facts = d->Facts();
  EXPECT_EQ(facts.interface_name, "norm");
  EXPECT_EQ(facts.op, "forward");
  ASSERT_NE(facts.Find("norm_type"), nullptr);
  EXPECT_EQ(facts.Find("norm_type")->text, "layernorm");
  EXPECT_EQ(facts.Find("dtype")->text, "bf16");
  EXPECT_EQ(facts.Find("output_dtype")->text, "bf16");
  EXPECT_EQ(facts.Find("hidden_size")->number, 256);
  EXPECT_EQ(facts.Find("head_dim"), nullptr) << "a norm has no attention facts";
}

TEST(NormModuleTest, MalformedArgsNameTheField) {
  NormCase n;
  n.fwd_.norm_type = TEPLUG_NORM_TYPE_COUNT_;
  EXPECT_THAT(std::string(n.Describe(TEPLUG_NORM_OP_FORWARD).status().message()),
              HasSubstr("TeplugNormFwdArgs.norm_type 2 is not a TeplugNormType"));
  n.fwd_.norm_type = TEPLUG_NORM_LAYERNORM;
  n.fwd_.y = nullptr;
  EXPECT_THAT(std::string(n.Describe(TEPLUG_NORM_OP_FORWARD).status().message()),
              HasSubstr("TeplugNormFwdArgs.y is NULL"));
  n.bwd_.rsigma = nullptr;
  EXPECT_THAT(std::string(n.Describe(TEPLUG_NORM_OP_BACKWARD).status().message()),
              HasSubstr("TeplugNormBwdArgs.rsigma is NULL"));
  n.bwd_.struct_size = TEPLUG_STRUCT_SIZE(TeplugNormBwdArgs, stream) - 1;
  EXPECT_THAT(std::string(n.Describe(TEPLUG_NORM_OP_BACKWARD).status().message()),
              HasSubstr("TeplugNormBwdArgs.struct_size"));
}

TEST(NormModuleTest, EachCapabilityRefusesWithItsValues) {
  NormCase n;
  EXPECT_EQ(n.Verdict(TEPLUG_NORM_OP_FORWARD), "");
  EXPECT_EQ(n.Verdict(TEPLUG_NORM_OP_BACKWARD), "");
  n.caps_.norm_types = TEPLUG_NORM_TYPE_BIT(TEPLUG_NORM_RMSNORM);
  EXPECT_EQ(n.Verdict(TEPLUG_NORM_OP_FORWARD), "norm type layernorm not in {rmsnorm}");
  n.caps_.norm_types |= TEPLUG_NORM_TYPE_BIT(TEPLUG_NORM_LAYERNORM);
  n.caps_.features = TEPLUG_NORM_CAP_ZERO_CENTERED_GAMMA;
  EXPECT_EQ(n.Verdict(TEPLUG_NORM_OP_BACKWARD), "backward not supported");
  n.caps_.features = TEPLUG_NORM_CAP_BACKWARD;
  n.fwd_.zero_centered_gamma = 1;
  EXPECT_EQ(n.Verdict(TEPLUG_NORM_OP_FORWARD), "zero-centered gamma not supported");
  n.fwd_.zero_centered_gamma = 0;
  n.gamma_.dtype = TEPLUG_DTYPE_FP32;
  EXPECT_EQ(n.Verdict(TEPLUG_NORM_OP_FORWARD), "gamma dtype fp32 not in {bf16}");
  n.gamma_.dtype = TEPLUG_DTYPE_BF16;
  n.y_.dtype = TEPLUG_DTYPE_FP8_E4M3;
  EXPECT_EQ(n.Verdict(TEPLUG_NORM_OP_FORWARD), "y dtype fp8_e4m3 not in {bf16}");
  n.caps_.output_dtypes |= TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3);
  TeplugQuantization mx = sdk::Versioned<TeplugQuantization>();
  mx.mode = TEPLUG_SCALING_MXFP8_1D32;
  n.y_.quant = &mx;
  EXPECT_EQ(n.Verdict(TEPLUG_NORM_OP_FORWARD), "y scaling mode mxfp8_1d32 not in {}");
  n.caps_.scaling_modes = TEPLUG_SCALING_BIT(TEPLUG_SCALING_MXFP8_1D32);
  EXPECT_EQ(n.Verdict(TEPLUG_NORM_OP_FORWARD), "");
}

// mx_scale_rule (v1.3): TransformerEngine's rule for an MXFP8 y needs the
// feature; other outputs ignore the field; a v1.0 struct reads as OCP; the
// rule is a fact, named in the summary and keyed.
TEST(NormModuleTest, TransformerEnginesMxRuleNeedsTheFeatureForAnMxfp8Y) {
  NormCase n;
  n.fwd_.mx_scale_rule = TEPLUG_MX_SCALE_TRANSFORMER_ENGINE;
  EXPECT_EQ(n.Verdict(TEPLUG_NORM_OP_FORWARD), "") << "a bf16 y ignores the rule";
  n.caps_.output_dtypes |= TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3);
  n.caps_.scaling_modes = TEPLUG_SCALING_BIT(TEPLUG_SCALING_MXFP8_1D32);
  TeplugQuantization mx = sdk::Versioned<TeplugQuantization>();
  mx.mode = TEPLUG_SCALING_MXFP8_1D32;
  n.y_.dtype = TEPLUG_DTYPE_FP8_E4M3;
  n.y_.quant = &mx;
  auto key = [&] {
    OpSignature sig;
    EXPECT_TRUE(BuildSignature(NormModule(), TEPLUG_NORM_OP_FORWARD, &n.fwd_, &sig));
    return sig;
  };
  const OpSignature te_key = key();
  EXPECT_EQ(n.Verdict(TEPLUG_NORM_OP_FORWARD),
            "TransformerEngine's MXFP8 scale rule not supported");
  absl::StatusOr<OpDescription> d = n.Describe(TEPLUG_NORM_OP_FORWARD);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->Facts().Find("mx_scale_rule")->text, "transformer_engine");
  EXPECT_THAT(d->summary, HasSubstr("transformer_engine scale rule"));
  n.caps_.features |= TEPLUG_NORM_CAP_MX_TE_SCALE;
  EXPECT_EQ(n.Verdict(TEPLUG_NORM_OP_FORWARD), "");
  n.caps_.features &= ~TEPLUG_NORM_CAP_MX_TE_SCALE;
  // A caller built against v1.0-v1.2 headers: the field lies past its struct.
  n.fwd_.struct_size = TEPLUG_STRUCT_SIZE(TeplugNormFwdArgs, stream);
  EXPECT_EQ(n.Verdict(TEPLUG_NORM_OP_FORWARD), "");
  d = n.Describe(TEPLUG_NORM_OP_FORWARD);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->Facts().Find("mx_scale_rule")->text, "ocp");
  const OpSignature old_key = key();
  n.fwd_.struct_size = sizeof(TeplugNormFwdArgs);
  n.fwd_.mx_scale_rule = TEPLUG_MX_SCALE_OCP;
  EXPECT_EQ(key(), old_key) << "a v1.0 struct keys as the OCP rule";
  EXPECT_FALSE(key() == te_key) << "the rule is keyed";
  n.fwd_.mx_scale_rule = TEPLUG_MX_SCALE_COUNT_;
  EXPECT_THAT(std::string(n.Describe(TEPLUG_NORM_OP_FORWARD).status().message()),
              HasSubstr("TeplugNormFwdArgs.mx_scale_rule 2 is not a TeplugMxScaleRule"));
}

TEST(NormModuleTest, HiddenSizeLimitsAreInclusive) {
  NormCase n;
  n.caps_.hidden_min = 256;
  n.caps_.hidden_max = 256;
  EXPECT_EQ(n.Verdict(TEPLUG_NORM_OP_FORWARD), "");
  n.caps_.hidden_min = 257;
  n.caps_.hidden_max = 0;
  EXPECT_EQ(n.Verdict(TEPLUG_NORM_OP_FORWARD), "hidden size 256 < min 257");
  n.caps_.hidden_min = 0;
  n.caps_.hidden_max = 255;
  EXPECT_EQ(n.Verdict(TEPLUG_NORM_OP_FORWARD), "hidden size 256 > max 255");
  n.caps_.hidden_max = 0;
  n.caps_.hidden_multiple = 128;
  EXPECT_EQ(n.Verdict(TEPLUG_NORM_OP_FORWARD), "");
  n.caps_.hidden_multiple = 96;
  EXPECT_EQ(n.Verdict(TEPLUG_NORM_OP_FORWARD), "hidden size 256 not a multiple of 96");
}

TEST(NormModuleTest, DescriptorBoundsMayBeEqualButNotInverted) {
  NormCase n;
  n.caps_.hidden_min = 1;
  n.caps_.hidden_max = 1;
  EXPECT_TRUE(NormModule().ReadCapability(&n.caps_).ok());
  n.caps_.hidden_min = 2;
  EXPECT_THAT(std::string(NormModule().ReadCapability(&n.caps_).status().message()),
              HasSubstr("TeplugNormCaps.hidden_min 2 > hidden_max 1"));
  n.caps_.hidden_min = 0;
  n.caps_.hidden_max = 0;
  n.caps_.norm_types = 0;
  EXPECT_THAT(std::string(NormModule().ReadCapability(&n.caps_).status().message()),
              HasSubstr("TeplugNormCaps.norm_types is 0"));
  n.caps_.norm_types = 1u << TEPLUG_NORM_TYPE_COUNT_;
  EXPECT_THAT(std::string(NormModule().ReadCapability(&n.caps_).status().message()),
              HasSubstr("TeplugNormCaps.norm_types 0x4 sets unknown bits"));
}

// The key holds the norm type, zero-centered gamma and every tensor's shape,
// and not the per-call epsilon or data addresses.
TEST(NormModuleTest, KeyHoldsTheKeyedFieldsOnly) {
  NormCase n;
  auto key = [&] {
    OpSignature sig;
    EXPECT_TRUE(BuildSignature(NormModule(), TEPLUG_NORM_OP_FORWARD, &n.fwd_, &sig));
    return sig;
  };
  const OpSignature base = key();
  n.fwd_.epsilon = 1e-3f;
  alignas(256) static char data[256];
  n.x_.data = data;  // 256-byte aligned: the same alignment class as NULL (both capped at 256)
  EXPECT_EQ(key(), base) << "epsilon and a data address of the same alignment class are per-call";
  n.x_.data = data + 2;
  EXPECT_FALSE(key() == base) << "the alignment class is keyed";
  n.x_.data = data;
  n.fwd_.norm_type = TEPLUG_NORM_RMSNORM;
  EXPECT_FALSE(key() == base);
  n.fwd_.norm_type = TEPLUG_NORM_LAYERNORM;
  n.fwd_.zero_centered_gamma = 1;
  EXPECT_FALSE(key() == base);
  n.fwd_.zero_centered_gamma = 0;
  n.gamma_.shape[0] = 512;
  EXPECT_FALSE(key() == base);
  n.gamma_.shape[0] = 256;
  EXPECT_EQ(key(), base);
}

}  // namespace
}  // namespace teplug::core
