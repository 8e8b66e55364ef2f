// `teplug conformance` for INorm/1: one case per declared norm type, input,
// weight and output dtype, scaling mode of fp8 outputs and feature
// (backward, zero_centered_gamma), run by the plugin and by the reference on
// the same inputs; the forward's y, mu and rsigma and the backward's dx,
// dgamma and dbeta compared. Spelled for --case as
// "norm_type=layernorm,input_dtype=bf16,weight_dtype=fp32,output_dtype=bf16,
//  scaling=none,zero_centered_gamma=0,backward=1,rows=17,hidden=64".
#ifndef TEPLUG_TOOLS_TEPLUG_CONFORMANCE_NORM_H_
#define TEPLUG_TOOLS_TEPLUG_CONFORMANCE_NORM_H_

#include "tools/teplug/conformance_interface.h"

namespace teplug::cli {

const InterfaceConformance& NormConformance();

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CONFORMANCE_NORM_H_
