// How the native provider describes a GPU and a failed CUDA call.
#include "native/device/device_description.h"

#include <string>

#include "gtest/gtest.h"
#include "native/device/testing/fake_cuda_runtime.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native {
namespace {

TEST(DeviceDescriptionTest, ArchIsTheComputeCapabilityAsSmNumbers) {
  EXPECT_EQ(ArchOfComputeCapability(8, 0), 80);
  EXPECT_EQ(ArchOfComputeCapability(8, 9), 89);
  EXPECT_EQ(ArchOfComputeCapability(9, 0), 90);
  EXPECT_EQ(ArchOfComputeCapability(10, 0), 100);
  EXPECT_EQ(ArchOfComputeCapability(12, 1), 121);
}

TEST(DeviceDescriptionTest, DescribesAGpuFromItsProperties) {
  TeplugDeviceInfo info = sdk::Versioned<TeplugDeviceInfo>();
  info.host_pointers_usable = 1;
  DescribeCudaDevice({"NVIDIA L40S", 8, 9, 48305799168ull}, 3, &info);
  EXPECT_EQ(info.kind, TEPLUG_DEVICE_CUDA);
  EXPECT_EQ(info.vendor_id, TEPLUG_VENDOR_NVIDIA);
  EXPECT_EQ(info.ordinal, 3);
  EXPECT_EQ(info.arch, 89);
  EXPECT_STREQ(info.name, "NVIDIA L40S");
  EXPECT_EQ(info.memory_bytes, 48305799168ull);
  EXPECT_EQ(info.host_pointers_usable, 0);
}

TEST(DeviceDescriptionTest, ALongNameIsTruncatedAndTerminated) {
  TeplugDeviceInfo info = sdk::Versioned<TeplugDeviceInfo>();
  const std::string name(100, 'x');
  DescribeCudaDevice({name, 9, 0, 1}, 0, &info);
  EXPECT_EQ(std::string(info.name), name.substr(0, sizeof info.name - 1));
}

TEST(DeviceDescriptionTest, AFailedCallIsDescribedInTheRuntimesWords) {
  testing::FakeCudaRuntime runtime;
  EXPECT_EQ(CudaCallFailure(runtime, "cudaGetDeviceCount", testing::kCudaErrorNoDevice),
            "cudaGetDeviceCount returned cudaErrorNoDevice (no CUDA-capable device is detected)");
}

}  // namespace
}  // namespace teplug::native
