// The opencl GEMM's operand conversions: bf16 operands, and fp8 (e4m3, e5m2)
// operands with per-tensor scale_inv or MXFP8 e8m0 scales, converted to fp32
// by our kernels for CLBlast, against the reference provider's fp64 GEMM on
// the same random non-zero inputs, with transposes, a padded row stride and
// partial MX blocks, within the main job's GEMM tolerance for D's dtype
// (tools/teplug/tolerances.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/opencl/provider/gemm_provider.h"
#include "plugins/opencl/quantize/opencl_test_device.h"
#include "plugins/reference/numerics/float_formats.h"
#include "plugins/reference/provider/gemm_provider.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "tools/teplug/tolerances.h"

namespace teplug::opencl::provider {
namespace {

using quantize::OpenClTestDevice;

struct OperandSpec {
  int32_t dtype = TEPLUG_DTYPE_BF16;
  int32_t mode = TEPLUG_SCALING_NONE;  // per_tensor or mxfp8_1d32 for fp8
};

bool IsFp8(int32_t d) { return d == TEPLUG_DTYPE_FP8_E4M3 || d == TEPLUG_DTYPE_FP8_E5M2; }

// A random finite non-zero fp8 code.
uint8_t RandomCode(int32_t dtype, std::mt19937_64& rng) {
  for (;;) {
    const uint8_t c = static_cast<uint8_t>(rng());
    const uint8_t mag = c & 0x7F;
    if (mag == 0) continue;
    if (dtype == TEPLUG_DTYPE_FP8_E4M3 ? mag == 0x7F : (mag & 0x7C) == 0x7C) continue;
    return c;
  }
}

// One operand, [rows, cols] stored with row stride `ld`, host and device.
class Operand {
 public:
  Operand(OpenClTestDevice& dev, const OperandSpec& spec, int64_t rows, int64_t cols, int64_t ld,
          std::mt19937_64& rng)
      : rows_(rows), cols_(cols) {
    const size_t width = IsFp8(spec.dtype) ? 1 : spec.dtype == TEPLUG_DTYPE_FP32 ? 4 : 2;
    bytes_.assign(static_cast<size_t>((rows - 1) * ld + cols) * width, 0);
    std::normal_distribution<double> normal(0.0, 1.0);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        uint8_t* p = &bytes_[static_cast<size_t>(r * ld + c) * width];
        if (IsFp8(spec.dtype)) {
          *p = RandomCode(spec.dtype, rng);
          continue;
        }
        double v = normal(rng);
        if (v == 0) v = 0.5;
        if (spec.dtype == TEPLUG_DTYPE_FP32) {
          const float f = static_cast<float>(v);
          std::memcpy(p, &f, 4);
        } else {
          const uint16_t h =
              spec.dtype == TEPLUG_DTYPE_BF16 ? reference::EncodeBf16(v) : reference::EncodeFp16(v);
          std::memcpy(p, &h, 2);
        }
      }
    }
    host_ = Tensor(spec.dtype, rows, cols, ld, bytes_.data(), nullptr);
    dev_ = Tensor(spec.dtype, rows, cols, ld, dev.Upload(bytes_), dev.device());
    if (!IsFp8(spec.dtype)) return;
    const bool mx = spec.mode == TEPLUG_SCALING_MXFP8_1D32;
    const int64_t blocks = (cols + 31) / 32;
    if (mx) {
      scale_bytes_.resize(static_cast<size_t>(rows * blocks));
      for (auto& s : scale_bytes_) s = static_cast<uint8_t>(124 + rng() % 7);  // 2^-3 .. 2^3
    } else {
      const float s = std::uniform_real_distribution<float>(0.1f, 2.0f)(rng);
      scale_bytes_.resize(4);
      std::memcpy(scale_bytes_.data(), &s, 4);
    }
    const int32_t s_dtype = mx ? TEPLUG_DTYPE_E8M0 : TEPLUG_DTYPE_FP32;
    host_scale_ = Tensor(s_dtype, mx ? rows : 1, mx ? blocks : 1, 0, scale_bytes_.data(), nullptr);
    dev_scale_ = Tensor(s_dtype, mx ? rows : 1, mx ? blocks : 1, 0, dev.Upload(scale_bytes_),
                        dev.device());
    host_q_ = sdk::Versioned<TeplugQuantization>();
    host_q_.mode = spec.mode;
    dev_q_ = host_q_;
    host_q_.scale_inv = &host_scale_;
    dev_q_.scale_inv = &dev_scale_;
    host_.quant = &host_q_;
    dev_.quant = &dev_q_;
  }
  Operand(const Operand&) = delete;
  Operand& operator=(const Operand&) = delete;
  const TeplugTensor* host() const { return &host_; }
  const TeplugTensor* dev() const { return &dev_; }

  static TeplugTensor Tensor(int32_t dtype, int64_t rows, int64_t cols, int64_t ld, void* data,
                             const TeplugDevice* device) {
    TeplugTensor t = sdk::Versioned<TeplugTensor>();
    t.dtype = dtype;
    t.rank = 2;
    t.shape[0] = rows;
    t.shape[1] = cols;
    if (ld != 0 && ld != cols) {
      t.strides[0] = ld;
      t.strides[1] = 1;
    }
    t.data = data;
    t.device = device;
    return t;
  }

 private:
  int64_t rows_, cols_;
  std::vector<uint8_t> bytes_, scale_bytes_;
  TeplugTensor host_{}, dev_{}, host_scale_{}, dev_scale_{};
  TeplugQuantization host_q_{}, dev_q_{};
};

