// DeviceStaging against an in-test IDevice whose memory is host memory behind
// XOR-ed handles (unusable as host pointers): every staged tensor, its
// quantization tensors included, is moved there and back, outputs are copied
// back and inputs are not, and host pointers come back whatever happens.
#include "tools/teplug/conformance_staging.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>

#include "gtest/gtest.h"
#include "teplug/sdk/struct_io.hpp"
#include "tools/teplug/host_tensor.h"

struct TeplugDeviceContext {
  int open = 1;
};

namespace teplug::cli {
namespace {

constexpr uintptr_t kMask = uintptr_t{0x5a5a} << 48;
void* Host(const void* handle) {
  return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(handle) ^ kMask);
}

std::set<void*>* Live() {
  static std::set<void*> live;
  return &live;
}
int g_synchronized = 0;

uint32_t Ref(TeplugObject*) { return 1; }
TeplugError* Open(TeplugDeviceV1*, const TeplugDeviceOpenArgs*, TeplugDeviceContext** out) {
  *out = new TeplugDeviceContext;
  return nullptr;
}
TeplugError* Close(TeplugDeviceV1*, TeplugDeviceContext* c) {
  delete c;
  return nullptr;
}
TeplugError* Allocate(TeplugDeviceV1*, const TeplugAllocateArgs* a, void** out) {
  void* p = std::malloc(a->bytes);
  *out = Host(p);
  Live()->insert(*out);
  return nullptr;
}
TeplugError* Deallocate(TeplugDeviceV1*, TeplugDeviceContext*, void* p) {
  Live()->erase(p);
  std::free(Host(p));
  return nullptr;
}
TeplugError* Copy(TeplugDeviceV1*, const TeplugCopyArgs* a) {
  const bool to_device = a->kind == TEPLUG_COPY_HOST_TO_DEVICE;
  std::memcpy(to_device ? Host(a->dst) : a->dst, to_device ? a->src : Host(a->src), a->bytes);
  return nullptr;
}
TeplugError* Synchronize(TeplugDeviceV1*, TeplugDeviceContext*, TeplugStream) {
  ++g_synchronized;
  return nullptr;
}

const TeplugDeviceV1Vtbl kVtbl = {{sizeof(TeplugDeviceV1Vtbl), nullptr, &Ref, &Ref},
                                  nullptr,
                                  nullptr,
                                  nullptr,
                                  &Open,
                                  &Close,
                                  &Allocate,
                                  &Deallocate,
                                  &Copy,
                                  nullptr,
                                  &Synchronize,
                                  nullptr};
TeplugDeviceV1 g_device = {&kVtbl};

class StagingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    where_.device = sdk::Versioned<TeplugDevice>();
    where_.device.kind = TEPLUG_DEVICE_OPENCL;
    ASSERT_FALSE(sdk::DeviceContext::Open(&g_device, where_.device, &ctx_));
    where_.ctx = ctx_.get();
    where_.stream = reinterpret_cast<TeplugStream>(&where_);  // a token
    where_.spelling = "opencl:0";
    g_synchronized = 0;
  }
  std::unique_ptr<sdk::DeviceContext> ctx_;
  CaseDevice where_;
};

float First(const TeplugTensor* t) { return *static_cast<const float*>(Host(t->data)); }

TEST_F(StagingTest, MovesTensorsAndQuantizationThereAndOutputsBack) {
  HostTensor in("in", TEPLUG_DTYPE_FP32, {2, 3}), out("out", TEPLUG_DTYPE_FP8_E4M3, {2, 3});
  in.SetValues({1, 2, 3, 4, 5, 6});
  out.AttachQuantization(TEPLUG_SCALING_PER_TENSOR);
  const float half = 0.5f;
  std::memcpy(out.tensor()->quant->scale->data, &half, sizeof half);
  void* in_host = in.tensor()->data;
  void* amax_host = out.tensor()->quant->amax->data;
  {
    DeviceStaging staging(&where_);
    ASSERT_EQ(staging.Stage({{in.tensor(), false}, {out.tensor(), true}, {in.tensor(), false}}),
              "");
    EXPECT_EQ(staging.stream(), where_.stream);
    // Every tensor points at device memory of the same contents, the device set.
    EXPECT_EQ(in.tensor()->device, &where_.device);
    EXPECT_EQ(Live()->count(in.tensor()->data), 1u);
    EXPECT_EQ(First(in.tensor()), 1.0f);
    const TeplugQuantization* q = out.tensor()->quant;
    EXPECT_EQ(q->scale->device, &where_.device);
    EXPECT_EQ(First(q->scale), 0.5f);
    EXPECT_EQ(Live()->size(), 5u);  // in, out, scale, scale_inv, amax: `in` once
    // The op writes the device copies.
    *static_cast<float*>(Host(in.tensor()->data)) = 99;
    *static_cast<float*>(Host(q->amax->data)) = 6;
    static_cast<uint8_t*>(Host(out.tensor()->data))[0] = 0x38;
    ASSERT_EQ(staging.Finish(), "");
    EXPECT_EQ(g_synchronized, 1);
  }
  EXPECT_TRUE(Live()->empty());
  EXPECT_EQ(in.tensor()->data, in_host);
  EXPECT_EQ(in.tensor()->device, nullptr);
  EXPECT_EQ(out.tensor()->quant->amax->data, amax_host);
  EXPECT_EQ(in.Values()[0], 1.0) << "an input is not copied back";
  EXPECT_EQ(*static_cast<const float*>(amax_host), 6.0f) << "an output's amax is";
  EXPECT_EQ(static_cast<const uint8_t*>(out.tensor()->data)[0], 0x38);
}

