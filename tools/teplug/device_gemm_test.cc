// RunGemmOnDevice against a device in host memory that tracks what it hands
// out and an IGemm that checks it only sees that device's memory: inputs
// arrive on the device with their contents, outputs come back, the
// workspace asked for is given, everything is freed, and errors keep their
// code and words.
#include "tools/teplug/device_gemm.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "teplug/sdk/implement.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::cli {
namespace {

using ::testing::HasSubstr;

// "Device" memory: malloc'd blocks it tracks by address.
class HostBackedDevice final : public sdk::DeviceImpl {
 public:
  size_t DeviceCount() override { return 1; }
  void DescribeDevice(size_t, TeplugDeviceInfo* info) override { info->kind = TEPLUG_DEVICE_CUDA; }
  TeplugDeviceContext* Open(const TeplugDeviceOpenArgs&) override {
    return reinterpret_cast<TeplugDeviceContext*>(this);
  }
  void Close(TeplugDeviceContext*) override {}
  void* Allocate(const TeplugAllocateArgs& a) override {
    void* p = std::aligned_alloc(256, (a.bytes + 255) / 256 * 256);
    std::lock_guard<std::mutex> lock(mu_);
    blocks_[p] = a.bytes;
    return p;
  }
  void Deallocate(TeplugDeviceContext*, void* p) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (blocks_.erase(p) == 0) throw sdk::InvalidArgument("not allocated here");
    std::free(p);
  }
  void Copy(const TeplugCopyArgs& a) override {
    const void* device_side = a.kind == TEPLUG_COPY_HOST_TO_DEVICE ? a.dst : a.src;
    if (!Owns(device_side, a.bytes)) throw sdk::InvalidArgument("copy outside the device's memory");
    std::memcpy(a.dst, a.src, a.bytes);
  }
  TeplugStream CreateStream(TeplugDeviceContext*) override { return nullptr; }
  void SynchronizeStream(TeplugDeviceContext*, TeplugStream) override {}
  void DestroyStream(TeplugDeviceContext*, TeplugStream) override {}

  bool Owns(const void* p, size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [base, size] : blocks_) {
      const auto* b = static_cast<const char*>(base);
      if (p >= b && static_cast<const char*>(p) + bytes <= b + size) return true;
    }
    return false;
  }
  size_t live() {
    std::lock_guard<std::mutex> lock(mu_);
    return blocks_.size();
  }

 private:
  std::mutex mu_;
  std::map<void*, size_t> blocks_;
};

// fp32 D = A B^T (+ bias), writing pre_gelu_out = D; every tensor it reads or
// writes must be device memory of `device` on `on`.
class DeviceOnlyGemm final : public sdk::GemmImpl {
 public:
  DeviceOnlyGemm(HostBackedDevice* device, const TeplugDevice* on, TeplugCode fail = TEPLUG_OK)
      : device_(device), on_(on), fail_(fail) {}
  size_t WorkspaceSize(const TeplugGemmArgs&) override { return 4096; }
  void Gemm(const TeplugGemmArgs& g) override {
    if (fail_ != TEPLUG_OK) throw sdk::Exception(fail_, "device gemm: refused for the test");
    for (const TeplugTensor* t : {g.a, g.b, static_cast<const TeplugTensor*>(g.d), g.bias,
                                  static_cast<const TeplugTensor*>(g.pre_gelu_out)}) {
      if (t == nullptr) continue;
      if (t->device == nullptr || t->device->kind != on_->kind ||
          t->device->ordinal != on_->ordinal) {
        throw sdk::InvalidArgument("a tensor is not on the device");
      }
      if (!device_->Owns(t->data, TensorBytes(*t)))
        throw sdk::InvalidArgument("a tensor is host memory");
    }
    if (g.workspace_size < 4096 || !device_->Owns(g.workspace, 4096)) {
      throw sdk::InvalidArgument("no device workspace");
    }
    const int64_t M = g.a->shape[0], K = g.a->shape[1], N = g.b->shape[0];
    const auto* a = static_cast<const float*>(g.a->data);
    const auto* b = static_cast<const float*>(g.b->data);
    auto* d = static_cast<float*>(g.d->data);
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t j = 0; j < N; ++j) {
        float s = g.accumulate ? d[i * N + j] : 0.0f;
        for (int64_t k = 0; k < K; ++k) s += a[i * K + k] * b[j * K + k];
        if (g.bias != nullptr) s += static_cast<const float*>(g.bias->data)[j];
        d[i * N + j] = s;
        if (g.pre_gelu_out != nullptr) static_cast<float*>(g.pre_gelu_out->data)[i * N + j] = s;
      }
    }
  }

 private:
  HostBackedDevice* device_;
  const TeplugDevice* on_;
  TeplugCode fail_;
};

