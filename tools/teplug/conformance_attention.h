// `teplug conformance` for IAttention/1: every declared dtype (fp32, fp16,
// bf16, fp8_e4m3, fp8_e5m2), layout (the 15, packed and THD), mask, bias
// and feature (dropout, sliding window, GQA, deterministic, backward,
// different head dims), one case each plus sampled combinations
// (conformance_attention_case.h), run by the plugin and by the reference on
// the same random inputs. Compared: o and softmax_lse (-inf where the
// reference has it), with backward (run whenever "backward" is declared, on
// the reference's forward outputs) dq, dk, dv and dbias; fp8 outputs'
// amax; with deterministic, two runs' bytes.
#ifndef TEPLUG_TOOLS_TEPLUG_CONFORMANCE_ATTENTION_H_
#define TEPLUG_TOOLS_TEPLUG_CONFORMANCE_ATTENTION_H_

#include "tools/teplug/conformance_interface.h"

namespace teplug::cli {

const InterfaceConformance& AttentionConformance();

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CONFORMANCE_ATTENTION_H_
