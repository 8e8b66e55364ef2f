// Building and calling one IAttention/1 case of `teplug conformance`: its
// random inputs from a seed in the case's layout (packed buffers passed as
// every member they hold, cu_seqlens for padding masks and THD, bias,
// ALiBi slopes, fp8 scales, the dropout RNG seed and offset), its outputs,
// its forward and backward args, and calls with exactly the workspace the
// implementation asks for.
#ifndef TEPLUG_TOOLS_TEPLUG_CONFORMANCE_ATTENTION_CALL_H_
#define TEPLUG_TOOLS_TEPLUG_CONFORMANCE_ATTENTION_CALL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/kernel/kernel.h"
#include "teplug/teplug.h"
#include "tools/teplug/conformance_attention_case.h"
#include "tools/teplug/conformance_staging.h"
#include "tools/teplug/host_tensor.h"
#include "tools/teplug/op_tensors.h"

namespace teplug::cli {

// Q, K and V (or dQ, dK, dV) in a case's layout: one buffer per group of
// members the layout packs together (all three in `q` for *3* layouts; K
// and V in `k` for *2* layouts; the others stay empty).
struct QkvBuffers {
  QkvPacking packing = QkvPacking::kSeparate;
  HostTensor q, k, v;
  // Member 0 (q), 1 (k) or 2 (v): the buffer that holds it.
  TeplugTensor* Member(int member);
  // The buffers in use, q first.
  std::vector<HostTensor*> Buffers();
  std::vector<const HostTensor*> Buffers() const;
};

// The inputs of one case, the same for the plugin's run and the
// reference's. Not movable: `params` points at its tensors.
struct AttentionInputs {
  AttentionInputs() = default;
  AttentionInputs(const AttentionInputs&) = delete;
  AttentionInputs& operator=(const AttentionInputs&) = delete;

  AttentionCase c;
  // Tokens of the THD buffers (sum of the lengths); 0 for sbhd and bshd.
  int64_t tokens_q = 0, tokens_kv = 0;
  QkvBuffers qkv;
  HostTensor d_o, bias, alibi_slopes, cu_seqlens_q, cu_seqlens_kv;
  // fp8 only: one-element fp8 tensors whose quantization metadata are the
  // per-tensor scales of P and dP (s_quant, dp_quant).
  HostTensor s_scales, dp_scales;
  TeplugAttentionParams params{};
};
// Values in [-1, -0.05] U [0.05, 1] (fp8: codes of magnitude 2^-3..1 times a
// scale_inv of 1/2 or 1); padding-mask and THD lengths in [1, max] per
// sequence with at least one shorter than the max where it can be; the
// dropout seed and offset random 64-bit.
std::unique_ptr<AttentionInputs> MakeAttentionInputs(const AttentionCase& c, uint64_t seed);

// Outputs start as zeros and have q's dtype (o and the gradients; dbias the
// bias's: q's, bf16 for fp8); fp8 outputs carry a per-tensor scale (o 2^6
// for e4m3, 2^8 for e5m2; gradients 2^4) with scale_inv already 1/scale, and
// an amax.
struct ForwardOutputs {
  HostTensor o, lse;
};
ForwardOutputs MakeForwardOutputs(const AttentionInputs& in);
struct BackwardOutputs {
  QkvBuffers d;
  HostTensor dbias;  // empty unless the bias is pre_scale or post_scale
};
BackwardOutputs MakeBackwardOutputs(const AttentionInputs& in);

TeplugAttentionFwdArgs ForwardArgs(AttentionInputs* in, ForwardOutputs* out);
// The backward of `in` given the forward's outputs `fwd` (o and softmax_lse).
TeplugAttentionBwdArgs BackwardArgs(AttentionInputs* in, const ForwardOutputs& fwd,
                                    BackwardOutputs* out);


// Runs `provider`'s forward (backward) in `kernel` with exactly the
// workspace it asks for, on `where`'s device (every tensor of the args
// staged there, conformance_staging.h) when given: "" on success, else
// "<who> failed: ..." or "<who> does not serve it: ..." (plugin text escaped).
std::string CallForward(const core::Kernel& kernel, const std::string& provider,
                        TeplugAttentionFwdArgs args, const char* who,
                        const CaseDevice* where = nullptr);
std::string CallBackward(const core::Kernel& kernel, const std::string& provider,
                         TeplugAttentionBwdArgs args, const char* who,
                         const CaseDevice* where = nullptr);

// Whether two tensors of one shape and dtype hold the same bytes.
bool SameBytes(const HostTensor& a, const HostTensor& b);
// The amax an fp8 output's quantization recorded.
double RecordedAmax(const HostTensor& t);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CONFORMANCE_ATTENTION_CALL_H_
