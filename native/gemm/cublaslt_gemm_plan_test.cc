// PlanCublasLtGemm: teplug's row-major GEMM as cuBLASLt's column-major matmul,
// for every transpose, stride, dtype, epilogue and scaling case (no GPU: the
// plan is a plain struct of cuBLASLt enum values and sizes).
#include "native/gemm/cublaslt_gemm_plan.h"

#include <deque>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native {
namespace {

using ::testing::HasSubstr;

// Builds the tensors of one GEMM; they live as long as the builder.
class GemmBuilder {
 public:
  GemmBuilder() { args_ = sdk::Versioned<TeplugGemmArgs>(); args_.alpha = 1.0f; }

  TeplugTensor* Matrix(int32_t dtype, int64_t rows, int64_t cols, int64_t row_stride = 0, int64_t col_stride = 0) {
    TeplugTensor& t = tensors_.emplace_back(sdk::Versioned<TeplugTensor>());
    t.dtype = dtype;
    t.rank = 2;
    t.shape[0] = rows;
    t.shape[1] = cols;
    t.strides[0] = row_stride;
    t.strides[1] = col_stride;
    return &t;
  }
  TeplugTensor* Vector(int32_t dtype, int64_t n) {
    TeplugTensor& t = tensors_.emplace_back(sdk::Versioned<TeplugTensor>());
    t.dtype = dtype;
    t.rank = 1;
    t.shape[0] = n;
    return &t;
  }
  // Gives `t` quantization metadata with the scale_inv grid of `mode`
  // (teplug/types.h): fp32 [1], e8m0 [rows, cols/32], fp32 [rows, cols/128]
  // or fp32 [rows/128, cols/128] (divisions rounding up).
  TeplugQuantization* Quantize(TeplugTensor* t, int32_t mode) {
    TeplugQuantization& q = quants_.emplace_back(sdk::Versioned<TeplugQuantization>());
    q.mode = mode;
    const int64_t rows = t->shape[0], cols = t->shape[1];
    switch (mode) {
      case TEPLUG_SCALING_MXFP8_1D32: q.scale_inv = Matrix(TEPLUG_DTYPE_E8M0, rows, cols / 32); break;
      case TEPLUG_SCALING_BLOCK_1D128: q.scale_inv = Matrix(TEPLUG_DTYPE_FP32, rows, (cols + 127) / 128); break;
      case TEPLUG_SCALING_BLOCK_2D128:
        q.scale_inv = Matrix(TEPLUG_DTYPE_FP32, (rows + 127) / 128, (cols + 127) / 128);
        break;
      default: q.scale_inv = Vector(TEPLUG_DTYPE_FP32, 1);
    }
    t->quant = &q;
    return &q;
  }
  // A is stored [M, K] (or [K, M] when trans_a), B [K, N] (or [N, K]).
  TeplugGemmArgs& Gemm(int32_t dtype, int64_t M, int64_t N, int64_t K, bool trans_a, bool trans_b,
                       int32_t d_dtype = 0) {
    args_.a = trans_a ? Matrix(dtype, K, M) : Matrix(dtype, M, K);
    args_.b = trans_b ? Matrix(dtype, N, K) : Matrix(dtype, K, N);
    args_.d = Matrix(d_dtype == 0 ? dtype : d_dtype, M, N);
    args_.trans_a = trans_a;
    args_.trans_b = trans_b;
    return args_;
  }
  TeplugGemmArgs& args() { return args_; }

