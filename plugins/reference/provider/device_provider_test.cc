// The reference IDevice through its C function table: enumeration (and the
// struct_size rule for TeplugDeviceInfo), contexts, memory, copies in every
// direction on random bytes, streams, and each misuse refused by name.
#include "plugins/reference/provider/device_provider.h"

#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "teplug/sdk/device_context.hpp"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/ref.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::reference::provider {
namespace {

class ReferenceDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dev_ = sdk::MakeDevice(NewReferenceDevice());
    TeplugDevice cpu = sdk::Versioned<TeplugDevice>();
    cpu.kind = TEPLUG_DEVICE_CPU;
    sdk::OwnedError e = sdk::DeviceContext::Open(dev_, cpu, &ctx_);
    ASSERT_FALSE(e) << e.message();
    ASSERT_NE(ctx_->get(), nullptr);
  }
  void TearDown() override {
    if (ctx_ != nullptr) {
      EXPECT_FALSE(ctx_->Close());
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
  sdk::OwnedError Copy(int32_t kind, void* dst, const void* src, size_t bytes, TeplugStream stream = nullptr) {
    return ctx_->Copy(kind, dst, src, bytes, stream);
  }

  TeplugDeviceV1* dev_ = nullptr;
  std::unique_ptr<sdk::DeviceContext> ctx_;
};

TEST_F(ReferenceDeviceTest, EnumeratesTheHostCpu) {
  size_t count = 0;
  ASSERT_FALSE(sdk::OwnedError(dev_->vtbl->device_count(dev_, &count)));
  ASSERT_EQ(count, 1u);
  TeplugDeviceInfo info = sdk::Versioned<TeplugDeviceInfo>();
  ASSERT_FALSE(sdk::OwnedError(dev_->vtbl->device_info(dev_, 0, &info)));
  EXPECT_EQ(info.kind, TEPLUG_DEVICE_CPU);
  EXPECT_EQ(info.ordinal, 0);
  EXPECT_NE(std::string(info.name).find("host CPU"), std::string::npos) << info.name;
  EXPECT_GT(info.memory_bytes, 0u);
  EXPECT_NE(info.host_pointers_usable, 0);
  EXPECT_EQ(info.struct_size, sizeof info);

  sdk::OwnedError out_of_range(dev_->vtbl->device_info(dev_, 1, &info));
  EXPECT_EQ(out_of_range.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(out_of_range.message().find("index 1"), std::string::npos) << out_of_range.message();
}

TEST_F(ReferenceDeviceTest, DeviceInfoWritesOnlyWhatTheCallersStructHolds) {
  // A caller whose TeplugDeviceInfo ends after `arch` (an older, smaller
  // layout): nothing past it may be written.
  struct Padded {
    TeplugDeviceInfo info;
    unsigned char guard[8];
  } p;
  std::memset(&p, 0xAB, sizeof p);
  p.info.struct_size = TEPLUG_STRUCT_SIZE(TeplugDeviceInfo, arch);
  ASSERT_FALSE(sdk::OwnedError(dev_->vtbl->device_info(dev_, 0, &p.info)));
  EXPECT_EQ(p.info.kind, TEPLUG_DEVICE_CPU);
  EXPECT_EQ(p.info.struct_size, TEPLUG_STRUCT_SIZE(TeplugDeviceInfo, arch));
  const auto* bytes = reinterpret_cast<const unsigned char*>(&p);
  for (size_t i = TEPLUG_STRUCT_SIZE(TeplugDeviceInfo, arch); i < sizeof p; ++i) {
    ASSERT_EQ(bytes[i], 0xAB) << "byte " << i << " written past the caller's struct_size";
  }
}

TEST_F(ReferenceDeviceTest, OpeningAnotherDeviceIsUnsupported) {
  TeplugDevice cuda = sdk::Versioned<TeplugDevice>();
  cuda.kind = TEPLUG_DEVICE_CUDA;
  TeplugDeviceOpenArgs open = sdk::Versioned<TeplugDeviceOpenArgs>();
  open.device = &cuda;
  TeplugDeviceContext* other = nullptr;
  sdk::OwnedError e(dev_->vtbl->open(dev_, &open, &other));
  EXPECT_EQ(e.code(), TEPLUG_UNSUPPORTED);
  EXPECT_NE(e.message().find("cpu:0 only"), std::string::npos) << e.message();
  EXPECT_EQ(other, nullptr);
}

TEST_F(ReferenceDeviceTest, CopiesRandomBytesThroughDeviceMemoryInEveryDirection) {
  std::mt19937 rng(7);
  for (int round = 0; round < 20; ++round) {
    const size_t bytes = 1 + rng() % 4096;
    const size_t alignment = size_t{1} << (rng() % 13);  // 1 .. 4096
    std::vector<unsigned char> host(bytes), back(bytes, 0);
    for (auto& b : host) b = static_cast<unsigned char>(rng());
    auto* a = static_cast<unsigned char*>(Allocate(bytes, alignment));
    auto* b = static_cast<unsigned char*>(Allocate(bytes));
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % alignment, 0u) << "alignment " << alignment;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 256, 0u) << "the default alignment is 256";
    ASSERT_FALSE(Copy(TEPLUG_COPY_HOST_TO_DEVICE, a, host.data(), bytes));
    ASSERT_FALSE(Copy(TEPLUG_COPY_DEVICE_TO_DEVICE, b, a, bytes));
    ASSERT_FALSE(Copy(TEPLUG_COPY_DEVICE_TO_HOST, back.data(), b, bytes));
    ASSERT_EQ(back, host) << "round " << round;
    // A copy into the middle of an allocation.
    const size_t off = bytes / 2;
    ASSERT_FALSE(Copy(TEPLUG_COPY_DEVICE_TO_HOST, back.data(), a + off, bytes - off));
    EXPECT_EQ(std::memcmp(back.data(), host.data() + off, bytes - off), 0);
    EXPECT_FALSE(ctx_->Deallocate(a));
    EXPECT_FALSE(ctx_->Deallocate(b));
  }
}