std::vector<double> Values(const std::vector<uint8_t>& bytes, int32_t dtype) {
  std::vector<double> v;
  const size_t width = dtype == TEPLUG_DTYPE_FP32 ? 4 : 2;
  for (size_t i = 0; i + width <= bytes.size(); i += width) {
    if (dtype == TEPLUG_DTYPE_FP32) {
      float f;
      std::memcpy(&f, &bytes[i], 4);
      v.push_back(f);
    } else {
      uint16_t h;
      std::memcpy(&h, &bytes[i], 2);
      v.push_back(reference::DecodeFp16(h));
    }
  }
  return v;
}

struct Case {
  OperandSpec a, b;
  int32_t d_dtype = TEPLUG_DTYPE_FP32;
  bool trans_a = false, trans_b = false;
  int64_t ld_pad = 0;  // extra elements per stored row of A and B
};

class GemmConversionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!device_.unavailable().empty()) GTEST_SKIP() << device_.unavailable();
  }

  void Check(const Case& c, uint64_t seed) {
    const std::string what =
        std::string(sdk::DTypeName(c.a.dtype)) + "/" + sdk::ScalingName(c.a.mode) + " x " +
        sdk::DTypeName(c.b.dtype) + "/" + sdk::ScalingName(c.b.mode) + " -> " +
        sdk::DTypeName(c.d_dtype) + " trans_a=" + std::to_string(c.trans_a) +
        " trans_b=" + std::to_string(c.trans_b) + " ld_pad=" + std::to_string(c.ld_pad);
    SCOPED_TRACE(what);
    std::mt19937_64 rng(seed);
    const int64_t m = 37, n = 29, k = 70;  // 70: a partial 32-element block along K
    const int64_t a_rows = c.trans_a ? k : m, a_cols = c.trans_a ? m : k;
    const int64_t b_rows = c.trans_b ? n : k, b_cols = c.trans_b ? k : n;
    Operand a(device_, c.a, a_rows, a_cols, a_cols + c.ld_pad, rng);
    Operand b(device_, c.b, b_rows, b_cols, b_cols + c.ld_pad, rng);
    const size_t d_bytes = static_cast<size_t>(m * n) * (c.d_dtype == TEPLUG_DTYPE_FP32 ? 4 : 2);
    std::vector<uint8_t> ref_d(d_bytes, 0);
    TeplugTensor host_d = Operand::Tensor(c.d_dtype, m, n, 0, ref_d.data(), nullptr);
    TeplugTensor dev_d = Operand::Tensor(c.d_dtype, m, n, 0, device_.Allocate(d_bytes),
                                         device_.device());
    TeplugGemmArgs args = sdk::Versioned<TeplugGemmArgs>();
    args.trans_a = c.trans_a;
    args.trans_b = c.trans_b;
    args.alpha = 1;
    TeplugGemmArgs ref = args;
    ref.a = a.host();
    ref.b = b.host();
    ref.d = &host_d;
    args.a = a.dev();
    args.b = b.dev();
    args.d = &dev_d;
    const absl::Status s = reference::provider::RunReferenceGemm(ref);
    ASSERT_TRUE(s.ok()) << s;
    std::string reason;
    ASSERT_TRUE(gemm_.Supports(args, &reason)) << reason;
    try {
      gemm_.Gemm(args);
    } catch (const sdk::Exception& e) {
      FAIL() << e.what();
    }
    const std::vector<double> got = Values(device_.Download(dev_d.data, d_bytes), c.d_dtype);
    const std::vector<double> want = Values(ref_d, c.d_dtype);
    double max_diff = 0, max_ref = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      max_diff = std::max(max_diff, std::fabs(got[i] - want[i]));
      max_ref = std::max(max_ref, std::fabs(want[i]));
    }
    ASSERT_GT(max_ref, 0);
    EXPECT_LE(max_diff / max_ref, cli::OutputTolerance(cli::ToleranceKind::kGemm, c.d_dtype));
  }

  OpenClTestDevice device_;
  OpenClGemm gemm_;
};

TEST_F(GemmConversionTest, Bf16OperandsMatchTheReference) {
  uint64_t seed = 1;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      Case c;
      c.trans_a = ta;
      c.trans_b = tb;
      c.ld_pad = ta ? 3 : 0;
      Check(c, seed++);
    }
  }
  Case mixed;  // bf16 x fp32 -> fp16
  mixed.b.dtype = TEPLUG_DTYPE_FP32;
  mixed.d_dtype = TEPLUG_DTYPE_FP16;
  Check(mixed, seed++);
}

TEST_F(GemmConversionTest, Fp8OperandsWithPerTensorAndMxScalesMatchTheReference) {
  uint64_t seed = 100;
  for (int32_t mode : {TEPLUG_SCALING_PER_TENSOR, TEPLUG_SCALING_MXFP8_1D32}) {
    for (int32_t fa : {TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E5M2}) {
      for (bool trans : {false, true}) {
        Case c;
        c.a = {fa, mode};
        c.b = {TEPLUG_DTYPE_FP8_E4M3, mode};
        c.trans_a = trans;
        c.trans_b = !trans;
        c.ld_pad = trans ? 5 : 0;
        Check(c, seed++);
      }
    }
    Case half_d;
    half_d.a = half_d.b = {TEPLUG_DTYPE_FP8_E5M2, mode};
    half_d.d_dtype = TEPLUG_DTYPE_FP16;
    Check(half_d, seed++);
  }
}

}  // namespace
}  // namespace teplug::opencl::provider