 private:
  std::deque<TeplugTensor> tensors_;
  std::deque<TeplugQuantization> quants_;
  TeplugGemmArgs args_;
};

CublasLtGemmPlan Plan(const TeplugGemmArgs& args) {
  absl::StatusOr<CublasLtGemmPlan> plan = PlanCublasLtGemm(args);
  EXPECT_TRUE(plan.ok()) << plan.status();
  return plan.ok() ? *plan : CublasLtGemmPlan{};
}

void ExpectLayout(const LtMatrixLayout& l, TeplugOperand source, cudaDataType_t type, uint64_t rows, uint64_t cols,
                  int64_t ld) {
  EXPECT_EQ(l.source, source);
  EXPECT_EQ(l.type, type);
  EXPECT_EQ(l.rows, rows);
  EXPECT_EQ(l.cols, cols);
  EXPECT_EQ(l.ld, ld);
}

// M = 3, N = 5, K = 7: every extent distinct, so a swapped one shows.
struct TransposeCase {
  bool trans_a, trans_b;
};

class PlanTransposeTest : public ::testing::TestWithParam<TransposeCase> {};

TEST_P(PlanTransposeTest, SwapsOperandsAndTransposesAndTakesLeadingDimensionsFromRowStrides) {
  const auto [ta, tb] = GetParam();
  GemmBuilder g;
  const CublasLtGemmPlan p = Plan(g.Gemm(TEPLUG_DTYPE_BF16, 3, 5, 7, ta, tb));
  EXPECT_EQ(p.m, 5u);  // N
  EXPECT_EQ(p.n, 3u);  // M
  EXPECT_EQ(p.k, 7u);
  EXPECT_EQ(p.trans_a, tb ? CUBLAS_OP_T : CUBLAS_OP_N);
  EXPECT_EQ(p.trans_b, ta ? CUBLAS_OP_T : CUBLAS_OP_N);
  // cuBLASLt's A is teplug's B, seen column-major: [stored cols, stored rows].
  if (tb) {
    ExpectLayout(p.a, TeplugOperand::kB, CUDA_R_16BF, 7, 5, 7);  // B stored [N, K]
  } else {
    ExpectLayout(p.a, TeplugOperand::kB, CUDA_R_16BF, 5, 7, 5);  // B stored [K, N]
  }
  if (ta) {
    ExpectLayout(p.b, TeplugOperand::kA, CUDA_R_16BF, 3, 7, 3);  // A stored [K, M]
  } else {
    ExpectLayout(p.b, TeplugOperand::kA, CUDA_R_16BF, 7, 3, 7);  // A stored [M, K]
  }
  ExpectLayout(p.d, TeplugOperand::kD, CUDA_R_16BF, 5, 3, 5);
  // op(A_lt) is m x k and op(B_lt) is k x n, as cuBLASLt requires.
  EXPECT_EQ(p.trans_a == CUBLAS_OP_N ? p.a.rows : p.a.cols, p.m);
  EXPECT_EQ(p.trans_a == CUBLAS_OP_N ? p.a.cols : p.a.rows, p.k);
  EXPECT_EQ(p.trans_b == CUBLAS_OP_N ? p.b.rows : p.b.cols, p.k);
  EXPECT_EQ(p.trans_b == CUBLAS_OP_N ? p.b.cols : p.b.rows, p.n);
  EXPECT_EQ(p.compute_type, CUBLAS_COMPUTE_32F);
  EXPECT_EQ(p.scale_type, CUDA_R_32F);
  EXPECT_EQ(p.epilogue, CUBLASLT_EPILOGUE_DEFAULT);
  EXPECT_EQ(p.beta, 0.0f);
  EXPECT_EQ(p.c.source, TeplugOperand::kNone);
}

INSTANTIATE_TEST_SUITE_P(EveryTranspose, PlanTransposeTest,
                         ::testing::Values(TransposeCase{false, false}, TransposeCase{false, true},
                                           TransposeCase{true, false}, TransposeCase{true, true}));

TEST(PlanStridesTest, ExplicitRowStridesBecomeLeadingDimensions) {
  GemmBuilder g;
  TeplugGemmArgs& a = g.Gemm(TEPLUG_DTYPE_FP16, 4, 6, 8, false, true);
  a.a = g.Matrix(TEPLUG_DTYPE_FP16, 4, 8, 64, 1);
  a.b = g.Matrix(TEPLUG_DTYPE_FP16, 6, 8, 40, 1);
  a.d = g.Matrix(TEPLUG_DTYPE_FP16, 4, 6, 16, 1);
  const CublasLtGemmPlan p = Plan(a);
  ExpectLayout(p.a, TeplugOperand::kB, CUDA_R_16F, 8, 6, 40);
  ExpectLayout(p.b, TeplugOperand::kA, CUDA_R_16F, 8, 4, 64);
  ExpectLayout(p.d, TeplugOperand::kD, CUDA_R_16F, 6, 4, 16);
}

TEST(PlanStridesTest, RefusesStridesCuBlasLtCannotExpressNamingTheTensor) {
  GemmBuilder g;
  TeplugGemmArgs& a = g.Gemm(TEPLUG_DTYPE_FP32, 4, 6, 8, false, false);
  a.a = g.Matrix(TEPLUG_DTYPE_FP32, 4, 8, 16, 2);
  absl::Status s = PlanCublasLtGemm(a).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("A.strides [16, 2]"));

  a.a = g.Matrix(TEPLUG_DTYPE_FP32, 4, 8, 4, 1);  // rows overlap
  s = PlanCublasLtGemm(a).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("A.strides[0] 4 is below its 8 columns"));

  a.a = g.Matrix(TEPLUG_DTYPE_FP32, 4, 8);
  a.d = g.Matrix(TEPLUG_DTYPE_FP32, 4, 6, 6, 0);
  s = PlanCublasLtGemm(a).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("D.strides [6, 0] mix zero and non-zero"));
}

