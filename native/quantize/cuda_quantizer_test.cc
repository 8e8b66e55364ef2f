// The native IQuantizer's host logic against a fake CUDA runtime and a
// recording kernel launcher: the runtime's reason without a driver or GPU,
// old GPUs, unknown ordinals, argument refusals before any runtime call,
// launches on the right GPU with the planned arguments, and launch failures
// in the runtime's words. Through the C function table, so nothing throws
// across the ABI.
#include "native/quantize/cuda_quantizer.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "native/device/testing/fake_cuda_runtime.h"
#include "native/quantize/testing/quantize_call.h"
#include "teplug/sdk/implement.hpp"

namespace teplug::native::quantize {
namespace {

using native::testing::FakeCudaRuntime;
using testing::QuantizeCall;

// Records every launch; returns `result` for each.
class RecordingKernels final : public KernelLauncher {
 public:
  int Quantize(const QuantizeLaunch& l) override {
    quantizes.push_back(l);
    if (runtime != nullptr) launch_devices.push_back(runtime->current_device());
    return result;
  }
  int Dequantize(const DequantizeLaunch& l) override {
    dequantizes.push_back(l);
    if (runtime != nullptr) launch_devices.push_back(runtime->current_device());
    return result;
  }
  std::vector<QuantizeLaunch> quantizes;
  std::vector<DequantizeLaunch> dequantizes;
  int result = 0;
  // When set: the current device at each launch.
  const FakeCudaRuntime* runtime = nullptr;
  std::vector<int> launch_devices;
};

CudaDeviceFacts Gpu(int major, int minor) {
  CudaDeviceFacts f;
  f.name = "fake";
  f.major = major;
  f.minor = minor;
  f.total_memory = 1 << 30;
  return f;
}

// The quantizer as a host sees it: the C object.
struct Quantizer {
  Quantizer(CudaRuntimeApi& runtime, KernelLauncher& kernels)
      : object(sdk::MakeQuantizer(NewCudaQuantizer(runtime, kernels))) {}
  ~Quantizer() { object->vtbl->base.release(reinterpret_cast<TeplugObject*>(object)); }

  // "" when supported, else the reason.
  std::string WhyNot(int32_t op, const void* args) {
    char reason[512] = {0};
    const TeplugBool yes = object->vtbl->supports(reinterpret_cast<TeplugObject*>(object), op, args,
                                                  reason, sizeof reason);
    return yes ? "" : reason;
  }
  // {code, message} of a quantize call; {TEPLUG_OK, ""} on success.
  std::pair<int32_t, std::string> Quantize(const TeplugQuantizeArgs& a) {
    return Result(object->vtbl->quantize(object, &a));
  }
  std::pair<int32_t, std::string> Dequantize(const TeplugDequantizeArgs& a) {
    return Result(object->vtbl->dequantize(object, &a));
  }
  static std::pair<int32_t, std::string> Result(TeplugError* e) {
    if (e == nullptr) return {TEPLUG_OK, ""};
    std::pair<int32_t, std::string> r{e->code, e->message};
    e->destroy(e);
    return r;
  }