TEST_F(StagingTest, ViewsOfOneBufferShareABlockWithTheirOffsets) {
  // A packed buffer: rows 0-1 an input view, rows 2-3 an output view.
  HostTensor packed("packed", TEPLUG_DTYPE_FP32, {4, 2});
  packed.SetValues({1, 2, 3, 4, 5, 6, 7, 8});
  TeplugTensor first = packed.Reshaped({2, 2}), second = packed.Reshaped({2, 2});
  second.data = static_cast<float*>(second.data) + 4;
  {
    DeviceStaging staging(&where_);
    ASSERT_EQ(staging.Stage({{&first, false}, {&second, true}}), "");
    EXPECT_EQ(Live()->size(), 1u);
    EXPECT_EQ(static_cast<float*>(second.data) - static_cast<float*>(first.data), 4);
    EXPECT_EQ(First(&second), 5.0f);
    *static_cast<float*>(Host(second.data)) = 50;
    EXPECT_NE(staging.Stage({{&first, false}}), "") << "a second Stage is refused";
    ASSERT_EQ(staging.Finish(), "");
  }
  EXPECT_EQ(packed.Values(), (std::vector<double>{1, 2, 3, 4, 50, 6, 7, 8}));
  EXPECT_TRUE(Live()->empty());
}

TEST_F(StagingTest, RestoresHostPointersWithoutFinish) {
  HostTensor in("in", TEPLUG_DTYPE_FP32, {4});
  void* host = in.tensor()->data;
  {
    DeviceStaging staging(&where_);
    ASSERT_EQ(staging.Stage({{in.tensor(), true}, {nullptr, false}}), "");
    void* workspace = nullptr;
    ASSERT_EQ(staging.Workspace(64, &workspace), "");
    EXPECT_EQ(Live()->count(workspace), 1u);
    EXPECT_NE(in.tensor()->data, host);
  }
  EXPECT_EQ(in.tensor()->data, host);
  EXPECT_TRUE(Live()->empty());
}

TEST_F(StagingTest, RefusesWhatHasNoByteSize) {
  HostTensor t("t", TEPLUG_DTYPE_FP32, {2, 4});
  t.tensor()->dtype = 99;  // no element size
  DeviceStaging staging(&where_);
  const std::string e = staging.Stage({{t.tensor(), false}});
  EXPECT_NE(e.find("tensor 0: dtype 99"), std::string::npos) << e;
  t.tensor()->dtype = TEPLUG_DTYPE_FP32;  // the tensor frees its own bytes
}

TEST_F(StagingTest, StagesFp4AsTwoElementsPerByte) {
  HostTensor fp4("fp4", TEPLUG_DTYPE_FP4_E2M1, {2, 4});
  DeviceStaging staging(&where_);
  EXPECT_EQ(staging.Stage({{fp4.tensor(), false}}), "");
  EXPECT_EQ(staging.Finish(), "");
}

TEST(HostStagingTest, HostMemoryStagesNothing) {
  HostTensor in("in", TEPLUG_DTYPE_FP32, {4});
  void* host = in.tensor()->data;
  DeviceStaging staging(nullptr);
  EXPECT_EQ(staging.Stage({{in.tensor(), true}}), "");
  EXPECT_EQ(in.tensor()->data, host);
  void* workspace = nullptr;
  EXPECT_EQ(staging.Workspace(16, &workspace), "");
  EXPECT_NE(workspace, nullptr);
  EXPECT_EQ(staging.stream(), nullptr);
  EXPECT_EQ(staging.Finish(), "");
}

}  // namespace
}  // namespace teplug::cli
