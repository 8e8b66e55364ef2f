// The native CUDA IDevice's logic on a fake runtime (no GPU): enumeration and
// the reason it serves nothing without a driver, argument checks, allocation
// and stream tracking, alignment, error mapping, and release on close. Calls
// go through the C ABI object the provider registers (sdk::MakeDevice).
#include "native/device/cuda_device.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "native/device/testing/fake_cuda_runtime.h"
#include "teplug/sdk/device_context.hpp"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/ref.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native {
namespace {

using ::testing::HasSubstr;
using testing::FakeCudaRuntime;

std::vector<CudaDeviceFacts> TwoGpus() {
  return {{"NVIDIA A100-SXM4-80GB", 8, 0, 85899345920ull}, {"NVIDIA H100 80GB HBM3", 9, 0, 85520809984ull}};
}

TeplugDevice Device(int32_t kind, int32_t ordinal) {
  TeplugDevice d = sdk::Versioned<TeplugDevice>();
  d.kind = kind;
  d.ordinal = ordinal;
  return d;
}

class CudaDeviceTest : public ::testing::Test {
 protected:
  explicit CudaDeviceTest(std::vector<CudaDeviceFacts> gpus = TwoGpus())
      : runtime_(std::move(gpus)), dev_(sdk::Ref<TeplugDeviceV1>::Adopt(sdk::MakeDevice(NewCudaDevice(runtime_)))) {}

  size_t Count() {
    size_t count = 99;
    sdk::OwnedError e(dev_->vtbl->device_count(dev_.get(), &count));
    EXPECT_FALSE(e) << e.message();
    return count;
  }

  // supports(open) for `device`: the reason, or "" when served.
  std::string WhyNot(TeplugDevice device) {
    TeplugDeviceOpenArgs a = sdk::Versioned<TeplugDeviceOpenArgs>();
    a.device = &device;
    char reason[512] = {};
    const TeplugBool ok = dev_->vtbl->supports(reinterpret_cast<TeplugObject*>(dev_.get()), TEPLUG_DEVICE_OP_OPEN,
                                              &a, reason, sizeof reason);
    return ok ? "" : std::string(reason);
  }

  std::unique_ptr<sdk::DeviceContext> Open(int ordinal) {
    std::unique_ptr<sdk::DeviceContext> ctx;
    sdk::OwnedError e = sdk::DeviceContext::Open(dev_.get(), Device(TEPLUG_DEVICE_CUDA, ordinal), &ctx);
    EXPECT_FALSE(e) << e.message();
    return ctx;
  }

  void* Allocate(sdk::DeviceContext& ctx, size_t bytes, size_t alignment = 0) {
    void* p = nullptr;
    sdk::OwnedError e = ctx.Allocate(bytes, alignment, &p);
    EXPECT_FALSE(e) << e.message();
    return p;
  }

