/* teplug/quantizer.h — IQuantizer v1: high precision <-> fp8/fp4 in every
 * scaling mode. Exact semantics (rounding, saturation, scale formulas) are in
 * interfaces/README.md "IQuantizer"; the reference provider implements them
 * bit for bit. */
#ifndef TEPLUG_QUANTIZER_H_
#define TEPLUG_QUANTIZER_H_

#include "teplug/capability.h"
#include "teplug/status.h"
#include "teplug/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TEPLUG_IID_QUANTIZER_V1_INIT {0x7465706c75670001ull, 0x7175616e00000001ull}

/* How a per-tensor scale is obtained. */
typedef enum TeplugScaleRecipe {
  /* Delayed scaling: use output->quant->scale as given; write the input's
   * amax into output->quant->amax and 1/scale into scale_inv. */
  TEPLUG_RECIPE_DELAYED = 0,
  /* Current scaling: compute amax of the input, then
   * scale = fp8_max / max(amax, amax_epsilon) (pow2-rounded down when
   * force_pow2_scales; 1 when amax is 0, inf or NaN; the input dtype's
   * largest finite value when the quotient is inf, as TransformerEngine's
   * compute_scale_from_amax does),
   * write scale, scale_inv and amax, then quantize. */
  TEPLUG_RECIPE_CURRENT = 1,
  TEPLUG_RECIPE_COUNT_ = 2
} TeplugScaleRecipe;

/* Quantize `input` (fp32, fp16 or bf16; rank 2 [rows, cols], or any rank
 * treated as [prod(shape[:-1]), shape[-1]]) into `output` (fp8_e4m3, fp8_e5m2
 * or fp4_e2m1 with output->quant describing the scaling mode and where scales
 * go).
 *  - rowwise: write output->data (and quant->scale_inv).
 *  - columnwise: write quant->columnwise_data (layout per mode: see
 *    TeplugQuantization in types.h) and
 *    columnwise_scale_inv; at least one of the two must be set.
 *  - recipe: per-tensor only (ignored by block modes, which always compute
 *    their scales from the block amax). amax_epsilon and force_pow2_scales
 *    apply to per-tensor current scaling and to the block_1d128/block_2d128
 *    modes.
 *  - MXFP8 scales follow OCP Microscaling v1.0: shared exponent =
 *    floor(log2(block amax)) - emax of the element type (TransformerEngine
 *    rounds some scales up instead; see plugins/reference/numerics/README.md).
 *  - fp4_e2m1 output is served only in the scaling modes an implementation's
 *    capability descriptor pairs with it. */
typedef struct TeplugQuantizeArgs {
  size_t struct_size;
  const TeplugTensor* input;
  TeplugTensor* output;
  int32_t recipe; /* TeplugScaleRecipe */
  float amax_epsilon;
  TeplugBool force_pow2_scales;
  TeplugBool rowwise;
  TeplugBool columnwise;
  int32_t reserved0; /* zero */
  TeplugStream stream;
} TeplugQuantizeArgs;
TEPLUG_DECLARE_LAST_FIELD(TeplugQuantizeArgs, stream);

/* Dequantize the row-wise data of `input` (with its quant metadata) into
 * `output` (fp32, fp16 or bf16, same shape). */
typedef struct TeplugDequantizeArgs {
  size_t struct_size;
  const TeplugTensor* input;
  TeplugTensor* output;
  TeplugStream stream;
} TeplugDequantizeArgs;
TEPLUG_DECLARE_LAST_FIELD(TeplugDequantizeArgs, stream);

#define TEPLUG_QUANT_CAP_COLUMNWISE (UINT32_C(1) << 0)
#define TEPLUG_QUANT_CAP_DEQUANTIZE (UINT32_C(1) << 1)
#define TEPLUG_QUANT_CAP_CURRENT_SCALING (UINT32_C(1) << 2)
#define TEPLUG_QUANT_CAP_DELAYED_SCALING (UINT32_C(1) << 3)

typedef struct TeplugQuantizerCaps {
  size_t struct_size;
  const TeplugDeviceSupport* devices;
  size_t num_devices;
  uint64_t input_dtypes;  /* high-precision side */
  uint64_t output_dtypes; /* quantized side */
  uint32_t scaling_modes; /* TEPLUG_SCALING_BIT set */
  uint32_t features;      /* TEPLUG_QUANT_CAP_* */
} TeplugQuantizerCaps;
TEPLUG_DECLARE_LAST_FIELD(TeplugQuantizerCaps, features);

typedef struct TeplugQuantizerV1 TeplugQuantizerV1;
typedef struct TeplugQuantizerV1Vtbl {
  TeplugObjectVtbl base;
  TeplugSupportsFn supports; /* may be NULL */
  TeplugError* (*quantize)(TeplugQuantizerV1* self, const TeplugQuantizeArgs* args);
  TeplugError* (*dequantize)(TeplugQuantizerV1* self, const TeplugDequantizeArgs* args);
} TeplugQuantizerV1Vtbl;
TEPLUG_DECLARE_LAST_FIELD(TeplugQuantizerV1Vtbl, dequantize);

struct TeplugQuantizerV1 {
  const TeplugQuantizerV1Vtbl* vtbl;
};

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TEPLUG_QUANTIZER_H_ */
