// The cpu provider's GEMM with fp8 operands against the reference provider
// (the fp64 oracle, which reads code * scale_inv itself) on random codes and
// random scales: every fp8 format and row-wise scaling mode, transposes, fp8
// beside bf16 and fp32 operands, fp32 and bf16 D, with epilogues; partial
// scale blocks and more than one 128-row block. Tolerances from the main
// job's table (tools/teplug/tolerances.h, by D's dtype).
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "plugins/cpu/provider/gemm_provider.h"
#include "plugins/cpu/provider/testing/test_matrix.h"
#include "plugins/reference/provider/gemm_provider.h"
#include "teplug/sdk/names.hpp"
#include "tools/teplug/tolerances.h"

namespace teplug::cpu::provider {
namespace {

using testing::NormalizedMaxError;
using testing::TestMatrix;

bool IsFp8(int32_t dtype) {
  return dtype == TEPLUG_DTYPE_FP8_E4M3 || dtype == TEPLUG_DTYPE_FP8_E5M2;
}

// A contiguous [rows, cols] fp8 operand with random finite codes and random
// row-wise scales of `mode`, as a TeplugTensor with its quant.
class Fp8Operand {
 public:
  Fp8Operand(int32_t dtype, int32_t mode, int64_t rows, int64_t cols, std::mt19937_64& rng)
      : codes_(static_cast<size_t>(rows * cols)) {
    const bool e4m3 = dtype == TEPLUG_DTYPE_FP8_E4M3;
    for (uint8_t& c : codes_) {
      do {
        c = static_cast<uint8_t>(rng());
        // Skip NaN (e4m3 S.1111.111) and Inf/NaN (e5m2 S.11111.xx).
      } while (e4m3 ? (c & 0x7F) == 0x7F : (c & 0x7C) == 0x7C);
    }
    int64_t scale_rows = 1, scale_cols = 1;
    int32_t scale_dtype = TEPLUG_DTYPE_FP32;
    switch (mode) {
      case TEPLUG_SCALING_MXFP8_1D32:
        scale_rows = rows, scale_cols = (cols + 31) / 32, scale_dtype = TEPLUG_DTYPE_E8M0;
        break;
      case TEPLUG_SCALING_BLOCK_1D128:
        scale_rows = rows, scale_cols = (cols + 127) / 128;
        break;
      case TEPLUG_SCALING_BLOCK_2D128:
        scale_rows = (rows + 127) / 128, scale_cols = (cols + 127) / 128;
        break;
      default:
        break;
    }
    const size_t count = static_cast<size_t>(scale_rows * scale_cols);
    if (scale_dtype == TEPLUG_DTYPE_E8M0) {
      // 2^-5 .. 2^4: values of either format stay normal fp32 and bf16.
      scales_.resize(count);
      for (uint8_t& e : scales_) e = static_cast<uint8_t>(122 + rng() % 10);
    } else {
      // Not powers of two: code * scale is rarely exact in bf16.
      std::uniform_real_distribution<float> u(0.01f, 3.0f);
      scales_.resize(count * sizeof(float));
      for (size_t i = 0; i < count; ++i) {
        const float v = u(rng);
        std::memcpy(scales_.data() + i * sizeof(float), &v, sizeof v);
      }
    }
    scale_tensor_.struct_size = sizeof(TeplugTensor);
    scale_tensor_.data = scales_.data();
    scale_tensor_.dtype = scale_dtype;
    if (mode == TEPLUG_SCALING_PER_TENSOR) {
      scale_tensor_.rank = 1;
      scale_tensor_.shape[0] = 1;
    } else {
      scale_tensor_.rank = 2;
      scale_tensor_.shape[0] = scale_rows;
      scale_tensor_.shape[1] = scale_cols;
    }
    quant_.struct_size = sizeof(TeplugQuantization);
    quant_.mode = mode;
    quant_.scale_inv = &scale_tensor_;
    tensor_.struct_size = sizeof(TeplugTensor);
    tensor_.data = codes_.data();
    tensor_.dtype = dtype;
    tensor_.rank = 2;
    tensor_.shape[0] = rows;
    tensor_.shape[1] = cols;
    tensor_.quant = &quant_;
  }
  TeplugTensor* tensor() { return &tensor_; }

