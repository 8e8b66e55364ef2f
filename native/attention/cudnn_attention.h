// IAttention v1 on cuDNN's fused attention (frontend SDPA graphs), forward
// and backward, on the GPU of the call's tensors, on args.stream (a
// cudaStream_t).
//
//  - supports() answers from, in order: the args (sdpa_problem.h: malformed
//    calls and what cuDNN's tensors cannot describe), the GPU (the CUDA
//    runtime's reason when there is none; asked before libcudnn is opened, so
//    a machine without a GPU never loads it), libcudnn (a missing library is
//    the reason, in dlopen's words), TransformerEngine's rules for the GPU's
//    arch and the loaded cuDNN's version (cudnn_attention_support.h), what
//    native does not build (explicit ALiBi slopes, which TE turns into a
//    post-scale bias tensor; an fp8 backward with a window or determinism,
//    which the pinned frontend's fp8 backward cannot express), and finally
//    cuDNN itself: a graph no engine supports is refused with the frontend's
//    words.
//  - fp8 (e4m3 Q/K/V/O with per-tensor scales): each tensor's scale_inv is
//    the graph's descale, each fp8 output's scale its scale, s_quant and
//    dp_quant P's and dP's. The graph writes every amax it has; one the
//    caller does not track goes to workspace scratch, and outputs that share
//    one amax tensor (dQ, dK, dV of a packed layout) write scratch slots whose
//    largest a kernel then stores.
//  - Graphs are built once per problem (SdpaProblemWords and the GPU) and
//    kept in a bounded LRU cache; workspace_size() and the ops use that
//    graph. The workspace is cuDNN's plan workspace plus, when the call needs
//    them, the sequence lengths, ragged offsets and RNG state the sequence
//    kernels write, and the fp8 scratch (LayOutWorkspace); a smaller
//    workspace is refused.
//  - Padding: cuDNN leaves O, the gradients and LSE at padding positions
//    unwritten; teplug's contract defines them (0 and -inf), so they are
//    written after the graph.
#ifndef TEPLUG_NATIVE_ATTENTION_CUDNN_ATTENTION_H_
#define TEPLUG_NATIVE_ATTENTION_CUDNN_ATTENTION_H_

#include <cstddef>
#include <memory>

#include "native/attention/cudnn_attention_backend.h"
#include "native/device/cuda_runtime_api.h"
#include "teplug/sdk/implement.hpp"

namespace teplug::native::attention {

// Problems whose graph is kept.
inline constexpr size_t kGraphCacheCapacity = 256;

// `backend` and `runtime` must outlive the object. Thread-safe.
std::unique_ptr<sdk::AttentionImpl> NewCudnnAttention(CudnnAttentionBackend& backend, CudaRuntimeApi& runtime,
                                                      size_t graph_cache_capacity = kGraphCacheCapacity);

// The IAttention capability descriptor: CUDA devices of every arch (the arch
// and cuDNN version are checked by supports()), fp16 and bf16, every layout
// and mask, no bias / post_scale / alibi, dropout, sliding window, GQA,
// deterministic, backward and different head dims; head dims multiples of 8
// up to 256. Static storage.
const TeplugAttentionCaps* CudnnAttentionCaps();

}  // namespace teplug::native::attention

#endif  // TEPLUG_NATIVE_ATTENTION_CUDNN_ATTENTION_H_
