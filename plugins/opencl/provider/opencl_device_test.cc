// The opencl IDevice through its C function table on the ICD loader's first
// device (PoCL here): enumeration, copies in every direction on random bytes
// (inside allocations, at offsets, on streams), and each misuse refused by name.
#include "plugins/opencl/provider/opencl_device.h"

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/opencl/provider/device_table.h"
#include "teplug/sdk/device_context.hpp"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::opencl::provider {
namespace {

std::vector<unsigned char> RandomBytes(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(rng());
  return v;
}

TEST(OpenClVersionArchTest, ParsesTheRequiredVersionForm) {
  EXPECT_EQ(OpenClVersionArch("OpenCL 3.0 PoCL HSTR: pthread"), 30);
  EXPECT_EQ(OpenClVersionArch("OpenCL 1.2 CUDA"), 12);
  EXPECT_EQ(OpenClVersionArch("OpenCL 2.1"), 21);
  EXPECT_EQ(OpenClVersionArch("PoCL 3.0"), 0);
  EXPECT_EQ(OpenClVersionArch(""), 0);
}

class OpenClDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dev_ = sdk::MakeDevice(NewOpenClDevice());
    size_t count = 0;
    ASSERT_FALSE(sdk::OwnedError(dev_->vtbl->device_count(dev_, &count)));
    if (count == 0) GTEST_SKIP() << "the OpenCL ICD loader reports no device";
    TeplugDevice d = sdk::Versioned<TeplugDevice>();
    d.kind = TEPLUG_DEVICE_OPENCL;
    sdk::OwnedError e = sdk::DeviceContext::Open(dev_, d, &ctx_);
    ASSERT_FALSE(e) << e.message();
  }
  void TearDown() override {
    if (ctx_ != nullptr) {
      sdk::OwnedError e = ctx_->Close();
      EXPECT_FALSE(e) << e.message();
    }
    ctx_.reset();
    dev_->vtbl->base.release(reinterpret_cast<TeplugObject*>(dev_));
  }
  void* Allocate(size_t bytes, size_t alignment = 0) {
    void* p = nullptr;
    sdk::OwnedError e = ctx_->Allocate(bytes, alignment, &p);
    EXPECT_FALSE(e) << e.message();
    return p;
  }

  TeplugDeviceV1* dev_ = nullptr;
  std::unique_ptr<sdk::DeviceContext> ctx_;
};

TEST_F(OpenClDeviceTest, DescribesTheLoadersDevices) {
  TeplugDeviceInfo info = sdk::Versioned<TeplugDeviceInfo>();
  ASSERT_FALSE(sdk::OwnedError(dev_->vtbl->device_info(dev_, 0, &info)));
  EXPECT_EQ(info.kind, TEPLUG_DEVICE_OPENCL);
  EXPECT_EQ(info.ordinal, 0);
  EXPECT_EQ(info.vendor_id, ClDevices()[0].vendor_id);
  EXPECT_GE(info.arch, 12) << "CL_DEVICE_VERSION is at least OpenCL 1.2";
  EXPECT_EQ(std::string(info.name), ClDevices()[0].name.substr(0, sizeof info.name - 1));
  EXPECT_GT(info.memory_bytes, 0u);
  EXPECT_EQ(info.host_pointers_usable, 0);
  sdk::OwnedError e(dev_->vtbl->device_info(dev_, ClDevices().size(), &info));
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
}

TEST_F(OpenClDeviceTest, RoundTripsRandomBytesThroughEveryCopyKind) {
  const size_t n = 100003;
  const std::vector<unsigned char> in = RandomBytes(n, 7);
  void* a = Allocate(n);
  void* b = Allocate(n);
  ASSERT_FALSE(ctx_->Copy(TEPLUG_COPY_HOST_TO_DEVICE, a, in.data(), n));
  ASSERT_FALSE(ctx_->Copy(TEPLUG_COPY_DEVICE_TO_DEVICE, b, a, n));
  std::vector<unsigned char> out(n, 0);
  ASSERT_FALSE(ctx_->Copy(TEPLUG_COPY_DEVICE_TO_HOST, out.data(), b, n));
  EXPECT_EQ(out, in);
  EXPECT_FALSE(ctx_->Deallocate(a));
  EXPECT_FALSE(ctx_->Deallocate(b));
}

TEST_F(OpenClDeviceTest, PointersInsideAnAllocationAddressItsBytes) {
  const size_t n = 4096;
  const std::vector<unsigned char> in = RandomBytes(n, 11);
  auto* a = static_cast<unsigned char*>(Allocate(n));
  ASSERT_FALSE(ctx_->Copy(TEPLUG_COPY_HOST_TO_DEVICE, a, in.data(), n));
  // Move bytes [1000, 1300) to [3001, 3301) on the device, then read 40 bytes at 3100.
  ASSERT_FALSE(ctx_->Copy(TEPLUG_COPY_DEVICE_TO_DEVICE, a + 3001, a + 1000, 300));
  std::vector<unsigned char> out(40);
  ASSERT_FALSE(ctx_->Copy(TEPLUG_COPY_DEVICE_TO_HOST, out.data(), a + 3100, out.size()));
  EXPECT_EQ(out, std::vector<unsigned char>(in.begin() + 1099, in.begin() + 1139));
}

