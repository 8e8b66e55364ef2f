#include "tools/teplug/tolerances.h"

#include "teplug/types.h"

namespace teplug::cli {

double OutputTolerance(ToleranceKind kind, int32_t dtype) {
  const double scale = kind == ToleranceKind::kAttentionBackward ? 2.0 : 1.0;
  switch (dtype) {
    case TEPLUG_DTYPE_FP32:
      return kind == ToleranceKind::kAttentionBackward ? 1e-4 : 1e-5;
    case TEPLUG_DTYPE_FP16:
      return 2e-3 * scale;
    default:
      return 0.015625 * scale;  // bf16: 2^-6
  }
}

double QuantizeRoundTripTolerance(int32_t scaling_mode) {
  return scaling_mode == TEPLUG_SCALING_MXFP8_1D32 ? 0.125 : 0.0625;
}

const char* ToleranceTable() {
  return "Tolerances (error = max|x - oracle| / max|oracle| over the op's outputs):\n"
         "  op                    fp32   fp16   bf16\n"
         "  gemm                  1e-5   2e-3   1.6e-2\n"
         "  attention forward     1e-5   2e-3   1.6e-2\n"
         "  attention backward    1e-4   4e-3   3.1e-2\n"
         "  quantize fp8_e4m3     round trip: per_tensor 6.25e-2 (half an e4m3 step), mxfp8_1d32 "
         "0.125\n"
         "                        (OCP scale rule: a block max may saturate at 448*scale);\n"
         "                        against the reference: 0.125 (one e4m3 step at the max)\n"
         "  dequantize            1e-6 (one fp32 rounding of code * scale_inv)\n"
         "  all_reduce fp32       1e-6\n";
}

}  // namespace teplug::cli
