// cuDNN's scaled-dot-product attention as a frontend graph: the one
// translation unit that includes the cuDNN frontend (compiling it takes
// about a minute, so nothing else does). The frontend is built with
// NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING: it calls libcudnn through a handle
// set by SetCudnnLibraryHandle (cudnn_library.h opens it), and links no
// cuDNN itself.
//
// A graph is built, validated and planned once per problem (the caller
// caches it by SdpaProblemWords) and executed with the call's pointers.
#ifndef TEPLUG_NATIVE_ATTENTION_CUDNN_SDPA_GRAPH_H_
#define TEPLUG_NATIVE_ATTENTION_CUDNN_SDPA_GRAPH_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "native/attention/sdpa_problem.h"

namespace teplug::native::attention {

// The device pointers of one execution (NULL where the problem has none).
// Sequence lengths, ragged offsets and the RNG state are device buffers the
// caller prepared in the workspace (sequence_kernels.h).
struct SdpaBuffers {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  void* o = nullptr;      // forward output; backward input
  void* stats = nullptr;  // LSE, fp32 [B, Hq, Sq, 1] (fp8 inference: workspace scratch)
  const void* bias = nullptr;
  const void* d_o = nullptr;
  void* dq = nullptr;
  void* dk = nullptr;
  void* dv = nullptr;
  void* dbias = nullptr;
  const int32_t* seq_len_q = nullptr;
  const int32_t* seq_len_kv = nullptr;
  const int64_t* ragged_q = nullptr;  // also dQ's
  const int64_t* ragged_k = nullptr;  // also dK's
  const int64_t* ragged_v = nullptr;  // also dV's
  const int64_t* ragged_o = nullptr;  // also dO's
  const int64_t* rng_state = nullptr;  // [seed, offset]
  float softmax_scale = 0.0f;
  // fp8 only: every pointer set, the amaxes the caller does not track
  // pointing at workspace scratch.
  SdpaFp8Scales fp8;
};

// One built graph with its execution plan.
class SdpaGraph {
 public:
  virtual ~SdpaGraph() = default;
  // Bytes of workspace cuDNN's plan needs.
  virtual size_t workspace_size() const = 0;
  // Enqueues the graph on the handle's stream. `workspace` holds at least
  // workspace_size() bytes.
  virtual absl::Status Execute(const SdpaBuffers& buffers, void* workspace) = 0;
};

// A cuDNN handle (cudnnHandle_t) on the current device.
absl::StatusOr<void*> CreateCudnnHandle();
void DestroyCudnnHandle(void* handle);
// cudnnSetStream.
absl::Status SetCudnnStream(void* handle, void* stream);

// Hands the frontend the libcudnn it calls (a dlopen handle).
void SetCudnnLibraryHandle(void* dl_handle);

// Builds the graph of `problem` for the handle's GPU: Unimplemented with the
// frontend's words when cuDNN has no engine for it (check_support), Internal
// for other failures. `handle` must be on the current device.
absl::StatusOr<std::unique_ptr<SdpaGraph>> BuildCudnnSdpaGraph(const SdpaProblem& problem,
                                                               void* handle);

}  // namespace teplug::native::attention

#endif  // TEPLUG_NATIVE_ATTENTION_CUDNN_SDPA_GRAPH_H_
