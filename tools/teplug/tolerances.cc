#include "tools/teplug/tolerances.h"

#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "teplug/types.h"

namespace teplug::cli {

double OutputTolerance(ToleranceKind kind, int32_t dtype) {
  const double scale = kind == ToleranceKind::kAttentionBackward ? 2.0 : 1.0;
  switch (dtype) {
    case TEPLUG_DTYPE_FP32:
      return kind == ToleranceKind::kAttentionBackward ? 1e-4 : 1e-5;
    case TEPLUG_DTYPE_FP16:
      return 2e-3 * scale;
    case TEPLUG_DTYPE_FP8_E4M3:
      return 0.125;  // one e4m3 step (3 mantissa bits) at the max
    case TEPLUG_DTYPE_FP8_E5M2:
      return 0.25;  // one e5m2 step (2 mantissa bits) at the max
    default:
      return 0.015625 * scale;  // bf16: 2^-6
  }
}

double Fp8AttentionTolerance(ToleranceKind kind, int32_t dtype) {
  const double step = dtype == TEPLUG_DTYPE_FP8_E5M2 ? 0.25 : 0.125;
  return step * (kind == ToleranceKind::kAttentionBackward ? 3 : 2);
}

double QuantizeRoundTripTolerance(int32_t scaling_mode) {
  return scaling_mode == TEPLUG_SCALING_MXFP8_1D32 ? 0.125 : 0.0625;
}

namespace {

// `value` for the table: at most `digits` significant digits, trailing zeros
// dropped, in short scientific notation below 0.1 ("1e-5", "1.6e-2",
// "6.25e-2") and plainly above ("0.125").
std::string Short(double value, int digits) {
  if (value >= 0.1) return absl::StrCat(value);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.*e", digits - 1, value);
  std::string text = buf;
  const size_t e = text.find('e');
  std::string mantissa = text.substr(0, e);
  if (mantissa.find('.') != std::string::npos) {
    mantissa.erase(mantissa.find_last_not_of('0') + 1);
    if (mantissa.back() == '.') mantissa.pop_back();
  }
  const int exponent = std::stoi(text.substr(e + 1));
  return absl::StrCat(mantissa, "e", exponent);
}

std::string OutputRow(const char* op, ToleranceKind kind) {
  return absl::StrFormat("  %-20s  %-5s  %-5s  %s\n", op,
                         Short(OutputTolerance(kind, TEPLUG_DTYPE_FP32), 2),
                         Short(OutputTolerance(kind, TEPLUG_DTYPE_FP16), 2),
                         Short(OutputTolerance(kind, TEPLUG_DTYPE_BF16), 2));
}

}  // namespace

std::string ToleranceTable() {
  return absl::StrCat(
      "Tolerances (error = max|x - oracle| / max|oracle| over the op's outputs):\n"
      "  op                    fp32   fp16   bf16\n",
      OutputRow("gemm", ToleranceKind::kGemm), "  gemm fp8 D            fp8_e4m3 ",
      Short(OutputTolerance(ToleranceKind::kGemm, TEPLUG_DTYPE_FP8_E4M3), 3), ", fp8_e5m2 ",
      Short(OutputTolerance(ToleranceKind::kGemm, TEPLUG_DTYPE_FP8_E5M2), 3),
      " (one step of the format at the max;\n"
      "                        a rounding boundary may fall either side of an fp32 sum)\n",
      OutputRow("attention forward", ToleranceKind::kAttentionForward),
      OutputRow("attention backward", ToleranceKind::kAttentionBackward),
      "  attention fp8         forward e4m3 ",
      Short(Fp8AttentionTolerance(ToleranceKind::kAttentionForward, TEPLUG_DTYPE_FP8_E4M3), 3),
      ", e5m2 ",
      Short(Fp8AttentionTolerance(ToleranceKind::kAttentionForward, TEPLUG_DTYPE_FP8_E5M2), 3),
      "; backward e4m3 ",
      Short(Fp8AttentionTolerance(ToleranceKind::kAttentionBackward, TEPLUG_DTYPE_FP8_E4M3), 3),
      ", e5m2 ",
      Short(Fp8AttentionTolerance(ToleranceKind::kAttentionBackward, TEPLUG_DTYPE_FP8_E5M2), 3),
      "\n"
      "                        (steps at the max: the output's rounding, P's, dP's)\n",
      "  quantize fp8_e4m3     round trip: per_tensor ",
      Short(QuantizeRoundTripTolerance(TEPLUG_SCALING_PER_TENSOR), 3),
      " (half an e4m3 step), mxfp8_1d32 ",
      Short(QuantizeRoundTripTolerance(TEPLUG_SCALING_MXFP8_1D32), 3),
      "\n"
      "                        (OCP scale rule: a block max may saturate at 448*scale);\n"
      "                        against the reference: ",
      Short(kQuantizeVsReferenceTolerance, 3),
      " (one e4m3 step at the max)\n"
      "  dequantize            ",
      Short(kDequantizeTolerance, 3),
      " (one fp32 rounding of code * scale_inv)\n"
      "  all_reduce fp32       ",
      Short(kAllReduceTolerance, 3),
      "\n"
      "`teplug conformance` holds quantize to the reference bit for bit (quantizer.h\n"
      "defines every bit) and collectives to an exact host oracle (small integer inputs).\n");
}

}  // namespace teplug::cli
