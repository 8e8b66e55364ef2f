// What the cpu provider's IGemm refuses, and how: supports() answers false
// with a reason naming the field and value for well-formed args it does not
// serve (through the ABI object, as the core calls it), and the op itself
// reports malformed args as INVALID_ARGUMENT naming the field.
#include <memory>
#include <string>
#include <tuple>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/cpu/provider/capabilities.h"
#include "plugins/cpu/provider/gemm_provider.h"
#include "plugins/cpu/provider/testing/test_matrix.h"
#include "teplug/sdk/implement.hpp"

namespace teplug::cpu::provider {
namespace {

using ::testing::HasSubstr;
using testing::TestMatrix;

// A valid fp32 [4, 6] x [6, 5] call whose tensors a test then spoils.
class GemmRefusalTest : public ::testing::Test {
 protected:
  GemmRefusalTest() {
    std::mt19937_64 rng(7);
    a_.FillRandom(rng);
    b_.FillRandom(rng);
    args_.struct_size = sizeof(TeplugGemmArgs);
    args_.a = a_.tensor();
    args_.b = b_.tensor();
    args_.d = d_.tensor();
    args_.alpha = 1.f;
    object_ = sdk::MakeGemm(std::make_unique<CpuGemm>());
  }
  ~GemmRefusalTest() override {
    object_->vtbl->base.release(reinterpret_cast<TeplugObject*>(object_));
  }

  // supports() through the ABI: "" when it accepts, else the reason.
  std::string Refusal() {
    char reason[512] = {};
    const TeplugBool ok = object_->vtbl->supports(reinterpret_cast<TeplugObject*>(object_),
                                                  TEPLUG_OP_GEMM, &args_, reason, sizeof(reason));
    if (ok) return "";
    EXPECT_NE(reason[0], '\0') << "a refusal without a reason";
    return reason;
  }
  // The op through the ABI: its error code and message (code 0 on success).
  std::pair<int32_t, std::string> Call() {
    TeplugError* error = object_->vtbl->gemm(object_, &args_);
    if (error == nullptr) return {0, ""};
    std::pair<int32_t, std::string> out{error->code, error->message ? error->message : ""};
    error->destroy(error);
    return out;
  }