struct Host {
  std::vector<float> a, b, d, bias, aux;
  TeplugTensor ta, tb, td, tbias, taux;
  TeplugGemmArgs args;
  Host(int64_t M, int64_t N, int64_t K) {
    for (int64_t i = 0; i < M * K; ++i)
      a.push_back(0.25f * static_cast<float>((i * 7) % 11) - 1.0f);
    for (int64_t i = 0; i < N * K; ++i) b.push_back(0.5f * static_cast<float>((i * 5) % 7) - 1.5f);
    for (int64_t i = 0; i < M * N; ++i) d.push_back(static_cast<float>(i % 3));
    for (int64_t j = 0; j < N; ++j) bias.push_back(0.125f * static_cast<float>(j));
    aux.assign(static_cast<size_t>(M * N), -7.0f);
    auto matrix = [](std::vector<float>& v, int64_t r, int64_t c) {
      TeplugTensor t = sdk::Versioned<TeplugTensor>();
      t.dtype = TEPLUG_DTYPE_FP32;
      t.rank = c == 0 ? 1 : 2;
      t.shape[0] = r;
      t.shape[1] = c;
      t.data = v.data();
      return t;
    };
    ta = matrix(a, M, K);
    tb = matrix(b, N, K);
    td = matrix(d, M, N);
    tbias = matrix(bias, N, 0);
    taux = matrix(aux, M, N);
    args = sdk::Versioned<TeplugGemmArgs>();
    args.a = &ta;
    args.b = &tb;
    args.d = &td;
    args.trans_b = 1;
    args.alpha = 1.0f;
  }
  // What the GEMM must leave in D, computed here on the host.
  std::vector<float> Expected(bool accumulate, bool with_bias) const {
    const int64_t M = ta.shape[0], K = ta.shape[1], N = tb.shape[0];
    std::vector<float> out(static_cast<size_t>(M * N));
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t j = 0; j < N; ++j) {
        float s = accumulate ? d[static_cast<size_t>(i * N + j)] : 0.0f;
        for (int64_t k = 0; k < K; ++k)
          s += a[static_cast<size_t>(i * K + k)] * b[static_cast<size_t>(j * K + k)];
        if (with_bias) s += bias[static_cast<size_t>(j)];
        out[static_cast<size_t>(i * N + j)] = s;
      }
    }
    return out;
  }
};

struct Rig {
  explicit Rig(TeplugCode fail = TEPLUG_OK) {
    auto dev = std::make_unique<HostBackedDevice>();
    device = dev.get();
    device_object = sdk::MakeDevice(std::move(dev));
    cuda = sdk::Versioned<TeplugDevice>();
    cuda.kind = TEPLUG_DEVICE_CUDA;
    EXPECT_FALSE(sdk::DeviceContext::Open(device_object, cuda, &ctx));
    gemm = sdk::MakeGemm(std::make_unique<DeviceOnlyGemm>(device, &cuda, fail));
  }
  ~Rig() {
    ctx.reset();
    gemm->vtbl->base.release(reinterpret_cast<TeplugObject*>(gemm));
    device_object->vtbl->base.release(reinterpret_cast<TeplugObject*>(device_object));
  }
  HostBackedDevice* device = nullptr;
  TeplugDeviceV1* device_object = nullptr;
  TeplugDevice cuda;
  std::unique_ptr<sdk::DeviceContext> ctx;
  TeplugGemmV1* gemm = nullptr;
};

TEST(RunGemmOnDeviceTest, InputsGoOverOutputsComeBackAndNothingStaysAllocated) {
  Rig rig;
  Host h(5, 3, 4);
  h.args.bias = &h.tbias;
  h.args.epilogue = TEPLUG_EPILOGUE_GELU;  // the fake ignores GELU; pre_gelu_out must come back
  h.args.pre_gelu_out = &h.taux;
  const std::vector<float> want = h.Expected(false, true);
  ASSERT_TRUE(RunGemmOnDevice(rig.gemm, *rig.ctx, rig.cuda, h.args).ok());
  EXPECT_EQ(h.d, want);
  EXPECT_EQ(h.aux, want);
  EXPECT_EQ(rig.device->live(), 0u);
}

TEST(RunGemmOnDeviceTest, AccumulatingCopiesDOverFirst) {
  Rig rig;
  Host h(4, 6, 3);
  h.args.accumulate = 1;
  const std::vector<float> want = h.Expected(true, false);
  ASSERT_TRUE(RunGemmOnDevice(rig.gemm, *rig.ctx, rig.cuda, h.args).ok());
  EXPECT_EQ(h.d, want);
}

TEST(RunGemmOnDeviceTest, TheGemmsErrorKeepsItsCodeAndWordsAndFreesTheCopies) {
  Rig rig(TEPLUG_UNSUPPORTED);
  Host h(2, 2, 2);
  const absl::Status s = RunGemmOnDevice(rig.gemm, *rig.ctx, rig.cuda, h.args);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(s.message()), HasSubstr("device gemm: refused for the test"));
  EXPECT_EQ(rig.device->live(), 0u);
}

TEST(RunGemmOnDeviceTest, ATensorWithoutAByteSizeIsRefusedByName) {
  Rig rig;
  Host h(2, 2, 2);
  h.tb.dtype = 99;  // no element size: nothing to copy
  const absl::Status s = RunGemmOnDevice(rig.gemm, *rig.ctx, rig.cuda, h.args);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("B: dtype 99"));
}

TEST(TensorBytesTest, ContiguousAndStridedSpans) {
  TeplugTensor t = sdk::Versioned<TeplugTensor>();
  t.dtype = TEPLUG_DTYPE_BF16;
  t.rank = 2;
  t.shape[0] = 3;
  t.shape[1] = 5;
  EXPECT_EQ(TensorBytes(t), 30u);
  t.strides[0] = 8;
  t.strides[1] = 1;
  EXPECT_EQ(TensorBytes(t), (2 * 8 + 4 + 1) * 2u);
}

TEST(TensorBytesTest, Fp4PacksTwoElementsPerByte) {
  TeplugTensor t = sdk::Versioned<TeplugTensor>();
  t.dtype = TEPLUG_DTYPE_FP4_E2M1;
  t.rank = 2;
  t.shape[0] = 3;
  t.shape[1] = 8;
  EXPECT_EQ(TensorBytes(t), 12u);
  t.strides[0] = 10;  // rows 10 elements (5 bytes) apart
  t.strides[1] = 1;
  EXPECT_EQ(TensorBytes(t), (2u * 10 + 8) / 2);
}

}  // namespace
}  // namespace teplug::cli
