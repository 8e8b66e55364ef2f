// Cross-checks the fp8 conversions against a second, independent
// implementation: the host-side conversion functions of CUDA's cuda_fp8.h
// (__nv_cvt_double_to_fp8, and the __nv_fp8_* -> float decoders), which
// NVIDIA's kernels and TransformerEngine's casts agree with. Header-only use,
// nothing runs on a GPU. Skipped when the toolkit is absent (@local_cuda's
// stand-ins are incompatible targets).
#include <cuda_fp8.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/reference/numerics/float_formats.h"

namespace teplug::reference {
namespace {

bool SameFloat(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

TEST(Fp8CudaHostAgreement, DecodesAll256PatternsLikeCuda) {
  for (int c = 0; c < 256; ++c) {
    __nv_fp8_e4m3 e4m3;
    e4m3.__x = static_cast<__nv_fp8_storage_t>(c);
    __nv_fp8_e5m2 e5m2;
    e5m2.__x = static_cast<__nv_fp8_storage_t>(c);
    EXPECT_TRUE(SameFloat(DecodeFp8E4M3(static_cast<uint8_t>(c)), static_cast<float>(e4m3)))
        << "e4m3 code " << c;
    EXPECT_TRUE(SameFloat(DecodeFp8E5M2(static_cast<uint8_t>(c)), static_cast<float>(e5m2)))
        << "e5m2 code " << c;
  }
}

TEST(Fp8CudaHostAgreement, EncodesRandomDoublesAndSpecialsLikeCuda) {
  std::mt19937_64 rng(2718);
  std::uniform_real_distribution<double> log2_magnitude(-26.0, 20.0);
  std::vector<double> values = {0.0, -0.0, std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity(), 464.0, -464.0, 61440.0};
  for (int i = 0; i < 300000; ++i) {
    values.push_back((i % 2 ? -1 : 1) * std::exp2(log2_magnitude(rng)));
  }
  for (double x : values) {
    for (bool saturate : {false, true}) {
      const __nv_saturation_t mode = saturate ? __NV_SATFINITE : __NV_NOSAT;
      ASSERT_EQ(EncodeFp8E4M3(x, saturate), __nv_cvt_double_to_fp8(x, mode, __NV_E4M3))
          << "e4m3 x=" << x << " saturate=" << saturate;
      ASSERT_EQ(EncodeFp8E5M2(x, saturate), __nv_cvt_double_to_fp8(x, mode, __NV_E5M2))
          << "e5m2 x=" << x << " saturate=" << saturate;
    }
  }
}

}  // namespace
}  // namespace teplug::reference