  TestMatrix a_{TEPLUG_DTYPE_FP32, 4, 6}, b_{TEPLUG_DTYPE_FP32, 6, 5}, d_{TEPLUG_DTYPE_FP32, 4, 5};
  TeplugGemmArgs args_{};
  TeplugGemmV1* object_ = nullptr;
};

TEST_F(GemmRefusalTest, AcceptsTheValidCall) {
  EXPECT_EQ(Refusal(), "");
  EXPECT_EQ(Call().first, 0);
}

// An fp8 operand is served with its row-wise scales; without them (or with
// scales of the wrong dtype or shape) the call is malformed, named; an fp8
// operand or scale tensor that is not contiguous is not served.
class Fp8OperandTest : public GemmRefusalTest {
 protected:
  Fp8OperandTest() {
    a_.tensor()->dtype = TEPLUG_DTYPE_FP8_E4M3;
    scale_.struct_size = sizeof(TeplugTensor);
    scale_.data = scale_values_;
    scale_.dtype = TEPLUG_DTYPE_FP32;
    scale_.rank = 1;
    scale_.shape[0] = 1;
    quant_.struct_size = sizeof(TeplugQuantization);
    quant_.mode = TEPLUG_SCALING_PER_TENSOR;
    quant_.scale_inv = &scale_;
    a_.tensor()->quant = &quant_;
  }
  float scale_values_[8] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
  TeplugTensor scale_{};
  TeplugQuantization quant_{};
};

TEST_F(Fp8OperandTest, ServesAnFp8OperandWithItsScales) {
  EXPECT_EQ(Refusal(), "");
  EXPECT_EQ(Call().first, 0);
}

TEST_F(Fp8OperandTest, MissingScalesAreInvalidArgumentNamingTheField) {
  a_.tensor()->quant = nullptr;
  auto [code, message] = Call();
  EXPECT_EQ(code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("TeplugGemmArgs.a is fp8_e4m3 but has no quant"));
  a_.tensor()->quant = &quant_;
  quant_.scale_inv = nullptr;
  std::tie(code, message) = Call();
  EXPECT_EQ(code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("TeplugGemmArgs.a.quant->scale_inv is NULL"));
  quant_.scale_inv = &scale_;
  quant_.mode = TEPLUG_SCALING_NONE;
  std::tie(code, message) = Call();
  EXPECT_EQ(code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("TeplugGemmArgs.a.quant->mode 0"));
}

TEST_F(Fp8OperandTest, ScalesOfTheWrongDTypeOrShapeAreInvalidArgument) {
  quant_.mode = TEPLUG_SCALING_MXFP8_1D32;  // wants e8m0 [4, 1]
  auto [code, message] = Call();
  EXPECT_EQ(code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(message,
              HasSubstr("TeplugGemmArgs.a.quant->scale_inv.dtype fp32: mxfp8_1d32 scales are e8m0"));
  quant_.mode = TEPLUG_SCALING_BLOCK_1D128;  // wants fp32 [4, 1]
  std::tie(code, message) = Call();
  EXPECT_EQ(code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("shape [1] but block_1d128 scales of a [4, 6] operand are [4, 1]"));
  scale_.rank = 2;
  scale_.shape[0] = 4;
  scale_.shape[1] = 1;
  EXPECT_EQ(Call().first, 0);
}

TEST_F(Fp8OperandTest, NonContiguousFp8IsNotServedNamingIt) {
  a_.tensor()->strides[0] = 7;
  a_.tensor()->strides[1] = 1;
  EXPECT_THAT(Refusal(), HasSubstr("reads quantized operands contiguous only"));
}

TEST_F(Fp8OperandTest, QuantOnAnUnquantizedOperandOrAnFp8DIsNotServed) {
  TeplugQuantization quant{};
  quant.struct_size = sizeof(quant);
  b_.tensor()->quant = &quant;
  EXPECT_THAT(Refusal(), HasSubstr("TeplugGemmArgs.b.quant is set on a fp32 tensor"));
  b_.tensor()->quant = nullptr;
  d_.tensor()->dtype = TEPLUG_DTYPE_FP8_E4M3;
  EXPECT_THAT(Refusal(), HasSubstr("TeplugGemmArgs.d.dtype fp8_e4m3"));
}

TEST_F(GemmRefusalTest, RefusesAnFp8BiasAndPreGeluOutNamingThem) {
  TestMatrix bias(TEPLUG_DTYPE_FP32, -1, 5);
  bias.tensor()->dtype = TEPLUG_DTYPE_FP8_E5M2;
  args_.bias = bias.tensor();
  EXPECT_THAT(Refusal(), HasSubstr("TeplugGemmArgs.bias.dtype fp8_e5m2"));
  args_.bias = nullptr;
  TestMatrix pre(TEPLUG_DTYPE_FP32, 4, 5);
  pre.tensor()->dtype = TEPLUG_DTYPE_FP8_E4M3;
  args_.pre_gelu_out = pre.tensor();
  args_.epilogue = TEPLUG_EPILOGUE_GELU;
  EXPECT_THAT(Refusal(), HasSubstr("TeplugGemmArgs.pre_gelu_out.dtype fp8_e4m3"));
}

TEST_F(GemmRefusalTest, RefusesAnInt32CNamingIt) {
  TestMatrix c(TEPLUG_DTYPE_FP32, 4, 5);
  c.tensor()->dtype = TEPLUG_DTYPE_INT32;
  args_.c = c.tensor();
  EXPECT_THAT(Refusal(), HasSubstr("TeplugGemmArgs.c.dtype int32"));
}

TEST_F(GemmRefusalTest, RefusesADeviceTensorNamingTheDevice) {
  TeplugDevice gpu{};
  gpu.struct_size = sizeof(gpu);
  gpu.kind = TEPLUG_DEVICE_CUDA;
  d_.tensor()->device = &gpu;
  EXPECT_THAT(Refusal(), HasSubstr("TeplugGemmArgs.d.device: kind cuda (ordinal 0)"));
}

TEST_F(GemmRefusalTest, RefusesANegativeStrideNamingIt) {
  a_.tensor()->strides[0] = -6;
  a_.tensor()->strides[1] = 1;
  EXPECT_THAT(Refusal(), HasSubstr("TeplugGemmArgs.a.strides[0] is -6"));
}

TEST_F(GemmRefusalTest, RefusesAnEmptyInnerDimension) {
  TestMatrix a(TEPLUG_DTYPE_FP32, 4, 0), b(TEPLUG_DTYPE_FP32, 0, 5);
  args_.a = a.tensor();
  args_.b = b.tensor();
  EXPECT_THAT(Refusal(), HasSubstr("k = 0"));
}

TEST_F(GemmRefusalTest, RefusesAnOutputSharingMemoryWithAnInput) {
  TeplugTensor d_over_a = *a_.tensor();  // A is [4, 6]: its first 20 elements as D [4, 5]
  d_over_a.shape[1] = 5;
  d_over_a.strides[0] = 5;
  d_over_a.strides[1] = 1;
  args_.d = &d_over_a;
  EXPECT_THAT(Refusal(), HasSubstr("TeplugGemmArgs.d overlaps TeplugGemmArgs.a in memory"));
  args_.d = d_.tensor();
  TeplugTensor pre = *d_.tensor();  // pre_gelu_out on D's memory
  args_.pre_gelu_out = &pre;
  args_.epilogue = TEPLUG_EPILOGUE_GELU;
  EXPECT_THAT(Refusal(), HasSubstr("TeplugGemmArgs.d overlaps TeplugGemmArgs.pre_gelu_out"));
}

TEST_F(GemmRefusalTest, MalformedArgsAreInvalidArgumentNamingTheField) {
  b_.tensor()->shape[0] = 7;  // op(A) is [4, 6]
  EXPECT_EQ(Refusal(), "") << "malformed args are the op's to report";
  auto [code, message] = Call();
  EXPECT_EQ(code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("TeplugGemmArgs.b: shape [7, 5]"));
  EXPECT_THAT(message, HasSubstr("the inner dimensions differ"));

  b_.tensor()->shape[0] = 6;
  TestMatrix pre(TEPLUG_DTYPE_FP32, 4, 5);
  args_.pre_gelu_out = pre.tensor();
  std::tie(code, message) = Call();
  EXPECT_EQ(code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("pre_gelu_out is set but epilogue is none"));

  args_.pre_gelu_out = nullptr;
  args_.epilogue = 7;
  std::tie(code, message) = Call();
  EXPECT_EQ(code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("TeplugGemmArgs.epilogue 7"));

  args_.epilogue = 0;
  a_.tensor()->rank = 3;
  std::tie(code, message) = Call();
  EXPECT_EQ(code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("TeplugGemmArgs.a: rank 3"));
}

TEST_F(GemmRefusalTest, AnUnservedCallReachingTheOpIsUnsupportedWithTheReason) {
  d_.tensor()->dtype = TEPLUG_DTYPE_FP8_E4M3;
  auto [code, message] = Call();
  EXPECT_EQ(code, TEPLUG_UNSUPPORTED);
  EXPECT_THAT(message, HasSubstr("TeplugGemmArgs.d.dtype fp8_e4m3"));
}

// The descriptor declares exactly what the numerics tests exercise: three
// float dtypes for A, B and D, fp8 A and B with every row-wise scaling mode
// (gemm_fp8_numerics_test), the four epilogue bits, host devices only.
TEST(CpuGemmCapsTest, DeclaresExactlyWhatIsServed) {
  const TeplugGemmCaps* caps = CpuGemmCaps();
  const uint64_t floats = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32) |
                          TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP16) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
  const uint64_t fp8 =
      TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E5M2);
  EXPECT_EQ(caps->a_dtypes, floats | fp8);
  EXPECT_EQ(caps->b_dtypes, floats | fp8);
  EXPECT_EQ(caps->d_dtypes, floats);
  EXPECT_EQ(caps->epilogues, TEPLUG_GEMM_CAP_BIAS | TEPLUG_GEMM_CAP_GELU |
                                 TEPLUG_GEMM_CAP_GELU_AUX | TEPLUG_GEMM_CAP_ACCUMULATE);
  EXPECT_EQ(caps->scaling_modes, TEPLUG_SCALING_BIT(TEPLUG_SCALING_PER_TENSOR) |
                                     TEPLUG_SCALING_BIT(TEPLUG_SCALING_MXFP8_1D32) |
                                     TEPLUG_SCALING_BIT(TEPLUG_SCALING_BLOCK_1D128) |
                                     TEPLUG_SCALING_BIT(TEPLUG_SCALING_BLOCK_2D128));
  ASSERT_EQ(caps->num_devices, 1u);
  EXPECT_EQ(caps->devices[0].kind, TEPLUG_DEVICE_CPU);
  EXPECT_EQ(caps->max_dim, 0);
}

}  // namespace
}  // namespace teplug::cpu::provider
