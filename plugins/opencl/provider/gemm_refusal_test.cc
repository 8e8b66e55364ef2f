// What the opencl GEMM refuses, and how: calls outside what it serves are
// UNSUPPORTED (and `Supports` says why, naming the tensor), malformed or
// foreign memory is INVALID_ARGUMENT naming the tensor, and CLBlast's
// failures carry CLBlast's status name.
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/opencl/provider/device_table.h"
#include "plugins/opencl/provider/gemm_provider.h"
#include "plugins/opencl/provider/opencl_device.h"
#include "teplug/sdk/device_context.hpp"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::opencl::provider {
namespace {

using ::testing::HasSubstr;

class OpenClGemmRefusalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dev_ = sdk::MakeDevice(NewOpenClDevice());
    if (ClDevices().empty()) GTEST_SKIP() << "the OpenCL ICD loader reports no device";
    device_ = sdk::Versioned<TeplugDevice>();
    device_.kind = TEPLUG_DEVICE_OPENCL;
    sdk::OwnedError e = sdk::DeviceContext::Open(dev_, device_, &ctx_);
    ASSERT_FALSE(e) << e.message();
    ASSERT_FALSE(ctx_->Allocate(4096, 0, &memory_));
    for (TeplugTensor* t : {&a_, &b_, &d_}) {
      *t = sdk::Versioned<TeplugTensor>();
      t->dtype = TEPLUG_DTYPE_FP32;
      t->rank = 2;
      t->shape[0] = t->shape[1] = 8;
      t->device = &device_;
      t->data = memory_;
    }
    args_ = sdk::Versioned<TeplugGemmArgs>();
    args_.a = &a_;
    args_.b = &b_;
    args_.d = &d_;
    args_.alpha = 1;
  }
  void TearDown() override {
    if (ctx_ != nullptr) {
      EXPECT_FALSE(ctx_->Close());
    }
    ctx_.reset();
    dev_->vtbl->base.release(reinterpret_cast<TeplugObject*>(dev_));
  }
  // The code and message `Gemm` fails with (TEPLUG_OK when it does not).
  std::pair<TeplugCode, std::string> Failure() {
    try {
      gemm_.Gemm(args_);
    } catch (const sdk::Exception& e) {
      return {e.code(), e.what()};
    }
    return {TEPLUG_OK, ""};
  }

  TeplugDeviceV1* dev_ = nullptr;
  std::unique_ptr<sdk::DeviceContext> ctx_;
  TeplugDevice device_{};
  void* memory_ = nullptr;
  TeplugTensor a_{}, b_{}, d_{};
  TeplugGemmArgs args_{};
  OpenClGemm gemm_;
};

TEST_F(OpenClGemmRefusalTest, AWellFormedCallRuns) {
  std::string reason;
  EXPECT_TRUE(gemm_.Supports(args_, &reason)) << reason;
  EXPECT_EQ(Failure().first, TEPLUG_OK) << Failure().second;
}

TEST_F(OpenClGemmRefusalTest, MixedInputAndOutputDTypesAreServed) {
  d_.dtype = TEPLUG_DTYPE_FP16;
  b_.dtype = TEPLUG_DTYPE_FP16;
  std::string reason;
  EXPECT_TRUE(gemm_.Supports(args_, &reason)) << reason;
}

TEST_F(OpenClGemmRefusalTest, ABiasNotInDsDTypeIsNotServed) {
  d_.dtype = TEPLUG_DTYPE_FP16;
  TeplugTensor bias = d_;
  bias.dtype = TEPLUG_DTYPE_FP32;
  bias.rank = 1;
  bias.shape[0] = d_.shape[1];
  bias.strides[0] = 0;
  args_.bias = &bias;
  std::string reason;
  EXPECT_FALSE(gemm_.Supports(args_, &reason));
  EXPECT_THAT(reason, HasSubstr("TeplugGemmArgs.bias is fp32, expected fp16 (D's dtype)"));
  EXPECT_EQ(Failure().first, TEPLUG_UNSUPPORTED);
  args_.bias = nullptr;
}

TEST_F(OpenClGemmRefusalTest, Bf16OperandsAreServedButNotABf16D) {
  a_.dtype = b_.dtype = TEPLUG_DTYPE_BF16;
  std::string reason;
  EXPECT_TRUE(gemm_.Supports(args_, &reason)) << reason;
  EXPECT_EQ(Failure().first, TEPLUG_OK) << Failure().second;
  d_.dtype = TEPLUG_DTYPE_BF16;
  EXPECT_FALSE(gemm_.Supports(args_, &reason));
  EXPECT_THAT(reason, HasSubstr("TeplugGemmArgs.d is bf16; the opencl GEMM writes fp32 and fp16"));
}

