// The native quantizer's CUDA kernels run without a GPU: the IQuantizer's
// host logic over the fake runtime (host memory as cuda:0's), and the very
// .cu kernels compiled for the host grid (native/device/testing/host_grid.h:
// a block's threads as fibers, barriers and warp shuffles emulated). Every
// served case (testing/kernel_cases.h) bit for bit against the reference
// numerics, with 16-byte aligned buffers (the vector paths) and with buffers
// 4 bytes off (the scalar ones). Neither a GPU nor the CUDA toolkit is needed.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "native/device/testing/fake_cuda_runtime.h"
#include "native/device/testing/host_grid.h"
#include "native/quantize/cuda_quantizer.h"
#include "native/quantize/quantize_launch.h"
#include "native/quantize/testing/kernel_cases.h"
#include "native/quantize/testing/quantize_call.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/implement.hpp"

namespace teplug::native::quantize {
namespace {

// Host buffers placed `offset` bytes past a 16-byte boundary.
class HostMemory final : public testing::CaseMemory {
 public:
  explicit HostMemory(size_t offset) : offset_(offset) {}
  ~HostMemory() override {
    for (void* p : blocks_) std::free(p);
  }
  void* Allocate(size_t bytes) override {
    void* block = std::aligned_alloc(16, (bytes + offset_ + 15) / 16 * 16);
    blocks_.push_back(block);
    return static_cast<char*>(block) + offset_;
  }
  void Upload(void* device, const void* host, size_t bytes) override {
    if (bytes > 0) std::memcpy(device, host, bytes);
  }
  void Download(void* host, const void* device, size_t bytes) override {
    if (bytes > 0) std::memcpy(host, device, bytes);
  }
  void Synchronize(void*) override {}  // the host grid runs a launch to its end

 private:
  size_t offset_;
  std::vector<void*> blocks_;
};

CudaDeviceFacts Hopper() {
  CudaDeviceFacts f;
  f.name = "host grid";
  f.major = 9;
  f.minor = 0;
  f.total_memory = int64_t{1} << 30;
  return f;
}

class KernelsOnHostGrid : public ::testing::TestWithParam<size_t> {};

TEST_P(KernelsOnHostGrid, EveryServedCaseMatchesTheReferenceBitForBit) {
  native::testing::FakeCudaRuntime runtime({Hopper()});
  TeplugQuantizerV1* quantizer =
      sdk::MakeQuantizer(NewCudaQuantizer(runtime, RealKernelLauncher()));
  const int64_t launches_before = host_grid::Launches();
  int cases = 0;
  for (const testing::KernelCase& c : testing::EveryServedCase()) {
    // Off the 16-byte boundary, the cases with specials are enough: the
    // scalar paths do not depend on the values.
    if (GetParam() != 0 && !c.specials) continue;
    HostMemory memory(GetParam());
    testing::RunKernelCase(quantizer, memory, c, nullptr);
    ++cases;
    if (::testing::Test::HasFatalFailure()) break;
  }
  EXPECT_GT(cases, GetParam() == 0 ? 400 : 200);
  EXPECT_GE(host_grid::Launches() - launches_before, cases) << "the calls reached the kernels";
  quantizer->vtbl->base.release(reinterpret_cast<TeplugObject*>(quantizer));
}

// A delayed scale the reference would refuse (it is read on the GPU, where
// native cannot refuse it) gives NaN codes and scale_inv in every copy, and
// the input's true amax: the error shows in every consumer.
TEST(KernelsOnHostGridDelayedScale, AnUnusableScaleGivesNanCodesAndScaleInv) {
  native::testing::FakeCudaRuntime runtime({Hopper()});
  TeplugQuantizerV1* quantizer =
      sdk::MakeQuantizer(NewCudaQuantizer(runtime, RealKernelLauncher()));
  for (float bad : {0.0f, -2.0f, INFINITY, NAN}) {
    for (bool columnwise : {false, true}) {  // the plain cast, and the tiled one
      testing::QuantizeCall call(TEPLUG_SCALING_PER_TENSOR, 40, 72);
      for (size_t i = 0; i < call.input_buffer.size(); ++i) {
        call.input_buffer[i] = static_cast<float>(i % 13) - 6.5f;  // |x| <= 6.5
      }
      call.scale_value = bad;
      call.args.columnwise = columnwise ? 1 : 0;
      if (!columnwise) call.quant.columnwise_data = call.quant.columnwise_scale_inv = nullptr;
      sdk::OwnedError e(quantizer->vtbl->quantize(quantizer, &call.args));
      ASSERT_TRUE(e.ok()) << e.message();
      SCOPED_TRACE(::testing::Message() << "scale " << bad << " columnwise " << columnwise);
      for (uint8_t code : call.codes) ASSERT_EQ(code & 0x7F, 0x7F) << "not an e4m3 NaN";
      EXPECT_TRUE(std::isnan(call.scale_inv_buffer[0]));
      if (columnwise) {
        for (uint8_t code : call.columnwise_codes) ASSERT_EQ(code & 0x7F, 0x7F);
        EXPECT_TRUE(std::isnan(call.columnwise_scale_inv_buffer[0]));
      }
      EXPECT_EQ(call.amax_value, 6.5f);
    }
  }
  quantizer->vtbl->base.release(reinterpret_cast<TeplugObject*>(quantizer));
}

INSTANTIATE_TEST_SUITE_P(Alignment, KernelsOnHostGrid, ::testing::Values(size_t{0}, size_t{4}),
                         [](const ::testing::TestParamInfo<size_t>& p) {
                           return p.param == 0 ? std::string("Aligned16")
                                               : "Offset" + std::to_string(p.param);
                         });

}  // namespace
}  // namespace teplug::native::quantize