TEST(PlanShapesTest, RefusesMismatchedShapesNamingThem) {
  GemmBuilder g;
  TeplugGemmArgs& a = g.Gemm(TEPLUG_DTYPE_FP32, 4, 6, 8, false, false);
  a.b = g.Matrix(TEPLUG_DTYPE_FP32, 9, 6);
  EXPECT_THAT(PlanCublasLtGemm(a).status().message(), HasSubstr("K differs"));
  a.b = g.Matrix(TEPLUG_DTYPE_FP32, 8, 6);
  a.d = g.Matrix(TEPLUG_DTYPE_FP32, 6, 4);
  EXPECT_THAT(PlanCublasLtGemm(a).status().message(), HasSubstr("D is [6, 4], expected [4, 6]"));
  a.d = g.Vector(TEPLUG_DTYPE_FP32, 24);
  EXPECT_THAT(PlanCublasLtGemm(a).status().message(), HasSubstr("D has rank 1, expected 2"));
}

TEST(PlanDtypesTest, HighPrecisionInputsWriteTheirOwnTypeOrFp32) {
  struct Case {
    int32_t in, out;
    cudaDataType_t lt_in, lt_out;
  };
  for (const Case& c : {Case{TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP32, CUDA_R_32F, CUDA_R_32F},
                        Case{TEPLUG_DTYPE_FP16, TEPLUG_DTYPE_FP16, CUDA_R_16F, CUDA_R_16F},
                        Case{TEPLUG_DTYPE_FP16, TEPLUG_DTYPE_FP32, CUDA_R_16F, CUDA_R_32F},
                        Case{TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_BF16, CUDA_R_16BF, CUDA_R_16BF},
                        Case{TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_FP32, CUDA_R_16BF, CUDA_R_32F}}) {
    GemmBuilder g;
    const CublasLtGemmPlan p = Plan(g.Gemm(c.in, 2, 2, 2, false, false, c.out));
    EXPECT_EQ(p.a.type, c.lt_in);
    EXPECT_EQ(p.b.type, c.lt_in);
    EXPECT_EQ(p.d.type, c.lt_out);
    EXPECT_FALSE(p.fp8);
    EXPECT_FALSE(p.a_scaling.scaled);
    EXPECT_FALSE(p.fast_accum);
  }
}

TEST(PlanDtypesTest, RefusesCombinationsCuBlasLtHasNoKernelFor) {
  GemmBuilder g;
  absl::Status s = PlanCublasLtGemm(g.Gemm(TEPLUG_DTYPE_BF16, 2, 2, 2, false, false, TEPLUG_DTYPE_FP16)).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("D dtype 2 with 3 inputs"));

  TeplugGemmArgs& mixed = g.Gemm(TEPLUG_DTYPE_BF16, 2, 2, 2, false, false);
  mixed.b = g.Matrix(TEPLUG_DTYPE_FP16, 2, 2);
  EXPECT_THAT(PlanCublasLtGemm(mixed).status().message(), HasSubstr("A dtype 3 and B dtype 2"));

  GemmBuilder f;
  TeplugGemmArgs& fp8_out = f.Gemm(TEPLUG_DTYPE_BF16, 2, 2, 2, false, false, TEPLUG_DTYPE_FP8_E4M3);
  EXPECT_THAT(PlanCublasLtGemm(fp8_out).status().message(), HasSubstr("D dtype 4 with 3 inputs"));

  GemmBuilder q;
  TeplugGemmArgs& fp4 = q.Gemm(TEPLUG_DTYPE_FP4_E2M1, 2, 2, 2, false, true);
  EXPECT_EQ(PlanCublasLtGemm(fp4).status().code(), absl::StatusCode::kUnimplemented);
}

// fp8 A and B in TN form (trans_b set), per-tensor scaled.
TeplugGemmArgs& Fp8Gemm(GemmBuilder& g, int32_t a_dtype, int32_t b_dtype, int32_t d_dtype, int32_t mode) {
  TeplugGemmArgs& a = g.Gemm(a_dtype, 16, 32, 64, false, true, d_dtype);
  a.b = g.Matrix(b_dtype, 32, 64);
  g.Quantize(const_cast<TeplugTensor*>(a.a), mode);
  g.Quantize(const_cast<TeplugTensor*>(a.b), mode);
  return a;
}

