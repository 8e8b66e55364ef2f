// `teplug conformance` for IAttention/1, forward only: one case per declared
// dtype, separate-tensor layout (bshd_bshd_bshd, sbhd_sbhd_sbhd), mask
// without padding (none, causal, causal_bottom_right) and GQA, run by the
// plugin and by the reference on the same inputs; o and softmax_lse
// compared. Spelled for --case as
// "qkv_dtype=bf16,layout=bshd_bshd_bshd,mask=causal,gqa=0,batch=2,seq_q=12,seq_kv=16,heads=4,head_dim=32".
#ifndef TEPLUG_TOOLS_TEPLUG_CONFORMANCE_ATTENTION_H_
#define TEPLUG_TOOLS_TEPLUG_CONFORMANCE_ATTENTION_H_

#include "tools/teplug/conformance_interface.h"

namespace teplug::cli {

const InterfaceConformance& AttentionConformance();

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CONFORMANCE_ATTENTION_H_
