// The tensors an op's args touch, each marked input or output, for staging
// them on a device (DeviceStaging): what `teplug conformance` moves for a
// case on a device and what `teplug run` moves for an op of a rank whose
// tensors live on a device. Every tensor field of the args is listed (null
// ones included; staging skips them), with the params' and quantization
// tensors given beside the tensors.
#ifndef TEPLUG_TOOLS_TEPLUG_OP_TENSORS_H_
#define TEPLUG_TOOLS_TEPLUG_OP_TENSORS_H_

#include <vector>

#include "teplug/teplug.h"
#include "tools/teplug/conformance_staging.h"

namespace teplug::cli {

// A, B, C, bias in; D and pre_gelu_out out.
std::vector<StagedTensor> StagedTensorsOf(const TeplugGemmArgs& args);
// Q, K, V, bias, cu_seqlens, ALiBi slopes and s_quant's scales in; O,
// softmax_lse and s_quant's amax out.
std::vector<StagedTensor> StagedTensorsOf(const TeplugAttentionFwdArgs& a);
// The forward's inputs plus O, dO and softmax_lse in; dQ, dK, dV, dbias and
// the fp8 amaxes out.
std::vector<StagedTensor> StagedTensorsOf(const TeplugAttentionBwdArgs& a);
// The input in; the output (with its quantization tensors) out.
std::vector<StagedTensor> StagedTensorsOf(const TeplugQuantizeArgs& a);
std::vector<StagedTensor> StagedTensorsOf(const TeplugDequantizeArgs& a);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_OP_TENSORS_H_