TEST(PlanFp8Test, PerTensorScalesGoToTheSwappedOperands) {
  GemmBuilder g;
  TeplugGemmArgs& a = Fp8Gemm(g, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E5M2, TEPLUG_DTYPE_BF16,
                              TEPLUG_SCALING_PER_TENSOR);
  const CublasLtGemmPlan p = Plan(a);
  EXPECT_TRUE(p.fp8);
  EXPECT_EQ(p.a.type, CUDA_R_8F_E5M2);  // teplug's B
  EXPECT_EQ(p.b.type, CUDA_R_8F_E4M3);  // teplug's A
  EXPECT_EQ(p.d.type, CUDA_R_16BF);
  EXPECT_EQ(p.trans_a, CUBLAS_OP_T);  // the TN form cuBLASLt's fp8 kernels take
  EXPECT_EQ(p.trans_b, CUBLAS_OP_N);
  EXPECT_TRUE(p.a_scaling.scaled);
  EXPECT_EQ(p.a_scaling.mode, CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F);
  EXPECT_EQ(p.a_scaling.scale_inv_of, TeplugOperand::kB);
  EXPECT_EQ(p.b_scaling.scale_inv_of, TeplugOperand::kA);
  EXPECT_TRUE(p.fast_accum);
  EXPECT_FALSE(p.d_scale);
  EXPECT_FALSE(p.d_amax);
  a.use_split_accumulator = 1;
  EXPECT_FALSE(Plan(a).fast_accum);
}

TEST(PlanFp8Test, AnFp8DIsScaledAndCannotBeAccumulatedInto) {
  GemmBuilder g;
  TeplugGemmArgs& a = Fp8Gemm(g, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E4M3,
                              TEPLUG_SCALING_PER_TENSOR);
  g.Quantize(a.d, TEPLUG_SCALING_PER_TENSOR)->scale = g.Vector(TEPLUG_DTYPE_FP32, 1);
  const CublasLtGemmPlan p = Plan(a);
  EXPECT_EQ(p.d.type, CUDA_R_8F_E4M3);
  EXPECT_TRUE(p.d_scale);
  EXPECT_FALSE(p.d_amax);
  // cuBLASLt reads no C for an fp8 D, and its C layout must be bf16 or fp16.
  EXPECT_EQ(p.c.source, TeplugOperand::kNone);
  EXPECT_EQ(p.c.type, CUDA_R_16BF);
  a.accumulate = 1;
  EXPECT_THAT(PlanCublasLtGemm(a).status().message(), HasSubstr("cannot accumulate into an fp8 D"));
  a.accumulate = 0;
  a.c = g.Matrix(TEPLUG_DTYPE_BF16, 16, 32);
  a.beta = 1.0f;
  EXPECT_THAT(PlanCublasLtGemm(a).status().message(),
              HasSubstr("an fp8 D is written without a C term"));
}

TEST(PlanFp8Test, AnFp8DsCLayoutTakesTheBiasType) {
  GemmBuilder g;
  TeplugGemmArgs& a = Fp8Gemm(g, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E4M3,
                              TEPLUG_DTYPE_FP8_E4M3, TEPLUG_SCALING_PER_TENSOR);
  a.bias = g.Vector(TEPLUG_DTYPE_FP16, 32);
  const CublasLtGemmPlan p = Plan(a);
  EXPECT_EQ(p.bias_type, CUDA_R_16F);
  EXPECT_EQ(p.c.type, CUDA_R_16F);
}

// cuBLAS's bias types: D's, except bf16 for fp8 inputs with an fp32 D and
// bf16 or fp16 for an fp8 D.
TEST(PlanFp8Test, BiasDtypesFollowCuBlasLtsTable) {
  struct Case {
    bool fp8_inputs;
    int32_t d, bias;
    bool served;
  };
  const Case cases[] = {
      {false, TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_BF16, true},
      {false, TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_BF16, false},
      {true, TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_BF16, true},
      {true, TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP32, false},
      {true, TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_BF16, true},
      {true, TEPLUG_DTYPE_FP16, TEPLUG_DTYPE_BF16, false},
      {true, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_BF16, true},
      {true, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP16, true},
      {true, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP32, false},
  };
  for (const Case& c : cases) {
    GemmBuilder g;
    TeplugGemmArgs& a = c.fp8_inputs ? Fp8Gemm(g, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E4M3, c.d,
                                               TEPLUG_SCALING_PER_TENSOR)
                                     : g.Gemm(TEPLUG_DTYPE_BF16, 16, 32, 64, false, true, c.d);
    a.bias = g.Vector(c.bias, 32);
    const absl::Status s = PlanCublasLtGemm(a).status();
    EXPECT_EQ(s.ok(), c.served) << "fp8 inputs " << c.fp8_inputs << ", D " << c.d << ", bias "
                                << c.bias << ": " << s.message();
    if (!c.served) {
      EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
      EXPECT_THAT(s.message(),
                  HasSubstr(absl::StrCat("bias dtype ", c.bias, " with D dtype ", c.d)));
    }
  }
}

