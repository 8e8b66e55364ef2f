// `teplug conformance` for IQuantizer/1: one case per declared input dtype,
// output dtype, scaling mode (per_tensor, mxfp8_1d32, block_1d128,
// block_2d128) and feature (current and delayed scaling, columnwise,
// dequantize), quantized by the plugin and by the reference from the same
// input. quantizer.h defines every bit, so codes, scales, amax and the
// column-wise copy must equal the reference's; the dequantized values' error
// is reported too. Spelled for --case as
// "input_dtype=bf16,output_dtype=fp8_e4m3,scaling=per_tensor,recipe=current,
//  columnwise=0,dequantize=1,rows=17,cols=64".
#ifndef TEPLUG_TOOLS_TEPLUG_CONFORMANCE_QUANTIZER_H_
#define TEPLUG_TOOLS_TEPLUG_CONFORMANCE_QUANTIZER_H_

#include "tools/teplug/conformance_interface.h"

namespace teplug::cli {

const InterfaceConformance& QuantizerConformance();

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CONFORMANCE_QUANTIZER_H_
