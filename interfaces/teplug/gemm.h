/* teplug/gemm.h — IGemm v1: D = alpha * op(A) * op(B) + beta * C (+ bias),
 * with an optional GELU epilogue.
 *
 * Matrices are ROW-MAJOR rank-2 tensors with element strides (shape
 * [rows, cols], strides [row_stride, 1], or all zero for contiguous).
 * op(X) = X, or X transposed when trans_x is set. op(A) is [M, K], op(B) is
 * [K, N], C and D are [M, N], bias is [N] (added to every row). So with
 * trans_a set A itself is [K, M]; with trans_b set B is [N, K].
 *
 * Quantized operands (fp8_e4m3, fp8_e5m2, fp4_e2m1) are read as
 * real = code * scale_inv, from `data` with the ROW-WISE scales of their
 * scaling mode, as the tensor describes it (never from columnwise_data). They
 * must carry `quant` with `scale_inv`: a quantized operand without either is
 * TEPLUG_INVALID_ARGUMENT naming the tensor.
 *
 * Zeros: the sign of a zero result is not specified. An implementation may
 * accumulate from +0, which turns a sum of -0 products into +0 (the reference
 * does); compare zero results by value.
 *
 * Field reference: every field here appeared in ABI v1.0 ("v1.0"). "0 / NULL:"
 * is what a zero value means, and what a reader assumes for a field a shorter
 * struct lacks. The reference provider (plugins/reference/kernels/
 * gemm_reference.h, fp64) is the executable definition: test against it. */
#ifndef TEPLUG_GEMM_H_
#define TEPLUG_GEMM_H_

#include "teplug/capability.h"
#include "teplug/status.h"
#include "teplug/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* IGemm/1 (v1.0). */
#define TEPLUG_IID_GEMM_V1_INIT {0x7465706c75670001ull, 0x67656d6d00000001ull}

/* v1.0. */
typedef enum TeplugGemmEpilogue {
  TEPLUG_EPILOGUE_NONE = 0,
  /* D = gelu(result), where result = alpha op(A) op(B) + beta C + bias (GELU
   * applies to that whole sum) and gelu is the tanh approximation
   * gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). When
   * pre_gelu_out is given it receives `result`. */
  TEPLUG_EPILOGUE_GELU = 1,
  TEPLUG_EPILOGUE_COUNT_ = 2
} TeplugGemmEpilogue;
/* Bits of TeplugGemmCaps.epilogues (v1.0), each compared with one property of
 * the call. */
#define TEPLUG_GEMM_CAP_BIAS (UINT32_C(1) << 0)       /* args->bias != NULL */
#define TEPLUG_GEMM_CAP_GELU (UINT32_C(1) << 1)       /* epilogue == GELU */
#define TEPLUG_GEMM_CAP_GELU_AUX (UINT32_C(1) << 2)   /* args->pre_gelu_out != NULL */
#define TEPLUG_GEMM_CAP_ACCUMULATE (UINT32_C(1) << 3) /* args->accumulate */

/* One GEMM call (112 bytes in v1.0). Allocated by the caller; every pointer is
 * borrowed for the duration of the call (and, on an asynchronous device, the
 * memory behind `data` until the work on `stream` finishes). */
