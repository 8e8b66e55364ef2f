// The native IQuantizer through the kernel, as the CLI links it (native and the
// reference built in). Without a GPU: the decision record says why native
// cannot serve, in the CUDA runtime's words. With a GPU (otherwise SKIPPED
// with the driver's text): every case of testing/kernel_cases.h, served by
// native through the kernel's dispatching object, bit for bit against the
// reference numerics.
#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

#include "core/kernel/kernel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "native/quantize/testing/kernel_cases.h"
#include "native/quantize/testing/quantize_call.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native::quantize {
namespace {

using ::testing::HasSubstr;
using testing::TensorOf;

std::unique_ptr<core::Kernel> MakeKernel() {
  core::KernelOptions o;
  o.use_environment = false;
  o.config_text = "log_level: \"error\"\n";
  auto k = core::Kernel::Create(o);
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *std::move(k) : nullptr;
}

// "" when a GPU is present, else the driver's words.
std::string WhyNoGpu() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    return std::string("cudaGetDeviceCount returned ") + cudaGetErrorName(e) + " (" +
           cudaGetErrorString(e) + ")";
  }
  return count > 0 ? "" : "cudaGetDeviceCount reported 0 devices";
}

TeplugDevice Cuda0() {
  TeplugDevice d = sdk::Versioned<TeplugDevice>();
  d.kind = TEPLUG_DEVICE_CUDA;
  return d;
}

TEST(NativeQuantizerThroughKernel, WithoutAGpuTheRecordGivesTheRuntimesReason) {
  const std::string why = WhyNoGpu();
  if (why.empty()) GTEST_SKIP() << "a GPU is present";
  auto k = MakeKernel();
  ASSERT_NE(k, nullptr);
  const TeplugDevice cuda = Cuda0();
  int x = 0;
  TeplugTensor in = TensorOf(&x, TEPLUG_DTYPE_BF16, {64, 64}, &cuda);
  TeplugTensor out = TensorOf(&x, TEPLUG_DTYPE_FP8_E4M3, {64, 64}, &cuda);
  TeplugTensor scales = TensorOf(&x, TEPLUG_DTYPE_E8M0, {64, 2}, &cuda);
  TeplugQuantization q = sdk::Versioned<TeplugQuantization>();
  q.mode = TEPLUG_SCALING_MXFP8_1D32;
  q.scale_inv = &scales;
  out.quant = &q;
  TeplugQuantizeArgs a = sdk::Versioned<TeplugQuantizeArgs>();
  a.input = &in;
  a.output = &out;
  a.rowwise = 1;
  auto record = k->Explain(sdk::kIidQuantizerV1, TEPLUG_OP_QUANTIZE, &a);
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_THAT(record->Format(), HasSubstr("native/quantizer"));
  EXPECT_THAT(record->Format(), HasSubstr("native: no CUDA device: " + why));
}

// ---------------------------------------------------------------- on a GPU

// Device memory, freed with the object.
class DeviceMemory final : public testing::CaseMemory {
 public:
  ~DeviceMemory() override {
    for (void* p : buffers_) cudaFree(p);
  }
  void* Allocate(size_t bytes) override {
    void* p = nullptr;
    EXPECT_EQ(cudaMalloc(&p, bytes < 1 ? 1 : bytes), cudaSuccess);
    buffers_.push_back(p);
    return p;
  }
  // cudaMemcpy from pageable memory may return before the copy lands, and a
  // non-blocking stream is not ordered after the legacy one: wait for it.
  void Upload(void* device, const void* host, size_t bytes) override {
    EXPECT_EQ(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  }
  void Download(void* host, const void* device, size_t bytes) override {
    EXPECT_EQ(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  }
  void Synchronize(void* stream) override {
    EXPECT_EQ(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), cudaSuccess);
  }

 private:
  std::vector<void*> buffers_;
};

TEST(NativeQuantizerThroughKernel, EveryServedModeMatchesTheReferenceBitForBit) {
  const std::string why = WhyNoGpu();
  if (!why.empty()) GTEST_SKIP() << "no GPU: " << why;
  auto k = MakeKernel();
  ASSERT_NE(k, nullptr);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  auto quantizer = k->Query<TeplugQuantizerV1>(sdk::kIidQuantizerV1);
  ASSERT_TRUE(quantizer);
  const auto served_by_native = [&](const TeplugQuantizeArgs& a) {
    auto record = k->Explain(sdk::kIidQuantizerV1, TEPLUG_OP_QUANTIZE, &a);
    ASSERT_TRUE(record.ok()) << record.status();
    EXPECT_TRUE(record->served() && record->chosen()->implementation() == "native/quantizer")
        << record->Format();
  };
  int runs = 0;
  for (const testing::KernelCase& c : testing::EveryServedCase()) {
    DeviceMemory memory;  // each case's buffers freed after it
    testing::RunKernelCase(quantizer.get(), memory, c, (runs++ % 2) ? stream : nullptr,
                           served_by_native);
  }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

}  // namespace
}  // namespace teplug::native::quantize
