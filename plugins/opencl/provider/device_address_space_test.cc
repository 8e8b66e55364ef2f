// The memory convention: a device address is `base + byte offset` of a cl_mem
// buffer. These tests lay tensors out in device memory as TeplugTensor says
// (data + strides in elements) and check that resolving an element's address
// gives the buffer and byte offset where OpenCL itself finds that element, for
// offsets, strided sub-views and sub-buffers.
#include "plugins/opencl/provider/device_address_space.h"

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/opencl/provider/device_table.h"
#include "plugins/opencl/provider/opencl_device.h"
#include "teplug/sdk/device_context.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::opencl::provider {
namespace {

class DeviceAddressSpaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dev_ = sdk::MakeDevice(NewOpenClDevice());
    if (ClDevices().empty()) GTEST_SKIP() << "the OpenCL ICD loader reports no device";
    TeplugDevice d = sdk::Versioned<TeplugDevice>();
    d.kind = TEPLUG_DEVICE_OPENCL;
    sdk::OwnedError e = sdk::DeviceContext::Open(dev_, d, &ctx_);
    ASSERT_FALSE(e) << e.message();
    cl_int err = CL_SUCCESS;
    queue_ = clCreateCommandQueueWithProperties(Handles().context, Handles().device, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
  }
  void TearDown() override {
    if (queue_ != nullptr) clReleaseCommandQueue(queue_);
    if (ctx_ != nullptr) {
      EXPECT_FALSE(ctx_->Close());
    }
    ctx_.reset();
    dev_->vtbl->base.release(reinterpret_cast<TeplugObject*>(dev_));
  }
  OpenClContextHandles Handles() { return HandlesOfOwner(ctx_->get()); }
  // A [rows, cols] fp32 matrix of random values, row-major, on the device.
  float* Upload(const std::vector<float>& host) {
    void* p = nullptr;
    EXPECT_FALSE(ctx_->Allocate(host.size() * sizeof(float), 0, &p));
    EXPECT_FALSE(
        ctx_->Copy(TEPLUG_COPY_HOST_TO_DEVICE, p, host.data(), host.size() * sizeof(float)));
    return static_cast<float*>(p);
  }
  // The float OpenCL finds at `element` (resolved through the convention).
  float ReadThroughOpenCl(const float* element) {
    ResolvedAddress r;
    EXPECT_TRUE(DeviceAddressSpace::Instance().Resolve(element, sizeof(float), &r));
    float v = 0;
    EXPECT_EQ(
        clEnqueueReadBuffer(queue_, r.buffer, CL_TRUE, r.offset, sizeof v, &v, 0, nullptr, nullptr),
        CL_SUCCESS);
    return v;
  }

  TeplugDeviceV1* dev_ = nullptr;
  std::unique_ptr<sdk::DeviceContext> ctx_;
  cl_command_queue queue_ = nullptr;
};

std::vector<float> RandomFloats(size_t n) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(-2.f, 2.f);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

TEST_F(DeviceAddressSpaceTest, AnAddressIsItsBuffersByteOffset) {
  const std::vector<float> host = RandomFloats(1000);
  float* base = Upload(host);
  ResolvedAddress r;
  ASSERT_TRUE(DeviceAddressSpace::Instance().Resolve(base + 123, 4 * sizeof(float), &r));
  EXPECT_EQ(r.offset, 123 * sizeof(float));
  EXPECT_EQ(r.buffer_bytes, host.size() * sizeof(float));
  EXPECT_EQ(r.owner, static_cast<const void*>(ctx_->get()));
  ResolvedAddress start;
  ASSERT_TRUE(DeviceAddressSpace::Instance().Resolve(base, 1, &start));
  EXPECT_EQ(start.buffer, r.buffer);
  EXPECT_EQ(start.offset, 0u);
  EXPECT_FALSE(DeviceAddressSpace::Instance().Resolve(base + 999, 2 * sizeof(float), &r))
      << "runs past the end";
  EXPECT_FALSE(DeviceAddressSpace::Instance().Resolve(host.data(), 4, &r))
      << "host memory is no device address";
}

TEST_F(DeviceAddressSpaceTest, StridedSubViewsResolveToTheirElements) {
  // A [12, 20] matrix; the view [3:9, 5:17:3] has data = base + 3*20 + 5 and
  // strides [20, 3] (elements), as TeplugTensor describes it.
  const int64_t rows = 12, cols = 20;
  const std::vector<float> host = RandomFloats(static_cast<size_t>(rows * cols));
  float* base = Upload(host);
  float* view = base + 3 * cols + 5;
  const int64_t strides[2] = {cols, 3};
  for (int64_t i = 0; i < 6; ++i) {
    for (int64_t j = 0; j < 4; ++j) {
      const float* element = view + i * strides[0] + j * strides[1];
      EXPECT_EQ(ReadThroughOpenCl(element), host[static_cast<size_t>((3 + i) * cols + 5 + 3 * j)])
          << i << "," << j;
    }
  }
}

TEST_F(DeviceAddressSpaceTest, SubBuffersAtAResolvedOffsetSeeTheSameBytes) {
  cl_uint align_bits = 0;
  ASSERT_EQ(clGetDeviceInfo(Handles().device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits,
                            &align_bits, nullptr),
            CL_SUCCESS);
  const size_t align_floats = align_bits / 8 / sizeof(float);
  const std::vector<float> host = RandomFloats(8 * align_floats);
  float* base = Upload(host);
  ResolvedAddress r;
  ASSERT_TRUE(DeviceAddressSpace::Instance().Resolve(base + 2 * align_floats,
                                                     align_floats * sizeof(float), &r));
  const cl_buffer_region region{r.offset, align_floats * sizeof(float)};
  cl_int err = CL_SUCCESS;
  cl_mem sub =
      clCreateSubBuffer(r.buffer, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  std::vector<float> out(align_floats);
  ASSERT_EQ(
      clEnqueueReadBuffer(queue_, sub, CL_TRUE, 0, region.size, out.data(), 0, nullptr, nullptr),
      CL_SUCCESS);
  clReleaseMemObject(sub);
  EXPECT_EQ(out,
            std::vector<float>(host.begin() + 2 * align_floats, host.begin() + 3 * align_floats));
}

TEST_F(DeviceAddressSpaceTest, AddressesAreNotHostMemory) {
  void* p = nullptr;
  ASSERT_FALSE(ctx_->Allocate(64, 0, &p));
  // The reservation is PROT_NONE: a host dereference would fault, never alias.
  EXPECT_DEATH({ *static_cast<volatile char*>(p) = 1; }, "");
  EXPECT_FALSE(ctx_->Deallocate(p));
  ResolvedAddress r;
  EXPECT_FALSE(DeviceAddressSpace::Instance().Resolve(p, 1, &r))
      << "a freed address resolves to nothing";
}

}  // namespace
}  // namespace teplug::opencl::provider