typedef struct TeplugGemmArgs {
  /* v1.0. The writer's sizeof(TeplugGemmArgs); a reader requires >= 112. */
  size_t struct_size;
  /* v1.0. A, required. Quantized operands: see the header comment. */
  const TeplugTensor* a;
  /* v1.0. B, required; same rules as A. */
  const TeplugTensor* b;
  /* v1.0. C, [M, N]; may alias d. NULL: no C term, beta is ignored. */
  const TeplugTensor* c;
  /* v1.0. Output D, [M, N], required. An fp8 D carries quant->scale (applied
   * before the cast, saturating), quant->amax (receives max |result| before
   * scaling) and quant->scale_inv (written as 1/scale when present). */
  TeplugTensor* d;
  /* v1.0. [N], the dtype of D (bf16 or fp32 when D is fp8), added to every
   * row. NULL: no bias. */
  const TeplugTensor* bias;
  /* v1.0. [M, N]: receives the pre-GELU result alpha op(A) op(B) + beta C +
   * bias (GELU epilogue only). NULL: not wanted. */
  TeplugTensor* pre_gelu_out;
  /* v1.0. op(A) = A transposed. 0: A as is. */
  TeplugBool trans_a;
  /* v1.0. op(B) = B transposed. 0: B as is. */
  TeplugBool trans_b;
  /* v1.0. Scales the product. 0: the product is ignored, so always set it. */
  float alpha;
  /* v1.0. Scales C. 0: no C term. */
  float beta;
  /* v1.0. A TeplugGemmEpilogue. 0: none. */
  int32_t epilogue;
  /* v1.0. D += alpha op(A) op(B) (+ bias): C is D and beta = 1; `c` and `beta`
   * are ignored. 0: overwrite D. */
  TeplugBool accumulate;
  /* v1.0. fp8 hint: promote partial sums to fp32 regularly; implementations
   * without the distinction ignore it. 0: off. */
  TeplugBool use_split_accumulator;
  /* v1.0. Zero. */
  int32_t reserved0;
  /* v1.0. Scratch on the op's device, at least what workspace_size said.
   * NULL: none. */
  void* workspace;
  /* v1.0. Bytes at `workspace`; smaller than workspace_size asked for is
   * TEPLUG_INVALID_ARGUMENT. */
  size_t workspace_size;
  /* v1.0. See TeplugStream. NULL: CPU / default stream. */
  TeplugStream stream;
} TeplugGemmArgs;
TEPLUG_DECLARE_LAST_FIELD(TeplugGemmArgs, stream);

/* What a GEMM implementation serves (72 bytes in v1.0): plugin-owned, static,
 * unchanged while the library is loaded. Each field is compared with the call
 * property named; a bit set of 0 serves nothing (dtype sets must not be 0),
 * a limit of 0 is no bound. */
typedef struct TeplugGemmCaps {
  /* v1.0. The plugin's sizeof(TeplugGemmCaps). */
  size_t struct_size;
  /* v1.0. Devices served, compared with the op's device (capability.h). */
  const TeplugDeviceSupport* devices;
  /* v1.0. Entries in `devices`, 1..64. */
  size_t num_devices;
  /* v1.0. TEPLUG_DTYPE_BIT(a->dtype) must be set. */
  uint64_t a_dtypes;
  /* v1.0. TEPLUG_DTYPE_BIT(b->dtype) must be set. */
  uint64_t b_dtypes;
  /* v1.0. TEPLUG_DTYPE_BIT(d->dtype) must be set. */
  uint64_t d_dtypes;
  /* v1.0. TEPLUG_GEMM_CAP_* bits; 0: none of them. */
  uint32_t epilogues;
  /* v1.0. TEPLUG_SCALING_BIT(quant->mode) of quantized operands. 0: no
   * quantized operands. */
  uint32_t scaling_modes;
  /* v1.0. Required alignment in BYTES of every data pointer and of every
   * leading-dimension stride times the element size; a power of two, at most
   * 256 (the decision cache keys alignment classes up to 256 bytes). 0 or 1:
   * none. */
  int64_t alignment;
  /* v1.0. Largest M, N and K served. 0: unbounded. */
  int64_t max_dim;
} TeplugGemmCaps;
TEPLUG_DECLARE_LAST_FIELD(TeplugGemmCaps, max_dim);

/* The IGemm v1 function table (56 bytes in v1.0). Every member but
 * `supports` is required. Methods may be called concurrently on one object. */
typedef struct TeplugGemmV1 TeplugGemmV1;
typedef struct TeplugGemmV1Vtbl {
  /* v1.0. base.struct_size = sizeof(TeplugGemmV1Vtbl). */
  TeplugObjectVtbl base;
  /* v1.0. The hook of capability.h; `args` is a TeplugGemmArgs*. May be NULL. */
  TeplugSupportsFn supports;
  /* v1.0. Writes the bytes of workspace `gemm` needs for these args (0 if
   * none) to *bytes; `workspace` may be NULL when asked. */
  TeplugError* (*workspace_size)(TeplugGemmV1* self, const TeplugGemmArgs* args, size_t* bytes);
  /* v1.0. Runs the GEMM on args->stream. */
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
