// The mapping of one teplug GEMM (row-major, interfaces/teplug/gemm.h) to
// cuBLASLt's column-major matmul: a plain struct of cuBLASLt enum values and
// sizes, computed on the host without a GPU, that the IGemm implementation
// turns into cublasLtMatmulDesc / cublasLtMatrixLayout attributes.
//
// The trick: a row-major [r, c] matrix with row stride s is, read by a
// column-major library, its transpose [c, r] with leading dimension s. So
// teplug's D = op(A) op(B) ([M, N], row-major) is cuBLASLt's
// D^T = op(B)^T op(A)^T ([N, M], column-major): cuBLASLt's A is teplug's B and
// its B is teplug's A, m = N, n = M, k = K, cuBLASLt's transa is trans_b and
// its transb is trans_a, and every leading dimension is the tensor's row
// stride. teplug's bias [N] is then cuBLASLt's per-row bias of length m.
#ifndef TEPLUG_NATIVE_GEMM_CUBLASLT_GEMM_PLAN_H_
#define TEPLUG_NATIVE_GEMM_CUBLASLT_GEMM_PLAN_H_

#include <cublasLt.h>

#include <cstdint>

#include "absl/status/statusor.h"
#include "teplug/gemm.h"

namespace teplug::native {

// Which of teplug's tensors a cuBLASLt operand reads or writes.
enum class TeplugOperand { kNone, kA, kB, kC, kD };

// One cublasLtMatrixLayout: column-major rows x cols with leading dimension ld.
struct LtMatrixLayout {
  TeplugOperand source = TeplugOperand::kNone;
  cudaDataType_t type = CUDA_R_32F;
  uint64_t rows = 0;
  uint64_t cols = 0;
  int64_t ld = 0;
};

// How a quantized cuBLASLt operand is scaled: its scale mode, and the teplug
// tensor whose quant->scale_inv is the scale pointer.
struct LtOperandScaling {
  bool scaled = false;
  cublasLtMatmulMatrixScale_t mode = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
  TeplugOperand scale_inv_of = TeplugOperand::kNone;
  // MXFP8 and block modes: the tensor's scale grid as teplug stores it
  // (teplug/types.h), [grid_rows, grid_cols] with rows grid_row_stride
  // elements apart, which the GEMM copies into the layout cuBLASLt reads
  // (mx_scale_layout.h, block_scale_layout.h) before the matmul.
  int64_t grid_rows = 0;
  int64_t grid_cols = 0;
  int64_t grid_row_stride = 0;
  // Block modes: the copy transposes the grid (always for 1x128, whose
  // cuBLASLt layout is K-block major; for 128x128 when the tensor is stored
  // [K, outer]).
  bool grid_transpose = false;
};

struct CublasLtGemmPlan {
  cublasComputeType_t compute_type = CUBLAS_COMPUTE_32F;
  cudaDataType_t scale_type = CUDA_R_32F;  // alpha and beta are fp32
  cublasOperation_t trans_a = CUBLAS_OP_N;  // cuBLASLt's A (teplug's B)
  cublasOperation_t trans_b = CUBLAS_OP_N;  // cuBLASLt's B (teplug's A)
  uint64_t m = 0, n = 0, k = 0;             // cuBLASLt's: m = N, n = M
  // c: an fp8 D reads no C (beta 0) and its C layout has the bias's type, or
  // bf16 without a bias, as cuBLASLt requires of fp8 outputs.
  LtMatrixLayout a, b, c, d;
  float alpha = 1.0f;
  float beta = 0.0f;  // 0 when teplug has no C term; 1 when accumulating into D
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  // CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, when the epilogue adds a bias:
  // D's type, except that fp8 inputs take a bf16 bias for an fp32 D and a
  // bf16 or fp16 one for an fp8 D (cuBLAS's fp8 type table).
  cudaDataType_t bias_type = CUDA_R_32F;
  // The GELU pre-activation output (teplug's pre_gelu_out): its type and
  // leading dimension (CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE / _LD).
  bool has_aux = false;
  cudaDataType_t aux_type = CUDA_R_32F;
  int64_t aux_ld = 0;
  // CUBLASLT_MATMUL_DESC_FAST_ACCUM: fp8 without teplug's
  // use_split_accumulator (cuBLASLt then skips the regular promotion).
  bool fast_accum = false;
  LtOperandScaling a_scaling, b_scaling;  // cuBLASLt's A and B
  // An fp8 D: D_SCALE_POINTER from d->quant->scale and AMAX_D_POINTER from
  // d->quant->amax, each set when given (both steer the heuristic, so both are
  // part of the algorithm key).
  bool d_scale = false;
  bool d_amax = false;
  // An fp8 D with both quant->scale and quant->scale_inv: the GEMM writes
  // 1/scale into scale_inv after the matmul (cuBLASLt does not).
  bool d_writes_scale_inv = false;
  // Every operand's dtype is fp8 (the arch table's layout rule applies).
  bool fp8 = false;
};

// Maps `args` (its tensors' dtypes, shapes, strides and quantization; no data
// is read) to cuBLASLt's description. InvalidArgument for malformed args
// (naming the tensor and field), Unimplemented for a GEMM cuBLASLt cannot
// describe (naming what it lacks). Arch-dependent limits are not checked here
// (cublaslt_gemm_support.h).
absl::StatusOr<CublasLtGemmPlan> PlanCublasLtGemm(const TeplugGemmArgs& args);

}  // namespace teplug::native

#endif  // TEPLUG_NATIVE_GEMM_CUBLASLT_GEMM_PLAN_H_
