// CurrentDeviceScope on the fake runtime: the call's GPU is current inside,
// the caller's afterwards, and a failed cudaSetDevice is reported and leaves
// nothing to restore.
#include "native/device/current_device_scope.h"

#include "gtest/gtest.h"
#include "native/device/testing/fake_cuda_runtime.h"

namespace teplug::native {
namespace {

using testing::FakeCudaRuntime;

constexpr int kCudaErrorInvalidDevice = 101;

TEST(CurrentDeviceScopeTest, SetsTheGpuForTheCallAndRestoresTheCallers) {
  FakeCudaRuntime runtime({{"a", 9, 0, 1}, {"b", 9, 0, 1}});
  runtime.set_current_device(0);
  {
    const CurrentDeviceScope scope(runtime, 1);
    EXPECT_EQ(scope.error(), kCudaSuccess);
    EXPECT_EQ(runtime.current_device(), 1);
  }
  EXPECT_EQ(runtime.current_device(), 0);
  EXPECT_EQ(runtime.calls("SetDevice"), 2);
}

TEST(CurrentDeviceScopeTest, OnTheCallersGpuItSetsOnceAndRestoresNothing) {
  FakeCudaRuntime runtime({{"a", 9, 0, 1}, {"b", 9, 0, 1}});
  runtime.set_current_device(1);
  { const CurrentDeviceScope scope(runtime, 1); }
  EXPECT_EQ(runtime.current_device(), 1);
  EXPECT_EQ(runtime.calls("SetDevice"), 1);
}

TEST(CurrentDeviceScopeTest, AFailedSetIsReportedAndNothingIsRestored) {
  FakeCudaRuntime runtime({{"a", 9, 0, 1}, {"b", 9, 0, 1}});
  runtime.set_current_device(0);
  runtime.Fail("SetDevice", kCudaErrorInvalidDevice);
  {
    const CurrentDeviceScope scope(runtime, 1);
    EXPECT_EQ(scope.error(), kCudaErrorInvalidDevice);
  }
  EXPECT_EQ(runtime.calls("SetDevice"), 1);
  EXPECT_EQ(runtime.current_device(), 0);
}

TEST(CurrentDeviceScopeTest, WithoutTheCallersDeviceItOnlySets) {
  FakeCudaRuntime runtime({{"a", 9, 0, 1}, {"b", 9, 0, 1}});
  runtime.Fail("GetDevice", kCudaErrorInvalidDevice);
  { EXPECT_EQ(CurrentDeviceScope(runtime, 1).error(), kCudaSuccess); }
  EXPECT_EQ(runtime.calls("SetDevice"), 1);
  EXPECT_EQ(runtime.current_device(), 1);
}

}  // namespace
}  // namespace teplug::native
