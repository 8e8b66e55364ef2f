/* teplug/quantizer.h — IQuantizer v1: high precision (fp32, fp16, bf16) to
 * fp8/fp4 and back, in every scaling mode.
 *
 * The reference provider (plugins/reference/numerics/: per_tensor_scaling.h,
 * scale_from_amax.h, mx_scaling.h, block_scaling.h, float_formats.h)
 * implements these rules bit for bit: test against it.
 *
 * Matrix view. The input of quantize is rank 2 [rows, cols], or any rank
 * viewed as [prod(shape[:-1]), shape[-1]]. Blocks run along the last
 * dimension ("along the row"). Shapes of scales and of the column-wise copy
 * are under TeplugQuantization in types.h.
 *
 * Exact rules.
 *  - amax = max |x| over the input, NaN elements skipped (TransformerEngine's
 *    fmaxf reduction), +-Inf counts as Inf. The value written to quant->amax
 *    is this raw amax.
 *  - Current-scaling formula (in fp32): fp8_max is 448 for e4m3 and 57344 for
 *    e5m2; a = max(amax, amax_epsilon); if a is 0, Inf or NaN then scale = 1;
 *    otherwise scale = fp8_max / a (IEEE division, round to nearest even); if
 *    that overflows to Inf, scale = the INPUT dtype's largest finite value
 *    (fp32 FLT_MAX = 3.40282347e38, fp16 65504, bf16 3.38953139e38), as
 *    TransformerEngine's compute_scale_from_amax does; then, if
 *    force_pow2_scales, the scale's mantissa bits are cleared (rounded down
 *    to a power of two). scale_inv = 1 / scale in fp32. amax_epsilon and
 *    force_pow2_scales apply to per-tensor current scaling and to the block
 *    modes; delayed scaling and MXFP8 ignore them.
 *  - Per-tensor cast: code = fp8(float(x * scale)): the product is rounded to
 *    fp32 first, then converted with round-to-nearest-even and SATURATION:
 *    finite overflow and +-Inf become +-max normal, NaN stays NaN.
 *  - MXFP8 (mxfp8_1d32), OCP MX v1.0 section 6.3: for each block of 32
 *    consecutive elements of a row (a partial last block holds the remaining
 *    elements), shared_exp = floor(log2(max_i |V_i|)) - emax_elem (emax_elem
 *    = 8 for e4m3, 15 for e5m2), clamped below to -127 (an all-zero block
 *    gets 2^-127); the e8m0 scale code is shared_exp + 127;
 *    P_i = fp8(V_i / X) with X = 2^shared_exp, round to nearest even,
 *    saturating to max normal. A block holding NaN or +-Inf gets the NaN
 *    scale 0xFF and all its elements are NaN. recipe, amax_epsilon and
 *    force_pow2_scales do not apply; amax is written when given. This is the
 *    OCP rule, the default (mx_scale_rule 0). Column-wise MXFP8 output is
 *    not transposed: the codes keep the [rows, cols] layout and each block
 *    is 32 consecutive elements down a column, with scales
 *    [ceil(rows/32), cols].
 *  - MXFP8 with TransformerEngine's rule (mx_scale_rule
 *    TEPLUG_MX_SCALE_TRANSFORMER_ENGINE, v1.3), as TE's kernels compute it:
 *    amax = max |V_i| of the block with NaN skipped (+-Inf counts); the scale
 *    code e is the e8m0 encoding of the fp32 product amax * (1 / max_normal)
 *    (1/448 for e4m3, 1/57344 for e5m2, both rounded to fp32) with its
 *    exponent rounded UP when the mantissa is non-zero: NaN gives 0xFF, Inf
 *    0xFE, 0 gives 0, a result never rounds up past 0xFE, and a subnormal
 *    product with mantissa <= 0x400000 keeps code 0; P_i = fp8(float(V_i * r))
 *    with r = 2^(127 - e) (r = 1 when e = 0), round to nearest even,
 *    saturating, NaN staying NaN. The two rules give the same scale unless
 *    the OCP scale would clamp the block maximum (its significand above 1.75);
 *    then this scale is twice the OCP one and nothing clamps. NaN/Inf do not
 *    poison the block. Dequantize is the same for both rules
 *    (2^(e - 127)).
 *  - Block modes (block_1d128, block_2d128): each block (1x128 along the row,
 *    or 128x128) gets its own scale by the current-scaling formula applied to
 *    the block's amax (with amax_epsilon and force_pow2_scales); scale_inv
 *    holds 1/scale per block (fp32); elements are cast as in per-tensor mode
 *    with their block's scale.
 *  - Column-wise output in per-tensor and block modes is the exact transpose
 *    [cols, rows], quantized by the same rule with the transposed scale grid
 *    (block_1d128: 1x128 blocks along the transpose's rows, i.e. down the
 *    original columns); per-tensor mode uses the one tensor scale for both
 *    copies.
 *  - Dequantize: real = float(decode(code) * scale_inv) with the element's
 *    (per-tensor or block) scale_inv, e8m0 decoded as 2^(e-127); then rounded
 *    to nearest even into the output dtype.
 *  - fp4_e2m1 output is served only in the scaling modes an implementation's
 *    capability descriptor pairs with it. output_dtypes and scaling_modes are
 *    independent bit sets, so setting the fp4_e2m1 bit claims fp4 in every
 *    mode the descriptor sets: refuse the combinations you do not serve in
 *    `supports`, with a reason. v1.0 defines no fp4 scale formula (none of
 *    the modes names an fp4 maximum): leave fp4_e2m1 out of output_dtypes,
 *    or document your rule and refuse every other mode. The reference
 *    quantizer does not serve fp4.
 *
 * Field reference: each field names the ABI version it appeared in ("v1.0"); "0 /
 * NULL:" is what a zero value means (and what a reader assumes for a field a
 * shorter struct lacks). */
