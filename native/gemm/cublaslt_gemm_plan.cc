#include "native/gemm/cublaslt_gemm_plan.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace teplug::native {
namespace {

bool IsFp8(int32_t dtype) { return dtype == TEPLUG_DTYPE_FP8_E4M3 || dtype == TEPLUG_DTYPE_FP8_E5M2; }

bool IsHighPrecision(int32_t dtype) {
  return dtype == TEPLUG_DTYPE_FP32 || dtype == TEPLUG_DTYPE_FP16 || dtype == TEPLUG_DTYPE_BF16;
}

// cuBLASLt's data type of a teplug dtype the plan uses.
absl::StatusOr<cudaDataType_t> LtType(int32_t dtype, const char* tensor) {
  switch (dtype) {
    case TEPLUG_DTYPE_FP32: return CUDA_R_32F;
    case TEPLUG_DTYPE_FP16: return CUDA_R_16F;
    case TEPLUG_DTYPE_BF16: return CUDA_R_16BF;
    case TEPLUG_DTYPE_FP8_E4M3: return CUDA_R_8F_E4M3;
    case TEPLUG_DTYPE_FP8_E5M2: return CUDA_R_8F_E5M2;
    default:
      return absl::UnimplementedError(
          absl::StrCat("native gemm: ", tensor, " dtype ", dtype, " is not one cuBLASLt multiplies here ",
                       "(fp32, fp16, bf16, fp8_e4m3, fp8_e5m2)"));
  }
}

// A teplug rank-2 row-major tensor [rows, cols] with its row stride.
struct RowMajor {
  int64_t rows = 0, cols = 0, row_stride = 0;
};

absl::StatusOr<RowMajor> ReadMatrix(const TeplugTensor* t, const char* name) {
  if (t == nullptr) return absl::InvalidArgumentError(absl::StrCat("native gemm: ", name, " is NULL"));
  if (t->rank != 2) {
    return absl::InvalidArgumentError(absl::StrCat("native gemm: ", name, " has rank ", t->rank, ", expected 2"));
  }
  RowMajor m{t->shape[0], t->shape[1], t->shape[1]};
  if (m.rows <= 0 || m.cols <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("native gemm: ", name, " has shape [", m.rows, ", ", m.cols, "]; cuBLASLt needs extents >= 1"));
  }
  const bool contiguous = t->strides[0] == 0 && t->strides[1] == 0;
  if (!contiguous) {
    if (t->strides[0] == 0 || t->strides[1] == 0) {
      return absl::InvalidArgumentError(absl::StrCat("native gemm: ", name, ".strides [", t->strides[0], ", ",
                                                     t->strides[1], "] mix zero and non-zero"));
    }
    if (t->strides[1] != 1) {
      return absl::UnimplementedError(absl::StrCat("native gemm: ", name, ".strides [", t->strides[0], ", ",
                                                   t->strides[1],
                                                   "]: cuBLASLt needs elements of a row adjacent (stride 1)"));
    }
    if (t->strides[0] < m.cols) {
      return absl::UnimplementedError(absl::StrCat("native gemm: ", name, ".strides[0] ", t->strides[0],
                                                   " is below its ", m.cols,
                                                   " columns: cuBLASLt's leading dimension cannot overlap rows"));
    }
    m.row_stride = t->strides[0];
  }
  return m;
}

// cuBLASLt's view of a row-major teplug matrix: its transpose, column-major.
LtMatrixLayout ColumnMajorView(const RowMajor& m, cudaDataType_t type, TeplugOperand source) {
  return LtMatrixLayout{source, type, static_cast<uint64_t>(m.cols), static_cast<uint64_t>(m.rows), m.row_stride};
}

absl::StatusOr<cublasLtMatmulMatrixScale_t> LtScaleMode(int32_t mode, const char* tensor) {
  switch (mode) {
    case TEPLUG_SCALING_PER_TENSOR: return CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
    case TEPLUG_SCALING_MXFP8_1D32: return CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0;
    case TEPLUG_SCALING_BLOCK_1D128: return CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
    case TEPLUG_SCALING_BLOCK_2D128: return CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("native gemm: ", tensor, ".quant->mode ", mode, " is not a scaling mode of a quantized operand"));
  }
}

