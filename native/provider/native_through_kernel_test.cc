// The native provider through the kernel, the way hosts load it: built in (the
// CLI's link; target native_through_kernel_test) and as libteplug_native.so
// (native_plugin_through_kernel_test, the same source with
// TEPLUG_NATIVE_TEST_LOADS_PLUGIN defined). Without a GPU (development machines,
// CI) it registers, serves no devices, and opening cuda:0 is refused with the
// CUDA runtime's own reason in the decision record. With a GPU, cuda:0 is
// listed with its compute capability and memory round-trips through it; those
// tests skip with the driver's text when cudaGetDeviceCount fails.
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/kernel/kernel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "teplug/sdk/device_context.hpp"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "tools/cpp/runfiles/runfiles.h"

namespace teplug::native {
namespace {

using ::testing::HasSubstr;

#ifdef TEPLUG_NATIVE_TEST_LOADS_PLUGIN
constexpr bool kLoadsPlugin = true;
#else
constexpr bool kLoadsPlugin = false;
#endif

std::string NativePlugin() {
  std::string error;
  std::unique_ptr<bazel::tools::cpp::runfiles::Runfiles> r(
      bazel::tools::cpp::runfiles::Runfiles::CreateForTest(&error));
  if (r == nullptr) {
    ADD_FAILURE() << error;
    return "";
  }
  return r->Rlocation("teplug/native/provider/libteplug_native.so");
}

// A kernel with the reference built in and native loaded the way this test
// binary was built for.
std::unique_ptr<core::Kernel> MakeKernel() {
  core::KernelOptions o;
  o.use_environment = false;
  o.config_text = "log_level: \"error\"\n";
  if (kLoadsPlugin) o.plugin_paths = {NativePlugin()};
  auto k = core::Kernel::Create(o);
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *std::move(k) : nullptr;
}

TeplugDevice Cuda(int32_t ordinal) {
  TeplugDevice d = sdk::Versioned<TeplugDevice>();
  d.kind = TEPLUG_DEVICE_CUDA;
  d.ordinal = ordinal;
  return d;
}

// cudaGetDeviceCount's answer: the number of GPUs, or the driver's words for
// why there are none.
struct Gpus {
  int count = 0;
  cudaError_t error = cudaSuccess;
  std::string Why() const {
    return std::string("cudaGetDeviceCount returned ") + cudaGetErrorName(error) + " (" +
           cudaGetErrorString(error) + "), count " + std::to_string(count);
  }
};

Gpus ProbeGpus() {
  Gpus g;
  g.error = cudaGetDeviceCount(&g.count);
  if (g.error != cudaSuccess) g.count = 0;
  return g;
}

TEST(NativeThroughKernel, RegistersItsDeviceAboveTheReference) {
  auto k = MakeKernel();
  ASSERT_NE(k, nullptr);
  bool found = false;
  for (const core::ProviderListing& p : k->ListProviders()) {
    if (p.name != "native") continue;
    found = true;
    EXPECT_EQ(p.builtin, !kLoadsPlugin);
    EXPECT_EQ(p.vendor, "teplug");
    std::vector<std::string> names;
    for (const auto& impl : p.implementations) {
      names.push_back(impl.name);
      EXPECT_EQ(impl.default_priority, 300) << impl.name;
    }
    EXPECT_THAT(names, ::testing::IsSupersetOf({"native/cuda", "native/cublaslt", "native/quantizer"}));
  }
  EXPECT_TRUE(found) << "the native provider is not registered";
}

TEST(NativeThroughKernel, WithoutAGpuOpeningCudaIsRefusedWithTheDriversReason) {
  const Gpus gpus = ProbeGpus();
  if (gpus.count > 0) GTEST_SKIP() << "a GPU is present: " << gpus.Why();
  auto k = MakeKernel();
  ASSERT_NE(k, nullptr);
  const core::DeviceListing listing = k->ListDevices();
  for (const auto& d : listing.devices) EXPECT_NE(d.implementation, "native/cuda");
  EXPECT_TRUE(listing.problems.empty());

  auto dev = k->Query<TeplugDeviceV1>(sdk::kIidDeviceV1);
  ASSERT_TRUE(dev);
  std::unique_ptr<sdk::DeviceContext> ctx;
  sdk::OwnedError e = sdk::DeviceContext::Open(dev.get(), Cuda(0), &ctx);
  EXPECT_EQ(e.code(), TEPLUG_UNSUPPORTED);
  EXPECT_THAT(e.message(), HasSubstr("native/cuda"));
  const std::string reason = gpus.error == cudaSuccess
                                 ? std::string("native: no CUDA device: cudaGetDeviceCount reported 0 devices")
                                 : std::string("native: no CUDA device: cudaGetDeviceCount returned ") +
                                       cudaGetErrorName(gpus.error);
  EXPECT_THAT(e.message(), HasSubstr(reason));
  EXPECT_EQ(ctx, nullptr);
}

TEST(NativeThroughKernel, ListsEveryGpuWithItsComputeCapability) {
  const Gpus gpus = ProbeGpus();
  if (gpus.count == 0) GTEST_SKIP() << "no CUDA device: " << gpus.Why();
  auto k = MakeKernel();
  ASSERT_NE(k, nullptr);
  std::vector<core::ServedDevice> native;
  for (const auto& d : k->ListDevices().devices) {
    if (d.implementation == "native/cuda") native.push_back(d);
  }
  ASSERT_EQ(native.size(), static_cast<size_t>(gpus.count));
  for (int i = 0; i < gpus.count; ++i) {
    cudaDeviceProp prop{};
    ASSERT_EQ(cudaGetDeviceProperties(&prop, i), cudaSuccess);
    EXPECT_EQ(native[i].device.ordinal, i);
    EXPECT_EQ(native[i].device.arch, prop.major * 10 + prop.minor);
    EXPECT_EQ(native[i].name, prop.name);
    EXPECT_EQ(native[i].memory_bytes, prop.totalGlobalMem);
    EXPECT_FALSE(native[i].host_pointers_usable);
  }
}

TEST(NativeThroughKernel, MemoryRoundTripsThroughTheGpuSyncAndOnAStream) {
  const Gpus gpus = ProbeGpus();
  if (gpus.count == 0) GTEST_SKIP() << "no CUDA device: " << gpus.Why();
  auto k = MakeKernel();
  ASSERT_NE(k, nullptr);
  auto dev = k->Query<TeplugDeviceV1>(sdk::kIidDeviceV1);
  std::unique_ptr<sdk::DeviceContext> ctx;
  sdk::OwnedError opened = sdk::DeviceContext::Open(dev.get(), Cuda(0), &ctx);
  ASSERT_FALSE(opened) << opened.message();

  constexpr size_t kCount = (1 << 20) + 3;
  std::mt19937 rng(7);
  std::vector<uint32_t> input(kCount);
  for (uint32_t& x : input) x = rng();
  const size_t bytes = kCount * sizeof(uint32_t);
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_FALSE(ctx->Allocate(bytes, 0, &a));
  ASSERT_FALSE(ctx->Allocate(bytes, 4096, &b));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 4096, 0u);

  // Synchronous: the data is in place when copy returns.
  ASSERT_FALSE(ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, a, input.data(), bytes));
  std::vector<uint32_t> back(kCount, 0);
  ASSERT_FALSE(ctx->Copy(TEPLUG_COPY_DEVICE_TO_HOST, back.data(), a, bytes));
  EXPECT_EQ(back, input);

  // On a stream: device-to-device then back, complete after synchronize.
  TeplugStream s = nullptr;
  ASSERT_FALSE(ctx->CreateStream(&s));
  std::vector<uint32_t> back2(kCount, 0);
  ASSERT_FALSE(ctx->Copy(TEPLUG_COPY_DEVICE_TO_DEVICE, b, a, bytes, s));
  ASSERT_FALSE(ctx->Copy(TEPLUG_COPY_DEVICE_TO_HOST, back2.data(), b, bytes, s));
  ASSERT_FALSE(ctx->SynchronizeStream(s));
  EXPECT_EQ(back2, input);
  ASSERT_FALSE(ctx->DestroyStream(s));
  ASSERT_FALSE(ctx->Deallocate(a));
  EXPECT_FALSE(ctx->Close());  // releases b
}

}  // namespace
}  // namespace teplug::native