#ifndef TEPLUG_QUANTIZER_H_
#define TEPLUG_QUANTIZER_H_

#include "teplug/capability.h"
#include "teplug/status.h"
#include "teplug/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* IQuantizer/1 (v1.0). */
#define TEPLUG_IID_QUANTIZER_V1_INIT {0x7465706c75670001ull, 0x7175616e00000001ull}

/* How a per-tensor scale is obtained (v1.0); per-tensor mode only: block
 * modes ignore `recipe` and always compute their scales from the block
 * amax. */
typedef enum TeplugScaleRecipe {
  /* Delayed scaling: use output->quant->scale as given (from earlier steps'
   * amax history, kept by the caller); write the input's amax into
   * output->quant->amax and 1/scale into scale_inv. */
  TEPLUG_RECIPE_DELAYED = 0,
  /* Current scaling: compute the input's amax, then the scale from it by the
   * current-scaling formula above; write scale, scale_inv and amax, then
   * quantize. */
  TEPLUG_RECIPE_CURRENT = 1,
  TEPLUG_RECIPE_COUNT_ = 2
} TeplugScaleRecipe;

/* How MXFP8 (mxfp8_1d32) block scales are chosen (v1.3); the exact rules
 * are at the top of this file. Other scaling modes ignore it. */
typedef enum TeplugMxScaleRule {
  /* OCP MX v1.0 section 6.3: floor(log2(amax)) - emax_elem; the block
   * maximum may saturate. */
  TEPLUG_MX_SCALE_OCP = 0,
  /* TransformerEngine's kernels: amax / max_normal rounded up to a power of
   * two, so nothing saturates. Served only by an implementation whose
   * descriptor sets TEPLUG_QUANT_CAP_MX_TE_SCALE. */
  TEPLUG_MX_SCALE_TRANSFORMER_ENGINE = 1,
  TEPLUG_MX_SCALE_COUNT_ = 2
} TeplugMxScaleRule;

/* Quantize `input` into `output` (64 bytes in v1.3, 56 in v1.0). */
typedef struct TeplugQuantizeArgs {
  /* v1.0. The writer's sizeof(TeplugQuantizeArgs). */
  size_t struct_size;
  /* v1.0. fp32, fp16 or bf16; required. */
  const TeplugTensor* input;
  /* v1.0. fp8_e4m3, fp8_e5m2 or fp4_e2m1, the shape of `input`, required;
   * output->quant says the scaling mode and where scales go. Its `data` may
   * be NULL when only the column-wise copy is written. */
  TeplugTensor* output;
  /* v1.0. A TeplugScaleRecipe (per-tensor mode only). 0: DELAYED. */
  int32_t recipe;
  /* v1.0. Lower bound for amax in the scale formula (per-tensor current
   * scaling and block modes). 0: no bound. */
  float amax_epsilon;
  /* v1.0. Round scales down to powers of two (per-tensor current scaling and
   * block modes). 0: off. */
  TeplugBool force_pow2_scales;
  /* v1.0. Write output->data (and quant->scale_inv). 0: not written. */
  TeplugBool rowwise;
  /* v1.0. Write quant->columnwise_data and columnwise_scale_inv in the mode's
   * column-wise layout: the transpose [cols, rows] for per-tensor and block
   * modes, [rows, cols] with column blocks for MXFP8. 0: not written. At
   * least one of rowwise and columnwise must be set (else
   * TEPLUG_INVALID_ARGUMENT). */
  TeplugBool columnwise;
  /* v1.0. Zero. */
  int32_t reserved0;
  /* v1.0. NULL: CPU / default stream. */
  TeplugStream stream;
  /* v1.3. A TeplugMxScaleRule, read in mxfp8_1d32 mode only (other modes
   * ignore it). 0, or a struct_size without it: TEPLUG_MX_SCALE_OCP. A value
   * outside the enum is TEPLUG_INVALID_ARGUMENT. */
  int32_t mx_scale_rule;
  /* v1.3. Zero. */
  int32_t reserved1;
} TeplugQuantizeArgs;
TEPLUG_DECLARE_LAST_FIELD(TeplugQuantizeArgs, reserved1);