 private:
  std::vector<uint8_t> codes_, scales_;
  TeplugTensor scale_tensor_{}, tensor_{};
  TeplugQuantization quant_{};
};

enum class Epilogue { kNone, kBiasGeluAux, kAccumulate };

struct Fp8Setup {
  int32_t a_dtype = TEPLUG_DTYPE_FP8_E4M3, b_dtype = TEPLUG_DTYPE_FP8_E4M3;
  int32_t d_dtype = TEPLUG_DTYPE_FP32;
  int32_t mode = TEPLUG_SCALING_PER_TENSOR;
  bool trans_a = false, trans_b = true;
  Epilogue epilogue = Epilogue::kNone;
  int64_t m = 37, n = 29, k = 200;
};

std::string Describe(const Fp8Setup& s) {
  return absl::StrCat("a=", sdk::DTypeName(s.a_dtype), " b=", sdk::DTypeName(s.b_dtype),
                      " d=", sdk::DTypeName(s.d_dtype), " mode=", sdk::ScalingName(s.mode),
                      " trans_a=", s.trans_a, " trans_b=", s.trans_b,
                      " epilogue=", static_cast<int>(s.epilogue), " m=", s.m, " n=", s.n,
                      " k=", s.k);
}

// Runs `s` through the cpu provider and the reference on the same inputs;
// D (and pre_gelu_out) must agree within D's tolerance.
void RunAndCompare(const Fp8Setup& s, uint64_t seed, CpuGemm& gemm) {
  SCOPED_TRACE(Describe(s));
  std::mt19937_64 rng(seed);
  const int64_t a_rows = s.trans_a ? s.k : s.m, a_cols = s.trans_a ? s.m : s.k;
  const int64_t b_rows = s.trans_b ? s.n : s.k, b_cols = s.trans_b ? s.k : s.n;
  std::unique_ptr<Fp8Operand> a8, b8;
  std::unique_ptr<TestMatrix> a, b;
  TeplugTensor *a_tensor, *b_tensor;
  if (IsFp8(s.a_dtype)) {
    a8 = std::make_unique<Fp8Operand>(s.a_dtype, s.mode, a_rows, a_cols, rng);
    a_tensor = a8->tensor();
  } else {
    a = std::make_unique<TestMatrix>(s.a_dtype, a_rows, a_cols);
    a->FillRandom(rng);
    a_tensor = a->tensor();
  }
  if (IsFp8(s.b_dtype)) {
    b8 = std::make_unique<Fp8Operand>(s.b_dtype, s.mode, b_rows, b_cols, rng);
    b_tensor = b8->tensor();
  } else {
    b = std::make_unique<TestMatrix>(s.b_dtype, b_rows, b_cols);
    b->FillRandom(rng);
    b_tensor = b->tensor();
  }
  const bool aux = s.epilogue == Epilogue::kBiasGeluAux;
  TestMatrix bias(s.d_dtype, -1, s.n);
  bias.FillRandom(rng);
  TestMatrix mine_d(s.d_dtype, s.m, s.n), ref_d(s.d_dtype, s.m, s.n);
  mine_d.FillRandom(rng);
  ref_d.CopyFrom(mine_d);
  TestMatrix mine_pre(s.d_dtype, s.m, s.n), ref_pre(s.d_dtype, s.m, s.n);
  auto args_for = [&](TestMatrix* d, TestMatrix* pre) {
    TeplugGemmArgs g{};
    g.struct_size = sizeof(TeplugGemmArgs);
    g.a = a_tensor;
    g.b = b_tensor;
    g.d = d->tensor();
    g.trans_a = s.trans_a;
    g.trans_b = s.trans_b;
    g.alpha = 0.75f;
    g.bias = aux ? bias.tensor() : nullptr;
    g.epilogue = aux ? TEPLUG_EPILOGUE_GELU : TEPLUG_EPILOGUE_NONE;
    g.pre_gelu_out = aux ? pre->tensor() : nullptr;
    g.accumulate = s.epilogue == Epilogue::kAccumulate;
    return g;
  };
  const TeplugGemmArgs mine = args_for(&mine_d, &mine_pre), ref = args_for(&ref_d, &ref_pre);
  ASSERT_TRUE(reference::provider::RunReferenceGemm(ref).ok());
  const absl::Status status = gemm.Run(mine);
  ASSERT_TRUE(status.ok()) << status;
  const double tolerance = cli::OutputTolerance(cli::ToleranceKind::kGemm, s.d_dtype);
  const double error = NormalizedMaxError(mine_d.Values(), ref_d.Values());
  EXPECT_LE(error, tolerance) << "D";
  if (aux) {
    EXPECT_LE(NormalizedMaxError(mine_pre.Values(), ref_pre.Values()), tolerance)
        << "pre_gelu_out";
  }
}

constexpr int32_t kModes[] = {TEPLUG_SCALING_PER_TENSOR, TEPLUG_SCALING_MXFP8_1D32,
                              TEPLUG_SCALING_BLOCK_1D128, TEPLUG_SCALING_BLOCK_2D128};

// Both operands fp8 (each format, mixed too), every mode and transpose pair.
TEST(CpuGemmFp8Test, BothOperandsEveryModeAndTranspose) {
  CpuGemm gemm;
  uint64_t seed = 1;
  for (int32_t mode : kModes) {
    for (int32_t a_dtype : {TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E5M2}) {
      for (bool trans_a : {false, true}) {
        for (bool trans_b : {false, true}) {
          Fp8Setup s;
          s.mode = mode;
          s.a_dtype = a_dtype;
          s.b_dtype = trans_b ? TEPLUG_DTYPE_FP8_E4M3 : TEPLUG_DTYPE_FP8_E5M2;
          s.trans_a = trans_a;
          s.trans_b = trans_b;
          RunAndCompare(s, seed++, gemm);
        }
      }
    }
  }
}

// One fp8 operand beside a bf16 or fp32 one, D in fp32 and bf16, with the
// epilogues (bias, GELU with its pre-activation output, accumulate).
TEST(CpuGemmFp8Test, BesideUnquantizedOperandsWithEpilogues) {
  CpuGemm gemm;
  uint64_t seed = 100;
  for (int32_t mode : kModes) {
    for (int32_t other : {TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_FP32}) {
      for (int32_t d_dtype : {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_BF16}) {
        for (Epilogue e : {Epilogue::kNone, Epilogue::kBiasGeluAux, Epilogue::kAccumulate}) {
          Fp8Setup s;
          s.mode = mode;
          const bool fp8_a = (seed % 2) == 0;
          s.a_dtype = fp8_a ? TEPLUG_DTYPE_FP8_E4M3 : other;
          s.b_dtype = fp8_a ? other : TEPLUG_DTYPE_FP8_E5M2;
          s.d_dtype = d_dtype;
          s.epilogue = e;
          RunAndCompare(s, seed++, gemm);
        }
      }
    }
  }
}

// More than one 128-row block of scales (2D blocks down the rows of A and of
// a transposed B) and partial blocks at every edge.
TEST(CpuGemmFp8Test, SeveralScaleBlocksInEachDirection) {
  CpuGemm gemm;
  uint64_t seed = 500;
  for (int32_t mode : kModes) {
    for (bool trans_b : {false, true}) {
      Fp8Setup s;
      s.mode = mode;
      s.b_dtype = TEPLUG_DTYPE_FP8_E5M2;
      s.trans_b = trans_b;
      s.m = 150;
      s.n = 131;
      s.k = 260;
      RunAndCompare(s, seed++, gemm);
    }
  }
}

// The per-tensor scale_inv is read at each call (it is data, not part of the
// cached plan's signature): two calls that differ only in it give results
// scaled by the ratio.
TEST(CpuGemmFp8Test, PerTensorScaleReadAtEveryCall) {
  CpuGemm gemm;
  std::mt19937_64 rng(7);
  Fp8Operand a(TEPLUG_DTYPE_FP8_E4M3, TEPLUG_SCALING_PER_TENSOR, 16, 64, rng);
  Fp8Operand b(TEPLUG_DTYPE_FP8_E4M3, TEPLUG_SCALING_PER_TENSOR, 24, 64, rng);
  TestMatrix d1(TEPLUG_DTYPE_FP32, 16, 24), d2(TEPLUG_DTYPE_FP32, 16, 24);
  TeplugGemmArgs g{};
  g.struct_size = sizeof(TeplugGemmArgs);
  g.a = a.tensor();
  g.b = b.tensor();
  g.trans_b = 1;
  g.alpha = 1.0f;
  g.d = d1.tensor();
  ASSERT_TRUE(gemm.Run(g).ok());
  float* scale = static_cast<float*>(const_cast<void*>(a.tensor()->quant->scale_inv->data));
  *scale *= 4.0f;
  g.d = d2.tensor();
  ASSERT_TRUE(gemm.Run(g).ok());
  const std::vector<double> v1 = d1.Values(), v2 = d2.Values();
  double max = 0;
  for (size_t i = 0; i < v1.size(); ++i) {
    EXPECT_DOUBLE_EQ(v2[i], 4.0 * v1[i]) << i;
    max = std::max(max, std::fabs(v1[i]));
  }
  EXPECT_GT(max, 0);
}

}  // namespace
}  // namespace teplug::cpu::provider