TEST(PlanFp8Test, RefusesE5m2TimesE5m2AndMissingScales) {
  GemmBuilder g;
  TeplugGemmArgs& a = Fp8Gemm(g, TEPLUG_DTYPE_FP8_E5M2, TEPLUG_DTYPE_FP8_E5M2, TEPLUG_DTYPE_BF16,
                              TEPLUG_SCALING_PER_TENSOR);
  EXPECT_THAT(PlanCublasLtGemm(a).status().message(), HasSubstr("fp8_e5m2 x fp8_e5m2"));

  GemmBuilder h;
  TeplugGemmArgs& b = h.Gemm(TEPLUG_DTYPE_FP8_E4M3, 16, 32, 64, false, true, TEPLUG_DTYPE_BF16);
  absl::Status s = PlanCublasLtGemm(b).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("B is quantized but has no quant"));
}

TEST(PlanFp8Test, BlockScalingModesMapToCuBlasLtsScaleModes) {
  struct Case {
    int32_t mode;
    cublasLtMatmulMatrixScale_t lt;
  };
  for (const Case& c : {Case{TEPLUG_SCALING_MXFP8_1D32, CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0},
                        Case{TEPLUG_SCALING_BLOCK_1D128, CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F},
                        Case{TEPLUG_SCALING_BLOCK_2D128, CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F}}) {
    GemmBuilder g;
    TeplugGemmArgs& a = Fp8Gemm(g, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_BF16, c.mode);
    // cuBLASLt has no 128x128 by 128x128: B (its A) keeps 1x128 blocks then.
    const bool square = c.mode == TEPLUG_SCALING_BLOCK_2D128;
    if (square) g.Quantize(const_cast<TeplugTensor*>(a.b), TEPLUG_SCALING_BLOCK_1D128);
    const CublasLtGemmPlan p = Plan(a);
    EXPECT_EQ(p.a_scaling.mode, square ? CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F : c.lt) << "mode " << c.mode;
    EXPECT_EQ(p.b_scaling.mode, c.lt) << "mode " << c.mode;
  }
}

TEST(PlanFp8Test, MxScalesAreReadAsTheirGridForTiling) {
  GemmBuilder g;
  // A [16, 64], B [32, 64] (transposed): cuBLASLt's A is B (32 rows), its B is A.
  TeplugGemmArgs& a = Fp8Gemm(g, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_BF16,
                              TEPLUG_SCALING_MXFP8_1D32);
  const CublasLtGemmPlan p = Plan(a);
  EXPECT_EQ(p.a_scaling.grid_rows, 32);
  EXPECT_EQ(p.a_scaling.grid_cols, 2);
  EXPECT_EQ(p.a_scaling.grid_row_stride, 2);
  EXPECT_EQ(p.b_scaling.grid_rows, 16);
  EXPECT_EQ(p.b_scaling.grid_cols, 2);

  // A padded row stride is kept.
  TeplugTensor* grid = const_cast<TeplugTensor*>(a.a->quant->scale_inv);
  grid->strides[0] = 8;
  grid->strides[1] = 1;
  EXPECT_EQ(Plan(a).b_scaling.grid_row_stride, 8);
  grid->strides[0] = 1;  // rows overlapping
  absl::Status s = PlanCublasLtGemm(a).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("A.quant->scale_inv strides must be [>= 2, 1]"));

  grid->strides[0] = grid->strides[1] = 0;
  grid->shape[1] = 3;
  s = PlanCublasLtGemm(a).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("A.quant->scale_inv must be e8m0 [16, 2] for A [16, 64] in scaling mode 2, got dtype 6 rank 2 [16, 3]"));
  grid->shape[1] = 2;
  grid->dtype = TEPLUG_DTYPE_FP32;
  EXPECT_THAT(PlanCublasLtGemm(a).status().message(), HasSubstr("must be e8m0"));
}