// The scaling of quantized operand `t` (teplug's A or B). `k_along_rows`:
// its stored rows run along K (the tensor is transposed in op()), so 1-D
// blocks of its row-wise scales would run along M or N instead of K.
absl::StatusOr<LtOperandScaling> OperandScaling(const TeplugTensor& t, const char* name, TeplugOperand which,
                                                bool k_along_rows) {
  if (t.quant == nullptr || t.quant->scale_inv == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("native gemm: ", name, " is quantized but has no ", t.quant == nullptr ? "quant" : "quant->scale_inv"));
  }
  absl::StatusOr<cublasLtMatmulMatrixScale_t> mode = LtScaleMode(t.quant->mode, name);
  if (!mode.ok()) return mode.status();
  const bool one_dimensional_blocks =
      t.quant->mode == TEPLUG_SCALING_MXFP8_1D32 || t.quant->mode == TEPLUG_SCALING_BLOCK_1D128;
  if (one_dimensional_blocks && k_along_rows) {
    return absl::UnimplementedError(absl::StrCat(
        "native gemm: ", name, " is transposed in op(", name,
        "), so the blocks of its row-wise scales run across K; cuBLASLt needs 1-D scale blocks along K"));
  }
  LtOperandScaling scaling{true, *mode, which};
  if (t.quant->mode == TEPLUG_SCALING_PER_TENSOR) return scaling;

  // The grid teplug/types.h defines for the tensor as stored, [rows, cols].
  const int64_t rows = t.shape[0], cols = t.shape[1];
  const bool mx = t.quant->mode == TEPLUG_SCALING_MXFP8_1D32;
  if (mx && cols % 32 != 0) {  // cols is K: MXFP8 blocks run along K (checked above)
    return absl::UnimplementedError(absl::StrCat("native gemm: ", name, " is MXFP8 with K = ", cols,
                                                 "; cuBLASLt's MXFP8 matmul needs K a multiple of 32"));
  }
  int64_t grid_rows = rows, grid_cols = (cols + 127) / 128;  // block_1d128
  if (mx) grid_cols = cols / 32;
  if (t.quant->mode == TEPLUG_SCALING_BLOCK_2D128) grid_rows = (rows + 127) / 128;
  const int32_t grid_dtype = mx ? TEPLUG_DTYPE_E8M0 : TEPLUG_DTYPE_FP32;
  const TeplugTensor& s = *t.quant->scale_inv;
  if (s.dtype != grid_dtype || s.rank != 2 || s.shape[0] != grid_rows || s.shape[1] != grid_cols) {
    return absl::InvalidArgumentError(absl::StrCat(
        "native gemm: ", name, ".quant->scale_inv must be ", mx ? "e8m0" : "fp32", " [", grid_rows, ", ",
        grid_cols, "] for ", name, " [", rows, ", ", cols, "] in scaling mode ", t.quant->mode, ", got dtype ",
        s.dtype, " rank ", s.rank, s.rank == 2 ? absl::StrCat(" [", s.shape[0], ", ", s.shape[1], "]") : ""));
  }
  const bool contiguous = s.strides[0] == 0 && s.strides[1] == 0;
  if (!contiguous && (s.strides[1] != 1 || s.strides[0] < grid_cols)) {
    return absl::InvalidArgumentError(absl::StrCat("native gemm: ", name, ".quant->scale_inv strides must be [>= ",
                                                   grid_cols, ", 1] or all zero, got [", s.strides[0], ", ",
                                                   s.strides[1], "]"));
  }
  scaling.grid_rows = grid_rows;
  scaling.grid_cols = grid_cols;
  scaling.grid_row_stride = contiguous ? grid_cols : s.strides[0];
  scaling.grid_transpose = t.quant->mode == TEPLUG_SCALING_BLOCK_1D128 ||
                           (t.quant->mode == TEPLUG_SCALING_BLOCK_2D128 && k_along_rows);
  return scaling;
}

