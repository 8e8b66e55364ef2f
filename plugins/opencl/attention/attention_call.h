// One IAttention call as the opencl kernels see it: the args checked against
// attention.h and every tensor resolved through the memory convention
// (device_address_space.h) to a cl_mem with the element addressing of
// attention_kernels.h (off, sb, ss, sh), for any of the 15 layouts (packed
// members included) and any strides whose head-dim stride is 1.
//
// Errors (sdk::Exception): TEPLUG_INVALID_ARGUMENT for malformed args, naming
// the struct, field and value; TEPLUG_UNSUPPORTED for well-formed args the
// kernels do not serve (fp8, dropout, host memory, a head-dim stride other
// than 1, head dims above kMaxHeadDim), with the reason.
#ifndef TEPLUG_PLUGINS_OPENCL_ATTENTION_ATTENTION_CALL_H_
#define TEPLUG_PLUGINS_OPENCL_ATTENTION_ATTENTION_CALL_H_

#include <CL/cl.h>

#include <cstdint>
#include <string>

#include "teplug/attention.h"

namespace teplug::opencl::attention {

// The largest head_dim_qk / head_dim_v the kernels serve (their tiles live in
// local memory).
inline constexpr int64_t kMaxHeadDim = 256;

enum class SequenceFormat { kSbhd, kBshd, kThd };

// Element (b, s, h, d) of a [.., heads, dim] tensor is element
// off + b*sb + (tok0[b] + s)*ss + h*sh + d of `buffer` (sb = 0 for THD).
struct HeadTensor {
  cl_mem buffer = nullptr;  // NULL when the tensor has no data (supports)
  int64_t off = 0, sb = 0, ss = 0, sh = 0;
  int64_t rows = 0;  // THD: tokens (shape[0]); else the padded sequence length
  int64_t heads = 0, dim = 0;
};

// An fp32 or int32 tensor read whole (softmax_lse, cu_seqlens, slopes).
struct FlatTensor {
  cl_mem buffer = nullptr;
  int64_t off = 0;  // elements
  int64_t count = 0;
};

// The parameters both ops share.
struct AttentionShape {
  int32_t dtype = 0;  // of Q, K, V, O and the gradients
  int32_t layout = 0, mask = 0, bias_type = 0;
  SequenceFormat format = SequenceFormat::kBshd;
  int64_t batch = 0, hq = 0, hkv = 0, dqk = 0, dv = 0, max_sq = 0, max_skv = 0;
  int64_t window_left = -1, window_right = -1;
  bool bottom_right = false;   // delta_b = skv_b - sq_b (else 0)
  bool reads_lengths = false;  // lengths come from cu_seqlens (padding masks)
  bool training = false;
  float scale = 0;
  FlatTensor cu_q, cu_kv;  // int32 [batch + 1] when reads_lengths
  FlatTensor slopes;       // fp32 [hq] for ALiBi; buffer NULL: the default slopes
  // pre/post-scale bias (dense [bias_batches, bias_heads, max_sq, max_skv]).
  cl_mem bias = nullptr;
  int64_t bias_off = 0, bias_batches = 1, bias_heads = 1;
  const void* owner = nullptr;  // the IDevice context of the tensors
};

struct ForwardCall {
  AttentionShape shape;
  HeadTensor q, k, v, o;
  FlatTensor lse;  // buffer NULL: not wanted
};

struct BackwardCall {
  AttentionShape shape;
  HeadTensor q, k, v, o, d_o, dq, dk, dv;
  FlatTensor lse;
  cl_mem dbias = nullptr;  // dense like the bias; NULL: not wanted
  int64_t dbias_off = 0;
};

// Check and resolve; with `need_data` false (supports), tensors without data
// are accepted and resolve with NULL buffers.
ForwardCall ReadForward(const TeplugAttentionFwdArgs& args, bool need_data);
BackwardCall ReadBackward(const TeplugAttentionBwdArgs& args, bool need_data);

}  // namespace teplug::opencl::attention

#endif  // TEPLUG_PLUGINS_OPENCL_ATTENTION_ATTENTION_CALL_H_