TEST(PlanFp8Test, MxNeedsKAMultipleOf32AndAHighPrecisionD) {
  GemmBuilder g;
  TeplugGemmArgs& a = g.Gemm(TEPLUG_DTYPE_FP8_E4M3, 16, 32, 48, false, true, TEPLUG_DTYPE_BF16);
  g.Quantize(const_cast<TeplugTensor*>(a.a), TEPLUG_SCALING_MXFP8_1D32);
  g.Quantize(const_cast<TeplugTensor*>(a.b), TEPLUG_SCALING_MXFP8_1D32);
  absl::Status s = PlanCublasLtGemm(a).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("MXFP8 with K = 48; cuBLASLt's MXFP8 matmul needs K a multiple of 32"));

  GemmBuilder h;
  TeplugGemmArgs& b = Fp8Gemm(h, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E4M3,
                              TEPLUG_SCALING_MXFP8_1D32);
  h.Quantize(b.d, TEPLUG_SCALING_PER_TENSOR)->scale = h.Vector(TEPLUG_DTYPE_FP32, 1);
  EXPECT_THAT(PlanCublasLtGemm(b).status().message(), HasSubstr("an fp8 D from MXFP8 inputs is not served"));
}

TEST(PlanFp8Test, AnFp8DsScaleInvIsWrittenWhenItHasAScale) {
  GemmBuilder g;
  TeplugGemmArgs& a = Fp8Gemm(g, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E4M3,
                              TEPLUG_SCALING_PER_TENSOR);
  TeplugQuantization* dq = g.Quantize(a.d, TEPLUG_SCALING_PER_TENSOR);  // scale_inv only
  absl::Status s = PlanCublasLtGemm(a).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("D.quant->scale_inv is given without D.quant->scale"));
  dq->scale = g.Vector(TEPLUG_DTYPE_FP32, 1);
  EXPECT_TRUE(Plan(a).d_writes_scale_inv);
  dq->scale_inv = nullptr;
  EXPECT_FALSE(Plan(a).d_writes_scale_inv);
}

TEST(PlanFp8Test, OneDimensionalBlocksMustRunAlongK) {
  GemmBuilder g;
  TeplugGemmArgs& a = g.Gemm(TEPLUG_DTYPE_FP8_E4M3, 16, 32, 64, true, true, TEPLUG_DTYPE_BF16);
  g.Quantize(const_cast<TeplugTensor*>(a.a), TEPLUG_SCALING_MXFP8_1D32);
  g.Quantize(const_cast<TeplugTensor*>(a.b), TEPLUG_SCALING_MXFP8_1D32);
  absl::Status s = PlanCublasLtGemm(a).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("A is transposed in op(A)"));

  // 128x128 blocks are square: a transposed operand is still blocked along K,
  // and its grid [K/128, M/128] is transposed into cuBLASLt's [M/128, K/128].
  GemmBuilder h;
  TeplugGemmArgs& b = h.Gemm(TEPLUG_DTYPE_FP8_E4M3, 16, 32, 64, true, true, TEPLUG_DTYPE_BF16);
  h.Quantize(const_cast<TeplugTensor*>(b.a), TEPLUG_SCALING_BLOCK_2D128);
  h.Quantize(const_cast<TeplugTensor*>(b.b), TEPLUG_SCALING_BLOCK_1D128);
  const CublasLtGemmPlan p = Plan(b);
  EXPECT_TRUE(p.b_scaling.grid_transpose);  // teplug's A, stored [K, M]
  EXPECT_TRUE(p.a_scaling.grid_transpose);  // 1x128 grids are always transposed
}

TEST(PlanFp8Test, BlockGridsAreReadAsTeplugStoresThem) {
  GemmBuilder g;
  // A [200, 384] with 1x128 blocks: grid [200, 3]; B [40, 384] with 128x128:
  // grid [1, 3].
  TeplugGemmArgs& a = g.Gemm(TEPLUG_DTYPE_FP8_E4M3, 200, 40, 384, false, true, TEPLUG_DTYPE_BF16);
  g.Quantize(const_cast<TeplugTensor*>(a.a), TEPLUG_SCALING_BLOCK_1D128);
  g.Quantize(const_cast<TeplugTensor*>(a.b), TEPLUG_SCALING_BLOCK_2D128);
  const CublasLtGemmPlan p = Plan(a);
  EXPECT_EQ(p.b_scaling.grid_rows, 200);
  EXPECT_EQ(p.b_scaling.grid_cols, 3);
  EXPECT_TRUE(p.b_scaling.grid_transpose);
  EXPECT_EQ(p.a_scaling.grid_rows, 1);
  EXPECT_EQ(p.a_scaling.grid_cols, 3);
  EXPECT_FALSE(p.a_scaling.grid_transpose);

  const_cast<TeplugTensor*>(a.a->quant->scale_inv)->shape[1] = 2;
  absl::Status s = PlanCublasLtGemm(a).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(),
              HasSubstr("A.quant->scale_inv must be fp32 [200, 3] for A [200, 384] in scaling mode 3, got dtype "));
}