  FakeCudaRuntime runtime_;
  sdk::Ref<TeplugDeviceV1> dev_;
};

class CudaDeviceWithoutDriverTest : public CudaDeviceTest {
 protected:
  CudaDeviceWithoutDriverTest() : CudaDeviceTest({}) {
    runtime_.Fail("GetDeviceCount", testing::kCudaErrorInsufficientDriver);
  }
};

constexpr char kNoDriverReason[] =
    "native: no CUDA device: cudaGetDeviceCount returned cudaErrorInsufficientDriver (CUDA driver version is "
    "insufficient for CUDA runtime version)";

TEST_F(CudaDeviceWithoutDriverTest, ServesNoDevicesAndSaysWhyInTheRuntimesWords) {
  EXPECT_EQ(Count(), 0u);
  EXPECT_EQ(WhyNot(Device(TEPLUG_DEVICE_CUDA, 0)), kNoDriverReason);

  std::unique_ptr<sdk::DeviceContext> ctx;
  sdk::OwnedError e = sdk::DeviceContext::Open(dev_.get(), Device(TEPLUG_DEVICE_CUDA, 0), &ctx);
  EXPECT_EQ(e.code(), TEPLUG_UNSUPPORTED);
  EXPECT_EQ(e.message(), kNoDriverReason);
  EXPECT_EQ(ctx, nullptr);
}

TEST_F(CudaDeviceWithoutDriverTest, AsksTheRuntimeOnceAndOnlyWhenAsked) {
  // Creating the object (registration) does not touch the runtime.
  EXPECT_EQ(runtime_.calls("GetDeviceCount"), 0);
  Count();
  WhyNot(Device(TEPLUG_DEVICE_CUDA, 0));
  Count();
  EXPECT_EQ(runtime_.calls("GetDeviceCount"), 1);
}

TEST_F(CudaDeviceTest, ZeroDevicesIsReportedAsSuch) {
  FakeCudaRuntime empty;
  auto dev = sdk::Ref<TeplugDeviceV1>::Adopt(sdk::MakeDevice(NewCudaDevice(empty)));
  TeplugDevice d = Device(TEPLUG_DEVICE_CUDA, 0);
  std::unique_ptr<sdk::DeviceContext> ctx;
  sdk::OwnedError e = sdk::DeviceContext::Open(dev.get(), d, &ctx);
  EXPECT_EQ(e.code(), TEPLUG_UNSUPPORTED);
  EXPECT_EQ(e.message(), "native: no CUDA device: cudaGetDeviceCount reported 0 devices");
}

TEST_F(CudaDeviceTest, AFailedPropertiesQueryNamesTheDevice) {
  runtime_.Fail("GetDeviceFacts", testing::kCudaErrorInvalidValue);
  EXPECT_EQ(Count(), 0u);
  EXPECT_EQ(WhyNot(Device(TEPLUG_DEVICE_CUDA, 0)),
            "native: no CUDA device: cudaGetDeviceProperties(0) returned cudaErrorInvalidValue (invalid argument)");
}

TEST_F(CudaDeviceTest, EnumeratesEveryGpuWithArchNameAndMemory) {
  ASSERT_EQ(Count(), 2u);
  TeplugDeviceInfo info = sdk::Versioned<TeplugDeviceInfo>();
  ASSERT_FALSE(sdk::OwnedError(dev_->vtbl->device_info(dev_.get(), 1, &info)));
  EXPECT_EQ(info.kind, TEPLUG_DEVICE_CUDA);
  EXPECT_EQ(info.vendor_id, TEPLUG_VENDOR_NVIDIA);
  EXPECT_EQ(info.ordinal, 1);
  EXPECT_EQ(info.arch, 90);
  EXPECT_STREQ(info.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(info.memory_bytes, 85520809984ull);
  EXPECT_EQ(info.host_pointers_usable, 0);
  sdk::OwnedError past(dev_->vtbl->device_info(dev_.get(), 2, &info));
  EXPECT_EQ(past.code(), TEPLUG_INVALID_ARGUMENT);
}

TEST_F(CudaDeviceTest, RefusesOtherKindsAndOrdinalsTheRuntimeDoesNotReport) {
  EXPECT_EQ(WhyNot(Device(TEPLUG_DEVICE_CUDA, 1)), "");
  EXPECT_EQ(WhyNot(Device(TEPLUG_DEVICE_CPU, 0)), "native: serves CUDA devices only, not kind 1");
  TeplugDevice amd = Device(TEPLUG_DEVICE_CUDA, 0);
  amd.vendor_id = TEPLUG_VENDOR_AMD;
  EXPECT_EQ(WhyNot(amd), "native: CUDA devices are NVIDIA's (0x10de), not vendor 0x1002");
  TeplugDevice nvidia = Device(TEPLUG_DEVICE_CUDA, 0);
  nvidia.vendor_id = TEPLUG_VENDOR_NVIDIA;
  EXPECT_EQ(WhyNot(nvidia), "");
  EXPECT_EQ(WhyNot(Device(TEPLUG_DEVICE_CUDA, 2)), "native: no CUDA device with ordinal 2 (the runtime reports 2)");
  EXPECT_EQ(WhyNot(Device(TEPLUG_DEVICE_CUDA, -1)), "native: no CUDA device with ordinal -1 (the runtime reports 2)");
  std::unique_ptr<sdk::DeviceContext> ctx;
  sdk::OwnedError e = sdk::DeviceContext::Open(dev_.get(), Device(TEPLUG_DEVICE_CUDA, 7), &ctx);
  EXPECT_EQ(e.code(), TEPLUG_UNSUPPORTED);
  EXPECT_THAT(e.message(), HasSubstr("ordinal 7"));
}

TEST_F(CudaDeviceTest, CopiesRoundTripThroughDeviceMemoryOnTheContextsGpu) {
  auto ctx = Open(1);
  ASSERT_NE(ctx, nullptr);
  const std::vector<float> input = {1.5f, -2.0f, 3.25f, 1e-30f};
  const size_t bytes = input.size() * sizeof(float);
  runtime_.set_current_device(0);  // the caller's thread is on cuda:0
  void* a = Allocate(*ctx, bytes);
  void* b = Allocate(*ctx, bytes);
  EXPECT_EQ(runtime_.malloc_devices(), (std::vector<int>{1, 1}));  // made on the context's GPU
  EXPECT_EQ(runtime_.current_device(), 0) << "the caller's current device is put back";
  ASSERT_FALSE(ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, a, input.data(), bytes));
  ASSERT_FALSE(ctx->Copy(TEPLUG_COPY_DEVICE_TO_DEVICE, b, a, bytes));
  std::vector<float> output(input.size(), 0.0f);
  ASSERT_FALSE(ctx->Copy(TEPLUG_COPY_DEVICE_TO_HOST, output.data(), b, bytes));
  EXPECT_EQ(output, input);
  EXPECT_EQ(runtime_.calls("CopySync"), 3);
  EXPECT_EQ(runtime_.calls("CopyAsync"), 0);
  ASSERT_FALSE(ctx->Deallocate(a));
  ASSERT_FALSE(ctx->Deallocate(b));
  EXPECT_EQ(runtime_.live_allocations(), 0u);
  EXPECT_FALSE(ctx->Close());
}

TEST_F(CudaDeviceTest, RefusesPointersTheContextDidNotAllocateByName) {
  auto ctx = Open(0);
  auto other = Open(0);
  void* mine = Allocate(*ctx, 64);
  void* theirs = Allocate(*other, 64);
  char host[128] = {};

  sdk::OwnedError foreign = ctx->Deallocate(theirs);
  EXPECT_EQ(foreign.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(foreign.message(), HasSubstr("was not allocated by this context"));

  sdk::OwnedError into_foreign = ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, theirs, host, 16);
  EXPECT_EQ(into_foreign.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(into_foreign.message(), HasSubstr("TeplugCopyArgs.dst"));

  sdk::OwnedError past_end = ctx->Copy(TEPLUG_COPY_DEVICE_TO_HOST, host, static_cast<char*>(mine) + 32, 33);
  EXPECT_EQ(past_end.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(past_end.message(), HasSubstr("TeplugCopyArgs.src"));
  EXPECT_FALSE(ctx->Copy(TEPLUG_COPY_DEVICE_TO_HOST, host, static_cast<char*>(mine) + 32, 32));

  sdk::OwnedError host_as_device = ctx->Copy(TEPLUG_COPY_DEVICE_TO_DEVICE, mine, host, 8);
  EXPECT_EQ(host_as_device.code(), TEPLUG_INVALID_ARGUMENT);

  ASSERT_FALSE(ctx->Deallocate(mine));
  sdk::OwnedError twice = ctx->Deallocate(mine);
  EXPECT_EQ(twice.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(runtime_.calls("Free"), 1);
  EXPECT_FALSE(ctx->Deallocate(nullptr));
  EXPECT_FALSE(ctx->Close());
  EXPECT_FALSE(other->Close());
}

TEST_F(CudaDeviceTest, RefusesMalformedCalls) {
  auto ctx = Open(0);
  void* p = nullptr;
  sdk::OwnedError zero = ctx->Allocate(0, 0, &p);
  EXPECT_EQ(zero.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(zero.message(), "TeplugAllocateArgs.bytes is 0");
  sdk::OwnedError odd = ctx->Allocate(64, 48, &p);
  EXPECT_EQ(odd.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(odd.message(), "TeplugAllocateArgs.alignment 48 is not a power of two");
  sdk::OwnedError kind = ctx->Copy(7, &p, &p, 8);
  EXPECT_EQ(kind.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(kind.message(), "TeplugCopyArgs.kind 7 is not a TeplugCopyKind");
  sdk::OwnedError null_dst = ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, nullptr, &p, 8);
  EXPECT_EQ(null_dst.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_FALSE(ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, nullptr, nullptr, 0));  // 0 bytes: a no-op
  EXPECT_EQ(runtime_.calls("Malloc"), 0);
  EXPECT_EQ(runtime_.calls("CopySync"), 0);

  sdk::OwnedError null_ctx(dev_->vtbl->deallocate(dev_.get(), nullptr, &p));
  EXPECT_EQ(null_ctx.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(null_ctx.message(), "deallocate: context is NULL");
  uint64_t not_a_context[2] = {};  // readable, but no context magic
  sdk::OwnedError bogus(
      dev_->vtbl->close(dev_.get(), reinterpret_cast<TeplugDeviceContext*>(not_a_context)));
  EXPECT_EQ(bogus.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(bogus.message(), HasSubstr("not a context of the native CUDA device"));
  EXPECT_FALSE(ctx->Close());
}

TEST_F(CudaDeviceTest, AlignmentsAbove256OverAllocateAndFreeTheRuntimesAddress) {
  auto ctx = Open(0);
  void* p = Allocate(*ctx, 1000, 4096);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 4096, 0u);
  ASSERT_EQ(runtime_.malloc_sizes().size(), 1u);
  EXPECT_EQ(runtime_.malloc_sizes()[0], 1000u + 4096u - 256u);
  char host[1000] = {};
  EXPECT_FALSE(ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, p, host, sizeof host));
  sdk::OwnedError beyond = ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, p, host, sizeof host + 1);
  EXPECT_EQ(beyond.code(), TEPLUG_INVALID_ARGUMENT);
  void* small = Allocate(*ctx, 10, 64);  // at most 256: what cudaMalloc returns
  EXPECT_EQ(runtime_.malloc_sizes()[1], 10u);
  ASSERT_FALSE(ctx->Deallocate(p));
  ASSERT_FALSE(ctx->Deallocate(small));
  EXPECT_EQ(runtime_.live_allocations(), 0u);  // the fake frees only what it returned
  EXPECT_FALSE(ctx->Close());
}

TEST_F(CudaDeviceTest, RuntimeFailuresComeBackInTheRuntimesWords) {
  auto ctx = Open(0);
  runtime_.Fail("Malloc", kCudaErrorMemoryAllocation);
  void* p = nullptr;
  sdk::OwnedError oom = ctx->Allocate(1 << 20, 0, &p);
  EXPECT_EQ(oom.code(), TEPLUG_OUT_OF_MEMORY);
  EXPECT_EQ(oom.message(),
            "allocate 1048576 bytes on cuda:0: cudaMalloc returned cudaErrorMemoryAllocation (out of memory)");
  sdk::OwnedError huge = ctx->Allocate(SIZE_MAX - 10, 1024, &p);
  EXPECT_EQ(huge.code(), TEPLUG_OUT_OF_MEMORY);

  FakeCudaRuntime other(TwoGpus());
  auto dev = sdk::Ref<TeplugDeviceV1>::Adopt(sdk::MakeDevice(NewCudaDevice(other)));
  std::unique_ptr<sdk::DeviceContext> c2;
  ASSERT_FALSE(sdk::DeviceContext::Open(dev.get(), Device(TEPLUG_DEVICE_CUDA, 0), &c2));
  void* q = nullptr;
  ASSERT_FALSE(c2->Allocate(16, 0, &q));
  other.Fail("CopySync", testing::kCudaErrorInvalidValue);
  char host[16] = {};
  sdk::OwnedError copy = c2->Copy(TEPLUG_COPY_HOST_TO_DEVICE, q, host, 16);
  EXPECT_EQ(copy.code(), TEPLUG_INTERNAL);
  EXPECT_EQ(copy.message(), "copy: cudaMemcpy returned cudaErrorInvalidValue (invalid argument)");
  EXPECT_FALSE(c2->Close());
  EXPECT_FALSE(ctx->Close());
}

TEST_F(CudaDeviceTest, StreamsOrderAsyncCopiesAndBelongToTheirContext) {
  auto ctx = Open(0);
  auto other = Open(0);
  TeplugStream s = nullptr, theirs = nullptr;
  ASSERT_FALSE(ctx->CreateStream(&s));
  ASSERT_FALSE(other->CreateStream(&theirs));
  const int64_t value = 0x1234567890;
  void* d = Allocate(*ctx, sizeof value);
  ASSERT_FALSE(ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, d, &value, sizeof value, s));
  int64_t back = 0;
  ASSERT_FALSE(ctx->Copy(TEPLUG_COPY_DEVICE_TO_HOST, &back, d, sizeof back, s));
  ASSERT_FALSE(ctx->SynchronizeStream(s));
  EXPECT_EQ(back, value);
  EXPECT_EQ(runtime_.async_copy_streams(), (std::vector<void*>{s, s}));

  sdk::OwnedError foreign_copy = ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, d, &value, sizeof value, theirs);
  EXPECT_EQ(foreign_copy.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(foreign_copy.message(), "TeplugCopyArgs.stream is not a stream of this context");
  EXPECT_EQ(ctx->SynchronizeStream(theirs).code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(ctx->DestroyStream(theirs).code(), TEPLUG_INVALID_ARGUMENT);

  const int syncs_before = runtime_.calls("StreamSynchronize");
  ASSERT_FALSE(ctx->DestroyStream(s));
  EXPECT_EQ(runtime_.calls("StreamSynchronize"), syncs_before + 1);  // waits before destroying
  EXPECT_EQ(ctx->DestroyStream(s).code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_FALSE(ctx->Close());
  EXPECT_FALSE(other->Close());
  EXPECT_EQ(runtime_.live_streams(), 0u);
}

TEST_F(CudaDeviceTest, CloseReleasesWhatTheContextStillHolds) {
  auto ctx = Open(1);
  Allocate(*ctx, 100);
  Allocate(*ctx, 200, 1024);
  TeplugStream s = nullptr;
  ASSERT_FALSE(ctx->CreateStream(&s));
  EXPECT_EQ(runtime_.live_allocations(), 2u);
  EXPECT_EQ(runtime_.live_streams(), 1u);
  EXPECT_FALSE(ctx->Close());
  EXPECT_EQ(runtime_.live_allocations(), 0u);
  EXPECT_EQ(runtime_.live_streams(), 0u);
}

TEST_F(CudaDeviceTest, CloseReleasesEverythingAndReportsTheFirstFailure) {
  auto ctx = Open(0);
  Allocate(*ctx, 100);
  Allocate(*ctx, 100);
  runtime_.Fail("Free", testing::kCudaErrorInvalidValue);
  sdk::OwnedError e = ctx->Close();
  EXPECT_EQ(e.code(), TEPLUG_INTERNAL);
  EXPECT_EQ(e.message(), "close: cudaFree returned cudaErrorInvalidValue (invalid argument)");
  EXPECT_EQ(runtime_.calls("Free"), 2);  // the second allocation was still tried
}

TEST_F(CudaDeviceTest, ThreadsShareOneContextAndTheFirstProbe) {
  // Fresh device: the threads race to the first probe, then to one context.
  auto dev = sdk::Ref<TeplugDeviceV1>::Adopt(sdk::MakeDevice(NewCudaDevice(runtime_)));
  std::unique_ptr<sdk::DeviceContext> shared;
  std::vector<std::thread> threads;
  std::vector<int> failures(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      size_t count = 0;
      if (sdk::OwnedError(dev->vtbl->device_count(dev.get(), &count)) || count != 2) ++failures[t];
    });
  }
  for (std::thread& t : threads) t.join();
  threads.clear();
  EXPECT_EQ(runtime_.calls("GetDeviceCount"), 1);
  ASSERT_FALSE(sdk::DeviceContext::Open(dev.get(), Device(TEPLUG_DEVICE_CUDA, 0), &shared));
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        const int64_t value = t * 1000 + i;
        void* p = nullptr;
        TeplugStream s = nullptr;
        if (shared->Allocate(sizeof value, 0, &p) || shared->CreateStream(&s)) {
          ++failures[t];
          return;
        }
        int64_t back = -1;
        if (shared->Copy(TEPLUG_COPY_HOST_TO_DEVICE, p, &value, sizeof value, s) ||
            shared->Copy(TEPLUG_COPY_DEVICE_TO_HOST, &back, p, sizeof back, s) || shared->DestroyStream(s) ||
            shared->Deallocate(p) || back != value) {
          ++failures[t];
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures, std::vector<int>(8, 0));
  EXPECT_FALSE(shared->Close());
  EXPECT_EQ(runtime_.live_allocations(), 0u);
  EXPECT_EQ(runtime_.live_streams(), 0u);
}

}  // namespace
}  // namespace teplug::native