TEST_F(OpenClDeviceTest, StreamCopiesCompleteAtSynchronize) {
  const size_t n = 1 << 20;
  const std::vector<unsigned char> in = RandomBytes(n, 3);
  void* a = Allocate(n);
  TeplugStream s = nullptr;
  ASSERT_FALSE(ctx_->CreateStream(&s));
  ASSERT_NE(s, nullptr);
  std::vector<unsigned char> out(n, 0);
  ASSERT_FALSE(ctx_->Copy(TEPLUG_COPY_HOST_TO_DEVICE, a, in.data(), n, s));
  ASSERT_FALSE(ctx_->Copy(TEPLUG_COPY_DEVICE_TO_HOST, out.data(), a, n, s));
  ASSERT_FALSE(ctx_->SynchronizeStream(s));
  EXPECT_EQ(out, in);
  // The stream is an OpenCL in-order queue of the device.
  cl_device_id queue_device = nullptr;
  ASSERT_EQ(clGetCommandQueueInfo(static_cast<cl_command_queue>(s), CL_QUEUE_DEVICE,
                                  sizeof queue_device, &queue_device, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(queue_device, ClDevices()[0].id);
  EXPECT_FALSE(ctx_->DestroyStream(s));
}

TEST_F(OpenClDeviceTest, RefusesCopiesOutsideItsAllocations) {
  unsigned char host[64] = {};
  auto* a = static_cast<unsigned char*>(Allocate(32));
  sdk::OwnedError past_end = ctx_->Copy(TEPLUG_COPY_HOST_TO_DEVICE, a + 16, host, 17);
  ASSERT_TRUE(past_end);
  EXPECT_EQ(past_end.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(past_end.message().find("TeplugCopyArgs.dst"), std::string::npos) << past_end.message();
  sdk::OwnedError host_as_device = ctx_->Copy(TEPLUG_COPY_DEVICE_TO_HOST, host, host + 32, 8);
  ASSERT_TRUE(host_as_device);
  EXPECT_NE(host_as_device.message().find("TeplugCopyArgs.src"), std::string::npos)
      << host_as_device.message();
  ASSERT_FALSE(ctx_->Deallocate(a));
  sdk::OwnedError freed = ctx_->Copy(TEPLUG_COPY_HOST_TO_DEVICE, a, host, 8);
  ASSERT_TRUE(freed);
  EXPECT_EQ(freed.code(), TEPLUG_INVALID_ARGUMENT);
  sdk::OwnedError twice = ctx_->Deallocate(a);
  ASSERT_TRUE(twice);
  EXPECT_NE(twice.message().find("not allocated by this context"), std::string::npos)
      << twice.message();
}

TEST_F(OpenClDeviceTest, RefusesMalformedCallsByName) {
  void* p = nullptr;
  sdk::OwnedError zero = ctx_->Allocate(0, 0, &p);
  ASSERT_TRUE(zero);
  EXPECT_NE(zero.message().find("bytes is 0"), std::string::npos) << zero.message();
  sdk::OwnedError align = ctx_->Allocate(64, 48, &p);
  ASSERT_TRUE(align);
  EXPECT_NE(align.message().find("alignment 48"), std::string::npos) << align.message();
  int foreign_stream = 0;
  sdk::OwnedError stream = ctx_->SynchronizeStream(&foreign_stream);
  ASSERT_TRUE(stream);
  EXPECT_EQ(stream.code(), TEPLUG_INVALID_ARGUMENT);
}

TEST_F(OpenClDeviceTest, HonoursLargeAlignments) {
  for (size_t alignment : {size_t{1}, size_t{256}, size_t{1} << 16}) {
    void* p = Allocate(100, alignment);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % alignment, 0u) << alignment;
    EXPECT_FALSE(ctx_->Deallocate(p));
  }
}

TEST_F(OpenClDeviceTest, RefusesDevicesItDoesNotServe) {
  TeplugDevice cpu = sdk::Versioned<TeplugDevice>();
  cpu.kind = TEPLUG_DEVICE_CPU;
  std::unique_ptr<sdk::DeviceContext> other;
  sdk::OwnedError e = sdk::DeviceContext::Open(dev_, cpu, &other);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), TEPLUG_UNSUPPORTED);
  EXPECT_NE(e.message().find("kind OPENCL"), std::string::npos) << e.message();
  TeplugDevice missing = sdk::Versioned<TeplugDevice>();
  missing.kind = TEPLUG_DEVICE_OPENCL;
  missing.ordinal = static_cast<int32_t>(ClDevices().size());
  e = sdk::DeviceContext::Open(dev_, missing, &other);
  ASSERT_TRUE(e);
  EXPECT_NE(e.message().find("does not exist"), std::string::npos) << e.message();
}

TEST_F(OpenClDeviceTest, MemoryOfOneContextIsRefusedByAnother) {
  TeplugDevice d = sdk::Versioned<TeplugDevice>();
  d.kind = TEPLUG_DEVICE_OPENCL;
  std::unique_ptr<sdk::DeviceContext> other;
  ASSERT_FALSE(sdk::DeviceContext::Open(dev_, d, &other));
  void* mine = Allocate(64);
  unsigned char host[64] = {};
  sdk::OwnedError e = other->Copy(TEPLUG_COPY_HOST_TO_DEVICE, mine, host, 64);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_TRUE(other->Deallocate(mine));
  EXPECT_FALSE(other->Close());
}

}  // namespace
}  // namespace teplug::opencl::provider