  TeplugQuantizerV1* object;
};

constexpr char kNoDriver[] =
    "native: no CUDA device: cudaGetDeviceCount returned cudaErrorInsufficientDriver (CUDA driver "
    "version is "
    "insufficient for CUDA runtime version)";

TEST(CudaQuantizer, WithoutADriverEveryOpGivesTheRuntimesReason) {
  FakeCudaRuntime runtime;
  runtime.Fail("GetDeviceCount", native::testing::kCudaErrorInsufficientDriver);
  RecordingKernels kernels;
  Quantizer q(runtime, kernels);
  QuantizeCall call(TEPLUG_SCALING_PER_TENSOR, 4, 32);
  TeplugDequantizeArgs d = call.DequantizeArgs();
  EXPECT_EQ(q.WhyNot(TEPLUG_OP_QUANTIZE, &call.args), kNoDriver);
  EXPECT_EQ(q.WhyNot(TEPLUG_OP_DEQUANTIZE, &d), kNoDriver);
  EXPECT_EQ(q.Quantize(call.args),
            std::make_pair(int32_t{TEPLUG_UNSUPPORTED}, std::string(kNoDriver)));
  EXPECT_EQ(q.Dequantize(d), std::make_pair(int32_t{TEPLUG_UNSUPPORTED}, std::string(kNoDriver)));
  EXPECT_TRUE(kernels.quantizes.empty());
  EXPECT_TRUE(kernels.dequantizes.empty());
  EXPECT_EQ(runtime.calls("GetDeviceCount"), 1) << "the runtime is asked once";
}

TEST(CudaQuantizer, NoDevicesOldGpusAndUnknownOrdinalsAreRefusedWithReasons) {
  {
    FakeCudaRuntime none;
    RecordingKernels kernels;
    Quantizer q(none, kernels);
    QuantizeCall call(TEPLUG_SCALING_MXFP8_1D32, 4, 32);
    EXPECT_EQ(q.WhyNot(TEPLUG_OP_QUANTIZE, &call.args),
              "native: no CUDA device: cudaGetDeviceCount reported 0 devices");
  }
  {
    FakeCudaRuntime turing({Gpu(7, 5)});
    RecordingKernels kernels;
    Quantizer q(turing, kernels);
    QuantizeCall call(TEPLUG_SCALING_MXFP8_1D32, 4, 32);
    EXPECT_EQ(q.WhyNot(TEPLUG_OP_QUANTIZE, &call.args),
              "native: the quantize kernels are built for sm_80 and newer; cuda:0 is sm_75");
  }
  {
    FakeCudaRuntime one({Gpu(9, 0)});
    RecordingKernels kernels;
    Quantizer q(one, kernels);
    QuantizeCall call(TEPLUG_SCALING_MXFP8_1D32, 4, 32);
    call.device.ordinal = 3;
    EXPECT_EQ(q.WhyNot(TEPLUG_OP_QUANTIZE, &call.args),
              "native: no CUDA device with ordinal 3 (the runtime reports 1)");
    EXPECT_EQ(q.Quantize(call.args).first, TEPLUG_UNSUPPORTED);
    EXPECT_TRUE(kernels.quantizes.empty());
  }
}

TEST(CudaQuantizer, ArgumentRefusalsComeFirstAndCarryTheirStatus) {
  FakeCudaRuntime runtime({Gpu(9, 0)});
  RecordingKernels kernels;
  Quantizer q(runtime, kernels);
  QuantizeCall host(TEPLUG_SCALING_PER_TENSOR, 4, 32);
  host.input.device = nullptr;
  const std::string host_reason =
      "native: TeplugQuantizeArgs.input is in host memory (device NULL): native quantizes tensors "
      "in CUDA memory";
  EXPECT_EQ(q.WhyNot(TEPLUG_OP_QUANTIZE, &host.args), host_reason);
  EXPECT_EQ(q.Quantize(host.args), std::make_pair(int32_t{TEPLUG_UNSUPPORTED}, host_reason));
  QuantizeCall malformed(TEPLUG_SCALING_PER_TENSOR, 4, 32);
  malformed.args.recipe = 9;
  EXPECT_EQ(q.Quantize(malformed.args).first, TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(runtime.calls("GetDeviceCount"), 0) << "refused before asking the runtime";
  EXPECT_TRUE(kernels.quantizes.empty());
  EXPECT_EQ(q.WhyNot(TEPLUG_OP_GEMM, &host.args), "IQuantizer serves only quantize/dequantize");
}

TEST(CudaQuantizer, ServedCallsLaunchOnTheTensorsGpu) {
  FakeCudaRuntime runtime({Gpu(8, 0), Gpu(10, 0)});
  RecordingKernels kernels;
  kernels.runtime = &runtime;
  Quantizer q(runtime, kernels);
  QuantizeCall call(TEPLUG_SCALING_BLOCK_2D128, 4, 300);
  call.device.ordinal = 1;
  call.args.stream = reinterpret_cast<TeplugStream>(0x77);
  EXPECT_EQ(q.WhyNot(TEPLUG_OP_QUANTIZE, &call.args), "");
  EXPECT_EQ(q.Quantize(call.args), std::make_pair(int32_t{TEPLUG_OK}, std::string()));
  ASSERT_EQ(kernels.quantizes.size(), 1u);
  EXPECT_EQ(kernels.launch_devices, std::vector<int>{1});
  EXPECT_EQ(runtime.current_device(), 0) << "the caller's current device is put back";
  EXPECT_EQ(kernels.quantizes[0].scaling, Scaling::kBlock2D);
  EXPECT_EQ(kernels.quantizes[0].cols, 300);
  EXPECT_EQ(kernels.quantizes[0].stream, reinterpret_cast<void*>(0x77));
  TeplugDequantizeArgs d = call.DequantizeArgs();
  EXPECT_EQ(q.Dequantize(d), std::make_pair(int32_t{TEPLUG_OK}, std::string()));
  ASSERT_EQ(kernels.dequantizes.size(), 1u);
  EXPECT_EQ(kernels.dequantizes[0].output, call.dequantized_buffer.data());
  EXPECT_EQ(runtime.calls("GetDeviceCount"), 1);
}

TEST(CudaQuantizer, LaunchAndSetDeviceFailuresAreInternalInTheRuntimesWords) {
  FakeCudaRuntime runtime({Gpu(9, 0)});
  RecordingKernels kernels;
  kernels.result = native::testing::kCudaErrorInvalidValue;
  Quantizer q(runtime, kernels);
  QuantizeCall call(TEPLUG_SCALING_PER_TENSOR, 4, 32);
  EXPECT_EQ(
      q.Quantize(call.args),
      std::make_pair(
          int32_t{TEPLUG_INTERNAL},
          std::string("native: quantize: the kernel launch returned cudaErrorInvalidValue (invalid "
                      "argument)")));
  runtime.Fail("SetDevice", native::testing::kCudaErrorInvalidValue);
  TeplugDequantizeArgs d = call.DequantizeArgs();
  EXPECT_EQ(q.Dequantize(d),
            std::make_pair(int32_t{TEPLUG_INTERNAL},
                           std::string("native: dequantize: cudaSetDevice returned "
                                       "cudaErrorInvalidValue (invalid argument)")));
  EXPECT_TRUE(kernels.dequantizes.empty());
}

TEST(CudaQuantizer, ConcurrentFirstCallsAskTheRuntimeOnce) {
  FakeCudaRuntime runtime({Gpu(9, 0)});
  RecordingKernels kernels;
  Quantizer q(runtime, kernels);
  std::vector<std::thread> threads;
  std::atomic<int> served{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      QuantizeCall call(TEPLUG_SCALING_BLOCK_1D128, 4, 128);
      if (q.WhyNot(TEPLUG_OP_QUANTIZE, &call.args).empty()) ++served;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(served.load(), 8);
  EXPECT_EQ(runtime.calls("GetDeviceCount"), 1);
}

}  // namespace
}  // namespace teplug::native::quantize