TEST_F(OpenClGemmRefusalTest, Fp8OperandsNeedServedScales) {
  a_.dtype = TEPLUG_DTYPE_FP8_E4M3;
  EXPECT_EQ(Failure().first, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(Failure().second, HasSubstr("TeplugGemmArgs.a.quant is NULL"));
  TeplugTensor scale = d_;
  scale.rank = 1;
  scale.shape[0] = 1;
  TeplugQuantization q = sdk::Versioned<TeplugQuantization>();
  q.mode = TEPLUG_SCALING_BLOCK_1D128;
  q.scale_inv = &scale;
  a_.quant = &q;
  std::string reason;
  EXPECT_FALSE(gemm_.Supports(args_, &reason));
  EXPECT_THAT(reason, HasSubstr("TeplugGemmArgs.a.quant->mode is block_1d128"));
  q.mode = TEPLUG_SCALING_PER_TENSOR;
  EXPECT_TRUE(gemm_.Supports(args_, &reason)) << reason;
  EXPECT_EQ(Failure().first, TEPLUG_OK) << Failure().second;
  q.mode = TEPLUG_SCALING_MXFP8_1D32;  // needs e8m0 [8, 1]
  EXPECT_EQ(Failure().first, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(Failure().second, HasSubstr("TeplugGemmArgs.a.quant->scale_inv is [1]"));
}

TEST_F(OpenClGemmRefusalTest, HostTensorsAreNotServed) {
  b_.device = nullptr;
  std::string reason;
  EXPECT_FALSE(gemm_.Supports(args_, &reason));
  EXPECT_THAT(reason, HasSubstr("TeplugGemmArgs.b is not on an OpenCL device"));
}

TEST_F(OpenClGemmRefusalTest, ColumnStridesAreNotServed) {
  b_.strides[0] = 16;
  b_.strides[1] = 2;
  std::string reason;
  EXPECT_FALSE(gemm_.Supports(args_, &reason));
  EXPECT_THAT(reason, HasSubstr("TeplugGemmArgs.b strides [16, 2]"));
}

TEST_F(OpenClGemmRefusalTest, QuantizedOperandsAreNotServed) {
  TeplugQuantization q = sdk::Versioned<TeplugQuantization>();
  q.mode = TEPLUG_SCALING_PER_TENSOR;
  a_.quant = &q;
  std::string reason;
  EXPECT_FALSE(gemm_.Supports(args_, &reason));
  EXPECT_THAT(reason, HasSubstr("TeplugGemmArgs.a is quantized"));
}

TEST_F(OpenClGemmRefusalTest, HostMemoryNamedAsDeviceMemoryIsRefused) {
  float host[64] = {};
  a_.data = host;
  auto [code, message] = Failure();
  EXPECT_EQ(code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(
      message,
      HasSubstr(
          "TeplugGemmArgs.a: [data, +256 bytes) is not inside memory allocated by the opencl"));
}

TEST_F(OpenClGemmRefusalTest, ARangePastTheAllocationIsRefused) {
  d_.data = static_cast<char*>(memory_) + 4096 - 128;
  auto [code, message] = Failure();
  EXPECT_EQ(code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("TeplugGemmArgs.d"));
}

TEST_F(OpenClGemmRefusalTest, MisalignedDataIsRefused) {
  b_.data = static_cast<char*>(memory_) + 2;
  auto [code, message] = Failure();
  EXPECT_EQ(code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("not a multiple of the element size 4"));
}

TEST_F(OpenClGemmRefusalTest, MissingDataAndShapesAreNamed) {
  a_.data = nullptr;
  auto [code, message] = Failure();
  EXPECT_EQ(code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("TeplugGemmArgs.a.data is NULL"));
  a_.data = memory_;
  d_.shape[1] = 7;
  std::tie(code, message) = Failure();
  EXPECT_EQ(code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("TeplugGemmArgs.d is [8, 7], expected [8, 8]"));
  d_.shape[1] = 8;
  args_.pre_gelu_out = &d_;
  std::tie(code, message) = Failure();
  EXPECT_THAT(message, HasSubstr("pre_gelu_out is given without the GELU epilogue"));
}

TEST_F(OpenClGemmRefusalTest, MemoryOfAnotherContextIsRefused) {
  std::unique_ptr<sdk::DeviceContext> other;
  ASSERT_FALSE(sdk::DeviceContext::Open(dev_, device_, &other));
  void* theirs = nullptr;
  ASSERT_FALSE(other->Allocate(4096, 0, &theirs));
  b_.data = theirs;
  auto [code, message] = Failure();
  EXPECT_EQ(code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("TeplugGemmArgs.b is memory of another opencl context"));
  // A stream of the other context is refused too.
  b_.data = memory_;
  TeplugStream their_stream = nullptr;
  ASSERT_FALSE(other->CreateStream(&their_stream));
  args_.stream = their_stream;
  std::tie(code, message) = Failure();
  EXPECT_EQ(code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("TeplugGemmArgs.stream is a cl_command_queue of another context"));
  EXPECT_FALSE(other->Close());
}

TEST(ClblastErrorMessageTest, NamesCLBlastAndOpenClStatuses) {
  EXPECT_EQ(ClblastErrorMessage(-1009), "clblast::Gemm failed: kInsufficientMemoryC (-1009)");
  EXPECT_EQ(ClblastErrorMessage(-5), "clblast::Gemm failed: CL_OUT_OF_RESOURCES (-5)");
  EXPECT_EQ(ClblastErrorMessage(-3000), "clblast::Gemm failed: unknown CLBlast status (-3000)");
}

}  // namespace
}  // namespace teplug::opencl::provider