TEST(PlanFp8Test, BlockScaledGemmsFollowCuBlasLtsShapeRules) {
  struct Case {
    const char* what;
    int64_t M, N, K;
    int32_t a_mode, b_mode;
    bool gelu;
    const char* refusal;  // "" when served
  };
  const Case cases[] = {
      {"1x128 by 1x128", 64, 32, 256, TEPLUG_SCALING_BLOCK_1D128, TEPLUG_SCALING_BLOCK_1D128, false, ""},
      {"128x128 by 128x128", 64, 32, 256, TEPLUG_SCALING_BLOCK_2D128, TEPLUG_SCALING_BLOCK_2D128, false,
       "A and B both have 128x128 blocks"},
      {"K not a multiple of 16", 64, 32, 200, TEPLUG_SCALING_BLOCK_1D128, TEPLUG_SCALING_BLOCK_1D128, false,
       "row strides that are multiples of 16 for cuBLASLt, got 200 and 200"},
      {"N not a multiple of 8", 64, 36, 256, TEPLUG_SCALING_BLOCK_1D128, TEPLUG_SCALING_BLOCK_1D128, false,
       "N a multiple of 8 for cuBLASLt, got 36"},
      {"M not a multiple of 8 with 1x128 A", 60, 32, 256, TEPLUG_SCALING_BLOCK_1D128, TEPLUG_SCALING_BLOCK_1D128,
       false, "M a multiple of 8, got 60"},
      {"M not a multiple of 8 with 128x128 A", 60, 32, 256, TEPLUG_SCALING_BLOCK_2D128, TEPLUG_SCALING_BLOCK_1D128,
       false, ""},
      {"GELU", 64, 32, 256, TEPLUG_SCALING_BLOCK_1D128, TEPLUG_SCALING_BLOCK_2D128, true, "no GELU epilogue"},
  };
  for (const Case& c : cases) {
    GemmBuilder g;
    TeplugGemmArgs& a = g.Gemm(TEPLUG_DTYPE_FP8_E4M3, c.M, c.N, c.K, false, true, TEPLUG_DTYPE_BF16);
    g.Quantize(const_cast<TeplugTensor*>(a.a), c.a_mode);
    g.Quantize(const_cast<TeplugTensor*>(a.b), c.b_mode);
    if (c.gelu) a.epilogue = TEPLUG_EPILOGUE_GELU;
    const absl::Status s = PlanCublasLtGemm(a).status();
    if (std::string(c.refusal).empty()) {
      EXPECT_TRUE(s.ok()) << c.what << ": " << s;
    } else {
      EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << c.what;
      EXPECT_THAT(s.message(), HasSubstr(c.refusal)) << c.what;
    }
  }
}

TEST(PlanFp8Test, MixesOnlyOneAndTwoDimensionalBlocks) {
  GemmBuilder g;
  TeplugGemmArgs& a = Fp8Gemm(g, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_BF16,
                              TEPLUG_SCALING_BLOCK_1D128);
  g.Quantize(const_cast<TeplugTensor*>(a.b), TEPLUG_SCALING_BLOCK_2D128);
  const CublasLtGemmPlan p = Plan(a);
  EXPECT_EQ(p.a_scaling.mode, CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F);  // teplug's B
  EXPECT_EQ(p.b_scaling.mode, CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F);
  g.Quantize(const_cast<TeplugTensor*>(a.b), TEPLUG_SCALING_MXFP8_1D32);
  EXPECT_THAT(PlanCublasLtGemm(a).status().message(), HasSubstr("differ"));
}

// Every epilogue combination: bias, GELU, GELU with its pre-activation output.
struct EpilogueCase {
  bool bias, gelu, aux;
  cublasLtEpilogue_t lt;
};

class PlanEpilogueTest : public ::testing::TestWithParam<EpilogueCase> {};