// The bias dtypes cuBLASLt adds (cublasLt.h, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
// and cuBLAS's fp8 type table, as TransformerEngine's cublaslt_gemm.cu uses
// it): D's dtype, except that fp8 inputs take a bf16 bias for an fp32 D and a
// bf16 or fp16 one for an fp8 D.
absl::Status BiasDtypeRule(bool fp8_inputs, int32_t d, int32_t bias) {
  bool served = bias == d;
  const char* rule = "cuBLASLt adds a bias of D's dtype";
  if (fp8_inputs && d == TEPLUG_DTYPE_FP32) {
    served = bias == TEPLUG_DTYPE_BF16;
    rule = "with fp8 inputs and an fp32 D cuBLASLt adds a bf16 bias";
  } else if (fp8_inputs && IsFp8(d)) {
    served = bias == TEPLUG_DTYPE_BF16 || bias == TEPLUG_DTYPE_FP16;
    rule = "with an fp8 D cuBLASLt adds a bf16 or fp16 bias";
  }
  if (served) return absl::OkStatus();
  return absl::UnimplementedError(
      absl::StrCat("native gemm: bias dtype ", bias, " with D dtype ", d, ": ", rule));
}

bool IsBlockScaled(int32_t mode) { return mode == TEPLUG_SCALING_BLOCK_1D128 || mode == TEPLUG_SCALING_BLOCK_2D128; }

