/* teplug/norm.h — INorm v1: LayerNorm and RMSNorm, forward and backward, as
 * TransformerEngine defines them (transformer_engine/common/normalization).
 *
 * Shapes: x is [rows, hidden]; a tensor of any rank >= 1 is treated as
 * [prod(shape[:-1]), shape[-1]]. gamma and beta are [hidden]; mu and rsigma
 * are fp32 [rows].
 *
 * Forward, per row r over its `hidden` elements x_r,i:
 *   LayerNorm: mu_r = mean_i x_r,i;  var_r = mean_i (x_r,i - mu_r)^2
 *              y_r,i = (x_r,i - mu_r) * rsigma_r * g_i + beta_i
 *   RMSNorm:   var_r = mean_i x_r,i^2  (no mean is subtracted, no beta)
 *              y_r,i = x_r,i * rsigma_r * g_i
 *   rsigma_r = 1 / sqrt(var_r + epsilon)   (population variance: divide by hidden)
 *   g_i = gamma_i + 1 when zero_centered_gamma is set, else gamma_i.
 * Backward, with xhat_r,i = (x_r,i - mu_r) * rsigma_r (RMSNorm: x_r,i * rsigma_r)
 * computed from the mu and rsigma the caller passes, and dyg_r,i = dy_r,i * g_i:
 *   LayerNorm: dx = rsigma_r * (dyg - mean_i(dyg * xhat) * xhat - mean_i(dyg))
 *   RMSNorm:   dx = rsigma_r * (dyg - mean_i(dyg * xhat) * xhat)
 *   dgamma_i = sum_r dy_r,i * xhat_r,i;  dbeta_i = sum_r dy_r,i (LayerNorm only)
 * zero_centered_gamma changes only g (gamma itself is what dgamma is the
 * gradient of: d(gamma+1)/dgamma = 1).
 *
 * Op numbers are local to this interface (TeplugNormOp): `supports` and
 * `workspace_size` receive TEPLUG_NORM_OP_FORWARD or TEPLUG_NORM_OP_BACKWARD,
 * not a TeplugOp value. */
#ifndef TEPLUG_NORM_H_
#define TEPLUG_NORM_H_

#include "teplug/capability.h"
#include "teplug/status.h"
#include "teplug/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TEPLUG_IID_NORM_V1_INIT {0x7465706c75670001ull, 0x6e6f726d00000001ull}

/* The ops of INorm/1 (interface-local numbers). */
typedef enum TeplugNormOp {
  TEPLUG_NORM_OP_FORWARD = 1,  /* args: TeplugNormFwdArgs* */
  TEPLUG_NORM_OP_BACKWARD = 2, /* args: TeplugNormBwdArgs* */
  TEPLUG_NORM_OP_COUNT_ = 3
} TeplugNormOp;

/* Which normalization (see the file comment for the formulas). */
typedef enum TeplugNormType {
  TEPLUG_NORM_LAYERNORM = 0,
  TEPLUG_NORM_RMSNORM = 1,
  TEPLUG_NORM_TYPE_COUNT_ = 2
} TeplugNormType;
#define TEPLUG_NORM_TYPE_BIT(t) (UINT32_C(1) << (t))

/* Forward. Every pointer is borrowed for the call (and, on an asynchronous
 * device, until the work on `stream` finishes).
 *  - norm_type: TeplugNormType.
 *  - zero_centered_gamma: nonzero = multiply by (gamma + 1) instead of gamma.
 *  - epsilon: added to the variance before the square root; finite and >= 0.
 *  - x: input, fp32/fp16/bf16, rank >= 1 ([rows, hidden] as above).
 *  - gamma: [hidden], fp32/fp16/bf16 (the weight dtype).
 *  - beta: [hidden], same dtype as gamma; LayerNorm only (NULL for RMSNorm).
 *  - y: output, same shape as x. fp32/fp16/bf16: the exact result rounded
 *    once to y's dtype; y->quant may then carry only `amax` (mode none),
 *    which receives max |y| of the values as stored. fp8_e4m3/fp8_e5m2: the
 *    exact result rounded to fp32 (TransformerEngine's compute type), then
 *    quantized exactly as IQuantizer/1 quantizes that fp32 tensor, row-wise,
 *    in y->quant->mode:
 *      per_tensor (delayed scaling): quant->scale fp32[1] is given (finite,
 *        > 0); quant->amax, when given, receives max |y_fp32|; quant->scale_inv,
 *        when given, receives 1/scale.
 *      mxfp8_1d32: quant->scale_inv e8m0 [rows, ceil(hidden/32)] receives the
 *        block scales, by the rule mx_scale_rule names (quantizer.h's OCP or
 *        TransformerEngine rule, as IQuantizer); quant->amax, when given,
 *        receives max |y_fp32|.
 *    quant->columnwise_data must be NULL (column-wise output is not part of
 *    this op; quantize y again with IQuantizer for it).
 *  - mu: fp32 [rows], receives mu_r; LayerNorm only (NULL for RMSNorm); may be
 *    NULL when no backward follows.
 *  - rsigma: fp32 [rows], receives rsigma_r; may be NULL when no backward
 *    follows.
 *  - workspace: scratch on the op's device, at least what workspace_size said
 *    (NULL when that was 0).
 *  - stream: see TeplugStream.
 *  - mx_scale_rule (v1.3; every other field is v1.0): a TeplugMxScaleRule
 *    (quantizer.h), read only for an mxfp8_1d32 y. 0, or a struct_size
 *    without it: TEPLUG_MX_SCALE_OCP. TRANSFORMER_ENGINE needs
 *    TEPLUG_NORM_CAP_MX_TE_SCALE; a value outside the enum is
 *    TEPLUG_INVALID_ARGUMENT. reserved1 (v1.3) is zero. */