TEST_P(PlanEpilogueTest, MapsToCuBlasLtsEpilogue) {
  const EpilogueCase c = GetParam();
  GemmBuilder g;
  TeplugGemmArgs& a = g.Gemm(TEPLUG_DTYPE_BF16, 4, 6, 8, false, true);
  if (c.bias) a.bias = g.Vector(TEPLUG_DTYPE_BF16, 6);
  if (c.gelu) a.epilogue = TEPLUG_EPILOGUE_GELU;
  if (c.aux) a.pre_gelu_out = g.Matrix(TEPLUG_DTYPE_BF16, 4, 6, 16, 1);
  const CublasLtGemmPlan p = Plan(a);
  EXPECT_EQ(p.epilogue, c.lt);
  EXPECT_EQ(p.has_aux, c.aux);
  if (c.bias) EXPECT_EQ(p.bias_type, CUDA_R_16BF);
  if (c.aux) {
    EXPECT_EQ(p.aux_type, CUDA_R_16BF);
    EXPECT_EQ(p.aux_ld, 16);
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryEpilogue, PlanEpilogueTest,
    ::testing::Values(EpilogueCase{false, false, false, CUBLASLT_EPILOGUE_DEFAULT},
                      EpilogueCase{true, false, false, CUBLASLT_EPILOGUE_BIAS},
                      EpilogueCase{false, true, false, CUBLASLT_EPILOGUE_GELU},
                      EpilogueCase{true, true, false, CUBLASLT_EPILOGUE_GELU_BIAS},
                      EpilogueCase{false, true, true, CUBLASLT_EPILOGUE_GELU_AUX},
                      EpilogueCase{true, true, true, CUBLASLT_EPILOGUE_GELU_AUX_BIAS}));

TEST(PlanEpilogueTest, RefusesMalformedEpilogues) {
  GemmBuilder g;
  TeplugGemmArgs& a = g.Gemm(TEPLUG_DTYPE_BF16, 4, 6, 8, false, false);
  a.pre_gelu_out = g.Matrix(TEPLUG_DTYPE_BF16, 4, 6);
  EXPECT_THAT(PlanCublasLtGemm(a).status().message(), HasSubstr("pre_gelu_out is given without the GELU"));
  a.pre_gelu_out = nullptr;
  a.bias = g.Vector(TEPLUG_DTYPE_BF16, 4);  // M, not N
  EXPECT_THAT(PlanCublasLtGemm(a).status().message(), HasSubstr("bias must be [6] (N)"));
  a.bias = nullptr;
  a.epilogue = TEPLUG_EPILOGUE_GELU;
  a.pre_gelu_out = g.Matrix(TEPLUG_DTYPE_BF16, 4, 6, 12, 1);
  EXPECT_THAT(PlanCublasLtGemm(a).status().message(),
              HasSubstr("pre_gelu_out's row stride 12 is not a multiple of 8"));
  a.pre_gelu_out = nullptr;
  a.epilogue = 5;
  EXPECT_THAT(PlanCublasLtGemm(a).status().message(), HasSubstr("epilogue 5 is not a TeplugGemmEpilogue"));
}

TEST(PlanCTermTest, AccumulateReadsDWithBetaOne) {
  GemmBuilder g;
  TeplugGemmArgs& a = g.Gemm(TEPLUG_DTYPE_FP32, 4, 6, 8, false, false);
  a.accumulate = 1;
  a.c = g.Matrix(TEPLUG_DTYPE_FP32, 1, 1);  // ignored when accumulating
  a.beta = 0.25f;
  a.alpha = 2.0f;
  const CublasLtGemmPlan p = Plan(a);
  EXPECT_EQ(p.beta, 1.0f);
  EXPECT_EQ(p.alpha, 2.0f);
  ExpectLayout(p.c, TeplugOperand::kD, CUDA_R_32F, 6, 4, 6);
}

TEST(PlanCTermTest, CIsReadWithItsOwnLeadingDimensionAndBeta) {
  GemmBuilder g;
  TeplugGemmArgs& a = g.Gemm(TEPLUG_DTYPE_FP32, 4, 6, 8, false, false);
  a.c = g.Matrix(TEPLUG_DTYPE_FP32, 4, 6, 10, 1);
  a.beta = 0.5f;
  const CublasLtGemmPlan p = Plan(a);
  EXPECT_EQ(p.beta, 0.5f);
  ExpectLayout(p.c, TeplugOperand::kC, CUDA_R_32F, 6, 4, 10);
  a.beta = 0.0f;  // no C term
  EXPECT_EQ(Plan(a).c.source, TeplugOperand::kNone);
  a.beta = 1.0f;
  a.c = g.Matrix(TEPLUG_DTYPE_FP32, 6, 4);
  EXPECT_THAT(PlanCublasLtGemm(a).status().message(), HasSubstr("C is [6, 4], expected [4, 6]"));
  a.c = g.Matrix(TEPLUG_DTYPE_BF16, 4, 6);
  EXPECT_THAT(PlanCublasLtGemm(a).status().message(), HasSubstr("C dtype 3 differs from D dtype 1"));
}

}  // namespace
}  // namespace teplug::native
