// The seam between the cuDNN IAttention and what needs a GPU: loading
// libcudnn, handles, building a frontend graph, and the sequence kernels.
// The IAttention's logic (checks, the rule table, the graph cache, the
// workspace, the order of launches) is tested on the host against a fake
// (testing/fake_cudnn_attention_backend.h); the real one is
// cudnn_attention_backend_real.h.
#ifndef TEPLUG_NATIVE_ATTENTION_CUDNN_ATTENTION_BACKEND_H_
#define TEPLUG_NATIVE_ATTENTION_CUDNN_ATTENTION_BACKEND_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "native/attention/cudnn_sdpa_graph.h"
#include "native/attention/sdpa_problem.h"

namespace teplug::native::attention {

class CudnnAttentionBackend {
 public:
  virtual ~CudnnAttentionBackend() = default;
  // Opens libcudnn (called once): cudnnGetVersion(), or why it cannot.
  virtual absl::StatusOr<int32_t> LoadLibrary() = 0;
  // A cuDNN handle on the current device.
  virtual absl::StatusOr<void*> CreateHandle() = 0;
  virtual void DestroyHandle(void* handle) = 0;
  virtual absl::Status SetStream(void* handle, void* stream) = 0;
  virtual absl::StatusOr<std::unique_ptr<SdpaGraph>> BuildGraph(const SdpaProblem& problem, void* handle) = 0;
  // sequence_kernels.h; each returns the launch's cudaError_t.
  virtual int SequenceLengths(const int32_t* cu_seqlens, int32_t* lengths, int64_t batch, void* stream) = 0;
  virtual int RaggedOffsets(const int32_t* cu_seqlens, int64_t* offsets, int64_t batch, int64_t token_stride,
                            void* stream) = 0;
  virtual int WriteRngState(int64_t* rng, uint64_t seed, uint64_t offset, void* stream) = 0;
  virtual int ZeroRowsPastLength(void* base, std::array<int64_t, 4> dims,
                                 std::array<int64_t, 4> strides, int element_bytes,
                                 const int32_t* lengths, void* stream) = 0;
  // *out = the largest of the amax slots in `mask`: slot i at slots[i * slot_stride].
  virtual int MaxOfAmaxes(const float* slots, int64_t slot_stride, uint32_t mask, float* out,
                          void* stream) = 0;
  virtual int NegInfPastLength(float* lse, int64_t batch, int64_t heads, int64_t seq, const int32_t* lengths,
                               void* stream) = 0;
};

// Where the execution's own buffers lie in the caller's workspace: cuDNN's
// plan workspace first, then (each 256-byte aligned, only when the problem
// needs it) the sequence lengths, the ragged offsets, the RNG state, and for
// fp8 the amax scratch (kAmaxSlots slots of one float each: amaxes the caller
// does not track or tracks in one tensor for several outputs) and, for an
// fp8 inference without softmax_lse, the statistics cuDNN's fp8 forward
// always writes (fp32 [B, Hq, Sq]). kNone marks a buffer the problem does
// not have.
struct SdpaWorkspaceLayout {
  static constexpr size_t kNone = ~size_t{0};
  static constexpr size_t kAmaxSlots = 4;
  // Bytes from one amax slot to the next: the frontend declares every tensor
  // of the graph 16-byte aligned, the amax outputs included.
  static constexpr size_t kAmaxSlotBytes = 16;
  static constexpr int64_t kAmaxSlotFloats = kAmaxSlotBytes / sizeof(float);
  size_t graph_bytes = 0;
  size_t seq_len_q = kNone, seq_len_kv = kNone;
  size_t ragged_q = kNone, ragged_k = kNone, ragged_v = kNone, ragged_o = kNone;
  size_t rng = kNone;
  size_t amax_scratch = kNone;
  size_t stats_scratch = kNone;
  size_t total = 0;  // what workspace_size() reports
};

SdpaWorkspaceLayout LayOutWorkspace(const SdpaProblem& problem, size_t graph_bytes);

}  // namespace teplug::native::attention

#endif  // TEPLUG_NATIVE_ATTENTION_CUDNN_ATTENTION_BACKEND_H_