/* Dequantize the ROW-WISE data of `input` (with its quant metadata) into
 * `output` (32 bytes in v1.0). */
typedef struct TeplugDequantizeArgs {
  /* v1.0. The writer's sizeof(TeplugDequantizeArgs). */
  size_t struct_size;
  /* v1.0. The quantized tensor with `quant`; required. */
  const TeplugTensor* input;
  /* v1.0. fp32, fp16 or bf16, the shape of `input`; required. */
  TeplugTensor* output;
  /* v1.0. NULL: CPU / default stream. */
  TeplugStream stream;
} TeplugDequantizeArgs;
TEPLUG_DECLARE_LAST_FIELD(TeplugDequantizeArgs, stream);

/* Bits of TeplugQuantizerCaps.features (v1.0), each set when the call needs
 * it. */
#define TEPLUG_QUANT_CAP_COLUMNWISE (UINT32_C(1) << 0)      /* columnwise */
#define TEPLUG_QUANT_CAP_DEQUANTIZE (UINT32_C(1) << 1)      /* the dequantize op */
#define TEPLUG_QUANT_CAP_CURRENT_SCALING (UINT32_C(1) << 2) /* per-tensor recipe CURRENT */
#define TEPLUG_QUANT_CAP_DELAYED_SCALING (UINT32_C(1) << 3) /* per-tensor recipe DELAYED */
/* v1.3: mxfp8_1d32 with mx_scale_rule TEPLUG_MX_SCALE_TRANSFORMER_ENGINE. A
 * host older than v1.3 refuses a descriptor with this bit: a plugin that
 * also loads there sets it only when TeplugHostApi.abi_max >= 1.3
 * (teplug/sdk/caps_for_host.hpp). */
#define TEPLUG_QUANT_CAP_MX_TE_SCALE (UINT32_C(1) << 4)

/* What a quantizer serves (48 bytes in v1.0): plugin-owned, static. The
 * dtype sets and scaling_modes must not be 0. */
typedef struct TeplugQuantizerCaps {
  /* v1.0. The plugin's sizeof(TeplugQuantizerCaps). */
  size_t struct_size;
  /* v1.0. Devices served, compared with the op's device. */
  const TeplugDeviceSupport* devices;
  /* v1.0. Entries in `devices`, 1..64. */
  size_t num_devices;
  /* v1.0. The high-precision side: quantize's input, dequantize's output. */
  uint64_t input_dtypes;
  /* v1.0. The quantized side: quantize's output, dequantize's input. */
  uint64_t output_dtypes;
  /* v1.0. TEPLUG_SCALING_BIT(quant->mode) set. */
  uint32_t scaling_modes;
  /* v1.0. TEPLUG_QUANT_CAP_* bits. 0: none of the features. */
  uint32_t features;
} TeplugQuantizerCaps;
TEPLUG_DECLARE_LAST_FIELD(TeplugQuantizerCaps, features);

/* The IQuantizer v1 function table (56 bytes in v1.0). IQuantizer has no
 * workspace. Every member but `supports` is required. */
typedef struct TeplugQuantizerV1 TeplugQuantizerV1;
typedef struct TeplugQuantizerV1Vtbl {
  /* v1.0. base.struct_size = sizeof(TeplugQuantizerV1Vtbl). */
  TeplugObjectVtbl base;
  /* v1.0. The hook of capability.h: `op` is TEPLUG_OP_QUANTIZE or
   * TEPLUG_OP_DEQUANTIZE. May be NULL. */
  TeplugSupportsFn supports;
  /* v1.0. */
  TeplugError* (*quantize)(TeplugQuantizerV1* self, const TeplugQuantizeArgs* args);
  /* v1.0. */
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