TEST_F(ReferenceDeviceTest, CopiesOrderedOnAStreamCompleteBySynchronize) {
  TeplugStream s = nullptr;
  ASSERT_FALSE(ctx_->CreateStream(&s));
  ASSERT_NE(s, nullptr);
  std::vector<float> host = {1.5f, -2.25f, 3.0f}, back(3, 0.0f);
  void* d = Allocate(sizeof(float) * 3);
  ASSERT_FALSE(Copy(TEPLUG_COPY_HOST_TO_DEVICE, d, host.data(), sizeof(float) * 3, s));
  ASSERT_FALSE(Copy(TEPLUG_COPY_DEVICE_TO_HOST, back.data(), d, sizeof(float) * 3, s));
  ASSERT_FALSE(ctx_->SynchronizeStream(s));
  EXPECT_EQ(back, host);
  ASSERT_FALSE(ctx_->DestroyStream(s));
  // A destroyed stream is refused by every call that takes one.
  EXPECT_EQ(ctx_->SynchronizeStream(s).code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(ctx_->DestroyStream(s).code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(Copy(TEPLUG_COPY_HOST_TO_DEVICE, d, host.data(), 4, s).code(), TEPLUG_INVALID_ARGUMENT);
}

TEST_F(ReferenceDeviceTest, MisuseIsRefusedNamingWhatWasWrong) {
  struct Case {
    const char* what;
    sdk::OwnedError error;
    const char* expected;
  };
  unsigned char host[64] = {};
  void* d = Allocate(32);
  TeplugAllocateArgs odd = sdk::Versioned<TeplugAllocateArgs>();
  odd.context = ctx_->get();
  odd.bytes = 8;
  odd.alignment = 24;
  TeplugAllocateArgs zero = odd;
  zero.alignment = 0;
  zero.bytes = 0;
  void* out = nullptr;
  std::vector<Case> cases;
  cases.push_back({"alignment not a power of two", sdk::OwnedError(dev_->vtbl->allocate(dev_, &odd, &out)),
                   "alignment 24 is not a power of two"});
  cases.push_back({"zero bytes", sdk::OwnedError(dev_->vtbl->allocate(dev_, &zero, &out)), "bytes is 0"});
  cases.push_back({"past the end", Copy(TEPLUG_COPY_HOST_TO_DEVICE, d, host, 33), "dst"});
  cases.push_back({"host pointer as device source", Copy(TEPLUG_COPY_DEVICE_TO_HOST, host, host + 8, 8), "src"});
  cases.push_back({"bad kind", Copy(7, d, host, 8), "kind 7"});
  cases.push_back({"foreign pointer", ctx_->Deallocate(host),
                   "was not allocated by this context"});
  cases.push_back({"NULL context", sdk::OwnedError(dev_->vtbl->deallocate(dev_, nullptr, d)), "context is NULL"});
  for (Case& c : cases) {
    EXPECT_EQ(c.error.code(), TEPLUG_INVALID_ARGUMENT) << c.what;
    EXPECT_NE(c.error.message().find(c.expected), std::string::npos) << c.what << ": " << c.error.message();
  }
  ASSERT_FALSE(ctx_->Deallocate(d));
  sdk::OwnedError twice(ctx_->Deallocate(d));
  EXPECT_EQ(twice.code(), TEPLUG_INVALID_ARGUMENT) << "a double free is refused";
}

TEST_F(ReferenceDeviceTest, CloseReleasesWhatTheContextStillHolds) {
  // Left allocated and a stream left open: close frees both (LeakSanitizer
  // in the asan config fails this test otherwise).
  ASSERT_NE(Allocate(1 << 16), nullptr);
  TeplugStream s = nullptr;
  ASSERT_FALSE(ctx_->CreateStream(&s));
  ASSERT_FALSE(ctx_->Close());
  ctx_.reset();
}

}  // namespace
}  // namespace teplug::reference::provider