// What cuBLASLt's block-scaled matmul needs beyond the scales, as
// TransformerEngine checks it before calling it (transformer_engine/common/
// gemm/cublaslt_gemm.cu, CanonicalizeGemmInput and the epilogue check): not
// 128x128 by 128x128, row strides (cuBLASLt's lda, ldb) multiples of 16,
// cuBLASLt's m (teplug's N) a multiple of 8, and its n (teplug's M) too when
// teplug's A has 1x128 blocks; no GELU epilogue.
absl::Status BlockScaledShapeRules(const TeplugGemmArgs& args, const RowMajor& a, const RowMajor& b, int64_t lt_m,
                                   int64_t lt_n) {
  const int32_t am = args.a->quant->mode, bm = args.b->quant->mode;
  if (am == TEPLUG_SCALING_BLOCK_2D128 && bm == TEPLUG_SCALING_BLOCK_2D128) {
    return absl::UnimplementedError(
        "native gemm: A and B both have 128x128 blocks; cuBLASLt multiplies 1x128 by 1x128, 1x128 by 128x128 "
        "and 128x128 by 1x128 only");
  }
  if (a.row_stride % 16 != 0 || b.row_stride % 16 != 0) {
    return absl::UnimplementedError(absl::StrCat("native gemm: block-scaled A and B need row strides that are "
                                                 "multiples of 16 for cuBLASLt, got ",
                                                 a.row_stride, " and ", b.row_stride));
  }
  if (lt_m % 8 != 0) {
    return absl::UnimplementedError(
        absl::StrCat("native gemm: block-scaled GEMMs need N a multiple of 8 for cuBLASLt, got ", lt_m));
  }
  if (am == TEPLUG_SCALING_BLOCK_1D128 && lt_n % 8 != 0) {
    return absl::UnimplementedError(absl::StrCat(
        "native gemm: with 1x128 blocks in A, cuBLASLt needs M a multiple of 8, got ", lt_n));
  }
  if (args.epilogue == TEPLUG_EPILOGUE_GELU) {
    return absl::UnimplementedError("native gemm: cuBLASLt's block-scaled matmul has no GELU epilogue");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CublasLtGemmPlan> PlanCublasLtGemm(const TeplugGemmArgs& args) {
  absl::StatusOr<RowMajor> a = ReadMatrix(args.a, "A");
  if (!a.ok()) return a.status();
  absl::StatusOr<RowMajor> b = ReadMatrix(args.b, "B");
  if (!b.ok()) return b.status();
  absl::StatusOr<RowMajor> d = ReadMatrix(args.d, "D");
  if (!d.ok()) return d.status();

  const int64_t M = args.trans_a ? a->cols : a->rows;
  const int64_t K = args.trans_a ? a->rows : a->cols;
  const int64_t Kb = args.trans_b ? b->cols : b->rows;
  const int64_t N = args.trans_b ? b->rows : b->cols;
  if (K != Kb) {
    return absl::InvalidArgumentError(absl::StrCat("native gemm: op(A) is [", M, ", ", K, "] but op(B) is [", Kb,
                                                   ", ", N, "]: K differs"));
  }
  if (d->rows != M || d->cols != N) {
    return absl::InvalidArgumentError(
        absl::StrCat("native gemm: D is [", d->rows, ", ", d->cols, "], expected [", M, ", ", N, "]"));
  }

  const int32_t at = args.a->dtype, bt = args.b->dtype, dt = args.d->dtype;
  CublasLtGemmPlan plan;
  absl::StatusOr<cudaDataType_t> a_type = LtType(at, "A");
  if (!a_type.ok()) return a_type.status();
  absl::StatusOr<cudaDataType_t> b_type = LtType(bt, "B");
  if (!b_type.ok()) return b_type.status();
  absl::StatusOr<cudaDataType_t> d_type = LtType(dt, "D");
  if (!d_type.ok()) return d_type.status();

  plan.fp8 = IsFp8(at) && IsFp8(bt);
  if (plan.fp8) {
    if (at == TEPLUG_DTYPE_FP8_E5M2 && bt == TEPLUG_DTYPE_FP8_E5M2) {
      return absl::UnimplementedError("native gemm: cuBLASLt has no fp8_e5m2 x fp8_e5m2 matmul");
    }
  } else if (at != bt || !IsHighPrecision(at)) {
    return absl::UnimplementedError(absl::StrCat("native gemm: A dtype ", at, " and B dtype ", bt,
                                                 ": cuBLASLt needs both fp8 or both the same of fp32, fp16, bf16"));
  } else if (dt != at && dt != TEPLUG_DTYPE_FP32) {
    return absl::UnimplementedError(
        absl::StrCat("native gemm: D dtype ", dt, " with ", at, " inputs: cuBLASLt writes the inputs' dtype or fp32"));
  }

  // The swap: cuBLASLt's A is teplug's B, its B is teplug's A.
  plan.m = static_cast<uint64_t>(N);
  plan.n = static_cast<uint64_t>(M);
  plan.k = static_cast<uint64_t>(K);
  plan.trans_a = args.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  plan.trans_b = args.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  plan.a = ColumnMajorView(*b, *b_type, TeplugOperand::kB);
  plan.b = ColumnMajorView(*a, *a_type, TeplugOperand::kA);
  plan.d = ColumnMajorView(*d, *d_type, TeplugOperand::kD);
  plan.alpha = args.alpha;

  if (plan.fp8) {
    // op(B) is [K, N]: stored B runs along K by rows unless transposed.
    absl::StatusOr<LtOperandScaling> lt_a = OperandScaling(*args.b, "B", TeplugOperand::kB, !args.trans_b);
    if (!lt_a.ok()) return lt_a.status();
    absl::StatusOr<LtOperandScaling> lt_b = OperandScaling(*args.a, "A", TeplugOperand::kA, args.trans_a != 0);
    if (!lt_b.ok()) return lt_b.status();
    const int32_t am = args.a->quant->mode, bm = args.b->quant->mode;
    if (am != bm && !(IsBlockScaled(am) && IsBlockScaled(bm))) {
      return absl::UnimplementedError(absl::StrCat("native gemm: A scaling mode ", am, " and B scaling mode ", bm,
                                                   " differ; cuBLASLt mixes only 1x128 and 128x128 blocks"));
    }
    if (IsBlockScaled(am)) {
      if (absl::Status s = BlockScaledShapeRules(args, *a, *b, N, M); !s.ok()) return s;
    }
    plan.a_scaling = *lt_a;
    plan.b_scaling = *lt_b;
    plan.fast_accum = !args.use_split_accumulator;
  }
  // (High-precision inputs never reach here with an fp8 D: see above.)
  if (IsFp8(dt)) {
    if (plan.a_scaling.mode == CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0) {
      return absl::UnimplementedError(
          "native gemm: an fp8 D from MXFP8 inputs is not served; ask for an fp32, bf16 or fp16 D");
    }
    if (const TeplugQuantization* q = args.d->quant; q != nullptr) {
      plan.d_scale = q->scale != nullptr;
      plan.d_amax = q->amax != nullptr;
      if (q->scale_inv != nullptr && q->scale == nullptr) {
        return absl::InvalidArgumentError(
            "native gemm: D.quant->scale_inv is given without D.quant->scale to take the reciprocal of");
      }
      plan.d_writes_scale_inv = q->scale_inv != nullptr;
    }
  }

  // Bias [N]: cuBLASLt's per-row bias of D^T ([N, M]).
  const bool bias = args.bias != nullptr;
  if (bias) {
    const TeplugTensor& t = *args.bias;
    if (t.rank != 1 || t.shape[0] != N) {
      return absl::InvalidArgumentError(
          absl::StrCat("native gemm: bias must be [", N, "] (N), got rank ", t.rank));
    }
    if (absl::Status s = BiasDtypeRule(plan.fp8, dt, t.dtype); !s.ok()) return s;
    absl::StatusOr<cudaDataType_t> type = LtType(t.dtype, "bias");
    if (!type.ok()) return type.status();
    plan.bias_type = *type;
  }

  // The C term: teplug's C, D itself when accumulating, or none (beta 0, and
  // cuBLASLt's C layout is D's with nothing read; for an fp8 D, the bias's
  // type or bf16).
  if (args.accumulate) {
    if (IsFp8(dt)) return absl::UnimplementedError("native gemm: cuBLASLt cannot accumulate into an fp8 D");
    plan.c = plan.d;
    plan.beta = 1.0f;
  } else if (args.c != nullptr && args.beta != 0.0f) {
    if (IsFp8(dt)) {
      return absl::UnimplementedError(
          "native gemm: an fp8 D is written without a C term here (cuBLASLt would read C as bf16 "
          "or fp16)");
    }
    absl::StatusOr<RowMajor> c = ReadMatrix(args.c, "C");
    if (!c.ok()) return c.status();
    if (c->rows != M || c->cols != N) {
      return absl::InvalidArgumentError(
          absl::StrCat("native gemm: C is [", c->rows, ", ", c->cols, "], expected [", M, ", ", N, "]"));
    }
    if (args.c->dtype != dt) {
      return absl::UnimplementedError(absl::StrCat("native gemm: C dtype ", args.c->dtype, " differs from D dtype ",
                                                   dt, "; cuBLASLt reads C in D's type"));
    }
    plan.c = ColumnMajorView(*c, *d_type, TeplugOperand::kC);
    plan.beta = args.beta;
  } else {
    plan.c = plan.d;
    plan.c.source = TeplugOperand::kNone;
    if (IsFp8(dt)) plan.c.type = bias ? plan.bias_type : CUDA_R_16BF;
    plan.beta = 0.0f;
  }

  // Epilogue: the bias above, GELU, and GELU's pre-activation output.
  const bool gelu = args.epilogue == TEPLUG_EPILOGUE_GELU;
  if (args.epilogue != TEPLUG_EPILOGUE_NONE && !gelu) {
    return absl::InvalidArgumentError(absl::StrCat("native gemm: epilogue ", args.epilogue, " is not a TeplugGemmEpilogue"));
  }
  if (args.pre_gelu_out != nullptr) {
    if (!gelu) {
      return absl::InvalidArgumentError("native gemm: pre_gelu_out is given without the GELU epilogue");
    }
    absl::StatusOr<RowMajor> aux = ReadMatrix(args.pre_gelu_out, "pre_gelu_out");
    if (!aux.ok()) return aux.status();
    if (aux->rows != M || aux->cols != N) {
      return absl::InvalidArgumentError(absl::StrCat("native gemm: pre_gelu_out is [", aux->rows, ", ", aux->cols,
                                                     "], expected [", M, ", ", N, "]"));
    }
    absl::StatusOr<cudaDataType_t> type = LtType(args.pre_gelu_out->dtype, "pre_gelu_out");
    if (!type.ok()) return type.status();
    if (aux->row_stride % 8 != 0) {
      return absl::UnimplementedError(
          absl::StrCat("native gemm: pre_gelu_out's row stride ", aux->row_stride,
                       " is not a multiple of 8, which cuBLASLt's GELU aux output needs"));
    }
    plan.has_aux = true;
    plan.aux_type = *type;
    plan.aux_ld = aux->row_stride;
  }
  if (gelu) {
    plan.epilogue = plan.has_aux ? (bias ? CUBLASLT_EPILOGUE_GELU_AUX_BIAS : CUBLASLT_EPILOGUE_GELU_AUX)
                                 : (bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU);
  } else {
    plan.epilogue = bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
  }
  return plan;
}

}  // namespace teplug::native
