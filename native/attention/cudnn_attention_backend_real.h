// The CudnnAttentionBackend of a real machine: libcudnn opened at run time
// (cudnn_library.h), the frontend graph (cudnn_sdpa_graph.h) and the
// sequence kernels (sequence_kernels.h).
#ifndef TEPLUG_NATIVE_ATTENTION_CUDNN_ATTENTION_BACKEND_REAL_H_
#define TEPLUG_NATIVE_ATTENTION_CUDNN_ATTENTION_BACKEND_REAL_H_

#include "native/attention/cudnn_attention_backend.h"

namespace teplug::native::attention {

// The process-wide instance (static storage).
CudnnAttentionBackend& RealCudnnAttentionBackend();

}  // namespace teplug::native::attention

#endif  // TEPLUG_NATIVE_ATTENTION_CUDNN_ATTENTION_BACKEND_REAL_H_
