// CUDA smoke test: the toolkit's libraries link and answer version queries (no GPU
// needed), and an nvcc-compiled kernel runs correctly when a device is present.
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <nccl.h>

#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "native/smoke/square_kernel.h"

namespace teplug::smoke {
namespace {

TEST(CudaSmokeTest, CublasLtReportsAVersionFromCuda12OrLater) {
  // cublasLtGetVersion() encodes major*10000 + minor*100 + patch.
  EXPECT_GE(cublasLtGetVersion(), 120000u);
  EXPECT_LT(cublasLtGetVersion(), 1000000u);
}

TEST(CudaSmokeTest, CudnnRuntimeMatchesTheHeaderItWasBuiltAgainst) {
  const size_t version = cudnnGetVersion();
  EXPECT_GE(version, 90000u) << "cuDNN 9 or later is required";
  EXPECT_EQ(version / 10000, static_cast<size_t>(CUDNN_MAJOR))
      << "libcudnn " << version << " does not match cudnn.h major " << CUDNN_MAJOR;
}

TEST(CudaSmokeTest, NcclReportsAVersionFrom2_18OrLater) {
  int version = 0;
  ASSERT_EQ(ncclGetVersion(&version), ncclSuccess);
  // NCCL encodes major*10000 + minor*100 + patch since 2.9.
  EXPECT_GE(version, 21800);
  EXPECT_EQ(version / 10000, NCCL_MAJOR);
}

TEST(CudaSmokeTest, CudartReportsARuntimeVersion) {
  int version = 0;
  ASSERT_EQ(cudaRuntimeGetVersion(&version), cudaSuccess);
  EXPECT_GE(version, 12000);
}

TEST(CudaSmokeTest, KernelComputesSquarePlusOffsetOnTheDevice) {
  int devices = 0;
  const cudaError_t probe = cudaGetDeviceCount(&devices);
  if (probe != cudaSuccess || devices == 0) {
    GTEST_SKIP() << "no CUDA device: cudaGetDeviceCount returned " << cudaGetErrorName(probe)
                 << " (" << cudaGetErrorString(probe) << "), count " << devices;
  }

  constexpr int kCount = 1000;  // Not a multiple of the block size: exercises the bound check.
  constexpr float kOffset = 0.75f;
  std::mt19937 rng(20240611);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  std::vector<float> input(kCount);
  for (float& x : input) x = dist(rng);

  float* device_in = nullptr;
  float* device_out = nullptr;
  ASSERT_EQ(cudaMalloc(&device_in, kCount * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&device_out, kCount * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(device_in, input.data(), kCount * sizeof(float), cudaMemcpyHostToDevice),
            cudaSuccess);
  ASSERT_EQ(LaunchSquarePlusOffset(device_in, device_out, kCount, kOffset, nullptr), cudaSuccess);
  std::vector<float> output(kCount, NAN);
  ASSERT_EQ(cudaMemcpy(output.data(), device_out, kCount * sizeof(float), cudaMemcpyDeviceToHost),
            cudaSuccess);
  cudaFree(device_in);
  cudaFree(device_out);

  // Oracle: the same formula in double on the host; one float rounding step apart at most.
  for (int i = 0; i < kCount; ++i) {
    const double expected = static_cast<double>(input[i]) * input[i] + kOffset;
    EXPECT_NEAR(output[i], expected, 1e-6 * std::abs(expected) + 1e-6) << "at index " << i;
  }
}

}  // namespace
}  // namespace teplug::smoke
