/* teplug/gemm.h — IGemm v1: D = alpha * op(A) * op(B) + beta * C (+ bias),
 * optional GELU epilogue.
 *
 * Matrices are row-major tensors of rank 2 with element strides (shape
 * [rows, cols], strides [row_stride, 1] or zeros for contiguous).
 * op(X) = X, or X transposed when trans_x is set. op(A) is [M, K], op(B) is
 * [K, N], C and D are [M, N], bias is [N] (added to every row). */
#ifndef TEPLUG_GEMM_H_
#define TEPLUG_GEMM_H_

#include "teplug/capability.h"
#include "teplug/status.h"
#include "teplug/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TEPLUG_IID_GEMM_V1_INIT {0x7465706c75670001ull, 0x67656d6d00000001ull}

typedef enum TeplugGemmEpilogue {
  TEPLUG_EPILOGUE_NONE = 0,
  /* D = gelu(result), with gelu the tanh approximation
   * 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). When pre_gelu_out is
   * given, it receives the pre-activation result. */
  TEPLUG_EPILOGUE_GELU = 1,
  TEPLUG_EPILOGUE_COUNT_ = 2
} TeplugGemmEpilogue;
/* Capability bits for TeplugGemmCaps.epilogues. */
#define TEPLUG_GEMM_CAP_BIAS (UINT32_C(1) << 0)
#define TEPLUG_GEMM_CAP_GELU (UINT32_C(1) << 1)
#define TEPLUG_GEMM_CAP_GELU_AUX (UINT32_C(1) << 2) /* pre_gelu_out */
#define TEPLUG_GEMM_CAP_ACCUMULATE (UINT32_C(1) << 3)

/* One GEMM call. Ownership: every pointer is borrowed for the duration of the
 * call (and, on an asynchronous device, until the work on `stream` finishes).
 *  - a, b: inputs. fp8 operands carry quant->scale_inv (per-tensor fp32[1], or
 *    the block scales of their scaling mode); real = code * scale_inv. The
 *    GEMM reads `data` with its row-wise scales as the tensor describes it.
 *  - c: optional (NULL = no C term; beta ignored). May alias d.
 *  - d: output. fp8 output carries quant->scale (applied before the cast) and
 *    quant->amax (receives max |result| before scaling), quant->scale_inv is
 *    written as 1/scale when present.
 *  - bias: optional [N], dtype of D (or bf16/fp32 for fp8 D).
 *  - pre_gelu_out: optional, [M, N], receives the pre-GELU result, i.e.
 *    alpha*op(A)op(B) + beta*C + bias; GELU is applied to that sum.
 *  - accumulate: when set, D += alpha*op(A)op(B) (+bias), i.e. C is D, beta=1.
 *  - use_split_accumulator: fp8 hint (promote partial sums to fp32 regularly);
 *    implementations without the distinction ignore it.
 *  - workspace: scratch on the op's device, at least what workspace_size said. */
typedef struct TeplugGemmArgs {
  size_t struct_size;
  const TeplugTensor* a;
  const TeplugTensor* b;
  const TeplugTensor* c;
  TeplugTensor* d;
  const TeplugTensor* bias;
  TeplugTensor* pre_gelu_out;
  TeplugBool trans_a;
  TeplugBool trans_b;
  float alpha;
  float beta;
  int32_t epilogue; /* TeplugGemmEpilogue */
  TeplugBool accumulate;
  TeplugBool use_split_accumulator;
  int32_t reserved0; /* zero */
  void* workspace;
  size_t workspace_size;
  TeplugStream stream;
} TeplugGemmArgs;
TEPLUG_DECLARE_LAST_FIELD(TeplugGemmArgs, stream);

/* What a GEMM implementation serves. Bit masks use TEPLUG_DTYPE_BIT. */
typedef struct TeplugGemmCaps {
  size_t struct_size;
  const TeplugDeviceSupport* devices;
  size_t num_devices;
  uint64_t a_dtypes;
  uint64_t b_dtypes;
  uint64_t d_dtypes;
  uint32_t epilogues;     /* TEPLUG_GEMM_CAP_* */
  uint32_t scaling_modes; /* TEPLUG_SCALING_BIT(mode) accepted on fp8 operands */
  /* Required alignment in BYTES of data pointers and of leading-dimension
   * strides (times element size); 0 or 1 = none; else a power of two of at
   * most 256. */
  int64_t alignment;
  /* Largest M, N, K served; 0 = unbounded. */
  int64_t max_dim;
} TeplugGemmCaps;
TEPLUG_DECLARE_LAST_FIELD(TeplugGemmCaps, max_dim);

typedef struct TeplugGemmV1 TeplugGemmV1;
typedef struct TeplugGemmV1Vtbl {
  TeplugObjectVtbl base;
  TeplugSupportsFn supports; /* may be NULL */
  /* Bytes of workspace `gemm` needs for these args (0 if none). */
  TeplugError* (*workspace_size)(TeplugGemmV1* self, const TeplugGemmArgs* args, size_t* bytes);
  TeplugError* (*gemm)(TeplugGemmV1* self, const TeplugGemmArgs* args);
} TeplugGemmV1Vtbl;
TEPLUG_DECLARE_LAST_FIELD(TeplugGemmV1Vtbl, gemm);

struct TeplugGemmV1 {
  const TeplugGemmV1Vtbl* vtbl;
};

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TEPLUG_GEMM_H_ */
