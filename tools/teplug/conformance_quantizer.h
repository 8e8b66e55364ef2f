// `teplug conformance` for IQuantizer/1: one case per declared input dtype,
// output dtype, scaling mode and feature (current scaling, dequantize),
// quantized by the plugin and by the reference from the same input and
// compared as dequantized values. Spelled for --case as
// "input_dtype=bf16,output_dtype=fp8_e4m3,scaling=per_tensor,dequantize=1,rows=17,cols=64".
#ifndef TEPLUG_TOOLS_TEPLUG_CONFORMANCE_QUANTIZER_H_
#define TEPLUG_TOOLS_TEPLUG_CONFORMANCE_QUANTIZER_H_

#include "tools/teplug/conformance_interface.h"

namespace teplug::cli {

const InterfaceConformance& QuantizerConformance();

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CONFORMANCE_QUANTIZER_H_
