// A CudnnAttentionBackend in host memory: graphs that record their
// executions (and write the fixed fp8 amaxes below), and a log of every call
// in order, so the IAttention's logic is tested without a GPU or cuDNN.
#ifndef TEPLUG_NATIVE_ATTENTION_TESTING_FAKE_CUDNN_ATTENTION_BACKEND_H_
#define TEPLUG_NATIVE_ATTENTION_TESTING_FAKE_CUDNN_ATTENTION_BACKEND_H_

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "native/attention/cudnn_attention_backend.h"

namespace teplug::native::attention::testing {

// What a fake graph's execution writes to each fp8 amax output it is given.
inline constexpr float kFakeAmaxS = 0.5f, kFakeAmaxO = 1.5f, kFakeAmaxDq = 1.0f, kFakeAmaxDk = 3.0f,
                       kFakeAmaxDv = 2.0f, kFakeAmaxDp = 4.0f;

class FakeCudnnAttentionBackend final : public CudnnAttentionBackend {
 public:
  // What LoadLibrary answers: the version, or (when `load_error` is set) an
  // error with that text.
  int32_t version = 91900;
  std::string load_error;
  // What built graphs report as workspace_size().
  size_t graph_workspace = 4096;
  // When set, BuildGraph fails with Unimplemented and this text.
  std::string build_error;
  // How long BuildGraph and each execution use the handle: long enough, a
  // build and an execution that are not kept apart overlap.
  std::chrono::microseconds handle_hold{0};

  absl::StatusOr<int32_t> LoadLibrary() override;
  absl::StatusOr<void*> CreateHandle() override;
  void DestroyHandle(void* handle) override;
  absl::Status SetStream(void* handle, void* stream) override;
  absl::StatusOr<std::unique_ptr<SdpaGraph>> BuildGraph(const SdpaProblem& problem, void* handle) override;
  int SequenceLengths(const int32_t* cu_seqlens, int32_t* lengths, int64_t batch, void* stream) override;
  int RaggedOffsets(const int32_t* cu_seqlens, int64_t* offsets, int64_t batch, int64_t token_stride,
                    void* stream) override;
  int WriteRngState(int64_t* rng, uint64_t seed, uint64_t offset, void* stream) override;
  int ZeroRowsPastLength(void* base, std::array<int64_t, 4> dims, std::array<int64_t, 4> strides,
                         int element_bytes, const int32_t* lengths, void* stream) override;
  int MaxOfAmaxes(const float* slots, int64_t slot_stride, uint32_t mask, float* out,
                  void* stream) override;
  int NegInfPastLength(float* lse, int64_t batch, int64_t heads, int64_t seq, const int32_t* lengths,
                       void* stream) override;

  // Every call by name, in order ("LoadLibrary", "BuildGraph", "Execute",
  // "SequenceLengths", ...).
  std::vector<std::string> log() const;
  int count(const std::string& call) const;
  // The problems graphs were built for, and the buffers of each execution.
  std::vector<SdpaProblem> built() const;
  std::vector<SdpaBuffers> executions() const;
  int live_handles() const;
  // How often a BuildGraph or an execution began while another was using a
  // handle (cuDNN handles are not thread-safe; the fake has one per GPU).
  int handle_overlaps() const { return handle_overlaps_.load(); }

  void Record(const std::string& call);
  void RecordExecution(const SdpaBuffers& b);
  // Uses a handle for handle_hold, counting an overlap with another use.
  void HoldHandle();

 private:
  mutable std::mutex mu_;
  std::vector<std::string> log_;
  std::vector<SdpaProblem> built_;
  std::vector<SdpaBuffers> executions_;
  int live_handles_ = 0;
  int next_handle_ = 1;
  std::atomic<int> handles_in_use_{0}, handle_overlaps_{0};
};

}  // namespace teplug::native::attention::testing

#endif  // TEPLUG_NATIVE_ATTENTION_TESTING_FAKE_CUDNN_ATTENTION_BACKEND_H_