typedef struct TeplugNormFwdArgs {
  size_t struct_size;
  int32_t norm_type; /* TeplugNormType */
  TeplugBool zero_centered_gamma;
  float epsilon;
  int32_t reserved0; /* zero */
  const TeplugTensor* x;
  const TeplugTensor* gamma;
  const TeplugTensor* beta;
  TeplugTensor* y;
  TeplugTensor* mu;
  TeplugTensor* rsigma;
  void* workspace;
  size_t workspace_size; /* bytes */
  TeplugStream stream;
  int32_t mx_scale_rule; /* v1.3. TeplugMxScaleRule, for an mxfp8_1d32 y */
  int32_t reserved1;     /* v1.3. zero */
} TeplugNormFwdArgs;
TEPLUG_DECLARE_LAST_FIELD(TeplugNormFwdArgs, reserved1);

/* Backward. Pass the forward's norm_type, zero_centered_gamma, x, gamma, mu
 * and rsigma.
 *  - dy: gradient of y, same shape as x, fp32/fp16/bf16.
 *  - x: the forward's input.
 *  - mu: fp32 [rows] from the forward; LayerNorm only (NULL for RMSNorm).
 *  - rsigma: fp32 [rows] from the forward.
 *  - gamma: [hidden], the forward's gamma (not gamma + 1).
 *  - dx: output, same shape as x, fp32/fp16/bf16.
 *  - dgamma: output [hidden], fp32/fp16/bf16, summed over all rows.
 *  - dbeta: output [hidden], summed over all rows; required for LayerNorm,
 *    NULL for RMSNorm.
 *  Outputs are the exact results rounded once to their dtypes.
 *  - workspace, workspace_size, stream: as in the forward. */
typedef struct TeplugNormBwdArgs {
  size_t struct_size;
  int32_t norm_type; /* TeplugNormType */
  TeplugBool zero_centered_gamma;
  const TeplugTensor* dy;
  const TeplugTensor* x;
  const TeplugTensor* mu;
  const TeplugTensor* rsigma;
  const TeplugTensor* gamma;
  TeplugTensor* dx;
  TeplugTensor* dgamma;
  TeplugTensor* dbeta;
  void* workspace;
  size_t workspace_size; /* bytes */
  TeplugStream stream;
} TeplugNormBwdArgs;
TEPLUG_DECLARE_LAST_FIELD(TeplugNormBwdArgs, stream);

/* Feature bits for TeplugNormCaps.features. */
#define TEPLUG_NORM_CAP_BACKWARD (UINT32_C(1) << 0)            /* backward is served */
#define TEPLUG_NORM_CAP_ZERO_CENTERED_GAMMA (UINT32_C(1) << 1) /* zero_centered_gamma = 1 */
/* v1.3: an mxfp8_1d32 y with mx_scale_rule TEPLUG_MX_SCALE_TRANSFORMER_ENGINE.
 * A host older than v1.3 refuses a descriptor with this bit: a plugin that
 * also loads there sets it only when TeplugHostApi.abi_max >= 1.3
 * (teplug/sdk/caps_for_host.hpp). */
#define TEPLUG_NORM_CAP_MX_TE_SCALE (UINT32_C(1) << 2)

/* What a norm implementation serves. Bit masks use TEPLUG_DTYPE_BIT,
 * TEPLUG_NORM_TYPE_BIT and TEPLUG_SCALING_BIT.
 *  - input_dtypes: x, and in backward dy and dx.
 *  - weight_dtypes: gamma and beta, and in backward dgamma and dbeta.
 *  - output_dtypes: y of the forward (fp8 dtypes mean quantized output).
 *  - scaling_modes: y->quant->mode accepted for an fp8 y.
 *  - hidden_min / hidden_max / hidden_multiple: the hidden sizes served;
 *    0 = no lower bound / unbounded / any multiple (1 also means any). */
typedef struct TeplugNormCaps {
  size_t struct_size;
  const TeplugDeviceSupport* devices;
  size_t num_devices;
  uint64_t input_dtypes;
  uint64_t weight_dtypes;
  uint64_t output_dtypes;
  uint32_t norm_types;    /* TEPLUG_NORM_TYPE_BIT set */
  uint32_t scaling_modes; /* TEPLUG_SCALING_BIT set */
  uint32_t features;      /* TEPLUG_NORM_CAP_* */
  uint32_t reserved0;     /* zero */
  int64_t hidden_min;
  int64_t hidden_max;
  int64_t hidden_multiple;
} TeplugNormCaps;
TEPLUG_DECLARE_LAST_FIELD(TeplugNormCaps, hidden_multiple);

typedef struct TeplugNormV1 TeplugNormV1;
typedef struct TeplugNormV1Vtbl {
  TeplugObjectVtbl base;
  TeplugSupportsFn supports; /* may be NULL; op is a TeplugNormOp */
  /* Bytes of workspace the op needs (0 if none): op TEPLUG_NORM_OP_FORWARD
   * with args a TeplugNormFwdArgs*, or TEPLUG_NORM_OP_BACKWARD with a
   * TeplugNormBwdArgs*. */
  TeplugError* (*workspace_size)(TeplugNormV1* self, int32_t op, const void* args,
                                 size_t* bytes);
  TeplugError* (*forward)(TeplugNormV1* self, const TeplugNormFwdArgs* args);
  TeplugError* (*backward)(TeplugNormV1* self, const TeplugNormBwdArgs* args);
} TeplugNormV1Vtbl;
TEPLUG_DECLARE_LAST_FIELD(TeplugNormV1Vtbl, backward);

struct TeplugNormV1 {
  const TeplugNormV1Vtbl* vtbl;
};

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TEPLUG_NORM_H_ */
