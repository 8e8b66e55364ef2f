// The MXFP8 kernels with TransformerEngine's scale rule (MxRule::
// kTransformerEngine, launched directly; through the kernel it is
// TeplugQuantizeArgs.mx_scale_rule, quantizer_through_kernel_test) against
// the reference's kTransformerEngine rule, bit for bit, row-wise and
// column-wise, on random inputs whose block maxima often have significands
// above 1.75 (where the two rules differ) and with NaN and +-Inf. Needs a
// GPU: SKIPPED with the driver's text otherwise.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "native/quantize/quantize_launch.h"
#include "plugins/reference/numerics/mx_scaling.h"

namespace teplug::native::quantize {
namespace {

namespace ref = ::teplug::reference;

TEST(MxTransformerEngineRuleOnGpu, MatchesTheReferenceRowAndColumnWise) {
  int count = 0;
  const cudaError_t probe = cudaGetDeviceCount(&count);
  if (probe != cudaSuccess || count == 0) {
    GTEST_SKIP() << "no GPU: cudaGetDeviceCount returned " << cudaGetErrorName(probe) << " ("
                 << cudaGetErrorString(probe) << "), count " << count;
  }
  const int64_t rows = 96, cols = 160;
  const size_t n = static_cast<size_t>(rows * cols);
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> significand(1.0f, 2.0f);
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = std::ldexp(significand(rng), static_cast<int>(rng() % 30) - 15) *
           ((rng() & 1) ? 1.0f : -1.0f);
    if (rng() % 300 == 0) x[i] = NAN;
    if (rng() % 300 == 0) x[i] = -INFINITY;
  }
  for (Fp8Kind kind : {Fp8Kind::kE4M3, Fp8Kind::kE5M2}) {
    const ref::Fp8Format f = kind == Fp8Kind::kE4M3 ? ref::Fp8Format::kE4M3 : ref::Fp8Format::kE5M2;
    auto want =
        ref::QuantizeMxfp8(x.data(), rows, cols, f, ref::MxScaleRule::kTransformerEngine, true);
    ASSERT_TRUE(want.ok()) << want.status();
    void *input, *codes, *columnwise, *scales, *columnwise_scales;
    ASSERT_EQ(cudaMalloc(&input, n * 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&codes, n), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&columnwise, n), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&scales, want->scales.size()), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&columnwise_scales, want->columnwise_scales.size()), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(input, x.data(), n * 4, cudaMemcpyHostToDevice), cudaSuccess);
    QuantizeLaunch l;
    l.input = input;
    l.rows = rows;
    l.cols = cols;
    l.kind = kind;
    l.scaling = Scaling::kMx;
    l.mx_rule = MxRule::kTransformerEngine;
    l.rowwise_data = static_cast<uint8_t*>(codes);
    l.rowwise_scale_inv = scales;
    l.columnwise_data = static_cast<uint8_t*>(columnwise);
    l.columnwise_scale_inv = columnwise_scales;
    ASSERT_EQ(LaunchQuantize(l), 0);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<uint8_t> got(n), got_columnwise(n), got_scales(want->scales.size()),
        got_columnwise_scales(want->columnwise_scales.size());
    ASSERT_EQ(cudaMemcpy(got.data(), codes, n, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(got_columnwise.data(), columnwise, n, cudaMemcpyDeviceToHost),
              cudaSuccess);
    ASSERT_EQ(cudaMemcpy(got_scales.data(), scales, got_scales.size(), cudaMemcpyDeviceToHost),
              cudaSuccess);
    ASSERT_EQ(cudaMemcpy(got_columnwise_scales.data(), columnwise_scales,
                         got_columnwise_scales.size(), cudaMemcpyDeviceToHost),
              cudaSuccess);
    EXPECT_EQ(got, want->data);
    EXPECT_EQ(got_scales, want->scales);
    EXPECT_EQ(got_columnwise, want->columnwise_data);
    EXPECT_EQ(got_columnwise_scales, want->columnwise_scales);
    for (void* p : {input, codes, columnwise, scales, columnwise_scales}) cudaFree(p);
  }
}

}  // namespace
}  // namespace teplug::native::quantize
