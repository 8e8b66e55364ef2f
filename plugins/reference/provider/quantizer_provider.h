// IQuantizer v1 of the reference provider: fp32/fp16/bf16 -> fp8_e4m3 /
// fp8_e5m2 in every scaling mode, row-wise and column-wise, and dequantize,
// bit for bit as plugins/reference/numerics defines them:
//   per_tensor  delayed (scale given) or current scaling (amax_epsilon,
//               force_pow2_scales; an overflowing scale becomes the input
//               dtype's largest finite value, as TE does)
//   mxfp8_1d32  the OCP MX v1.0 scale rule, or TransformerEngine's when
//               mx_scale_rule asks for it; e8m0 scale_inv
//   block_1d128 / block_2d128  TE Float8BlockScaling with the args'
//               amax_epsilon and force_pow2_scales
// Column-wise output follows TeplugQuantization (interfaces/teplug/types.h): per_tensor and block
// modes write the transpose [cols, rows] quantized by the row-wise rule
// (columnwise_scale_inv per_tensor fp32[1], block_1d128 [cols, ceil(rows/128)],
// block_2d128 [ceil(cols/128), ceil(rows/128)]); mxfp8_1d32 keeps the codes in
// [rows, cols] with blocks of 32 down each column, scales [ceil(rows/32), cols],
// as TransformerEngine does. fp4_e2m1 is refused (the numerics have no fp4
// scaling recipe).
#ifndef TEPLUG_PLUGINS_REFERENCE_PROVIDER_QUANTIZER_PROVIDER_H_
#define TEPLUG_PLUGINS_REFERENCE_PROVIDER_QUANTIZER_PROVIDER_H_

#include <memory>

#include "absl/status/status.h"
#include "teplug/quantizer.h"
#include "teplug/sdk/implement.hpp"

namespace teplug::reference::provider {

// Quantizes as the file comment says. quant->amax, when given, receives the
// input's amax (every mode); per_tensor also writes scale (current scaling)
// and scale_inv. Errors name the args field.
absl::Status RunReferenceQuantize(const TeplugQuantizeArgs& args);

// Dequantizes the row-wise data of args.input into args.output (fp32, fp16 or
// bf16, same shape), rounding the exact product code * scale_inv once.
absl::Status RunReferenceDequantize(const TeplugDequantizeArgs& args);

// The SDK object behind the registered IQuantizer v1 (stateless, thread-safe).
std::unique_ptr<sdk::QuantizerImpl> NewReferenceQuantizer();

}  // namespace teplug::reference::provider

#endif  // TEPLUG_PLUGINS_REFERENCE_PROVIDER_QUANTIZER_PROVIDER_H_
