#include "native/attention/cudnn_attention_backend_real.h"

#include "native/attention/cudnn_library.h"
#include "native/attention/sequence_kernels.h"
#ifdef TEPLUG_CUDNN_FRONTEND
#include "native/attention/cudnn_sdpa_graph.h"
#endif

// Without the frontend headers at build time (BUILD defines
// TEPLUG_CUDNN_FRONTEND only when @cudnn_frontend has them) the provider still
// builds, and its attention says why it cannot serve instead of the whole
// native provider, and the CLI with it, dropping out of the build.

namespace teplug::native::attention {
namespace {

class RealBackend final : public CudnnAttentionBackend {
 public:
  absl::StatusOr<int32_t> LoadLibrary() override {
#ifndef TEPLUG_CUDNN_FRONTEND
    return absl::UnavailableError(
        "cuDNN attention is not built in: the cuDNN frontend headers were missing when teplug was built "
        "(tools/fetch_cudnn_frontend.sh, which tools/setup.sh runs, fetches them; then bazel sync "
        "--only=cudnn_frontend)");
#endif
    absl::StatusOr<CudnnLibrary> lib = LoadCudnn(CudnnCandidatePaths());
    if (!lib.ok()) return lib.status();
    SetCudnnLibraryHandle(lib->handle);
    return lib->version;
  }
#ifdef TEPLUG_CUDNN_FRONTEND
  absl::StatusOr<void*> CreateHandle() override { return CreateCudnnHandle(); }
  void DestroyHandle(void* handle) override { DestroyCudnnHandle(handle); }
  absl::Status SetStream(void* handle, void* stream) override { return SetCudnnStream(handle, stream); }
#else
  // Never reached: LoadLibrary() fails first.
  absl::StatusOr<void*> CreateHandle() override { return absl::UnavailableError("cuDNN attention is not built in"); }
  void DestroyHandle(void*) override {}
  absl::Status SetStream(void*, void*) override { return absl::UnavailableError("cuDNN attention is not built in"); }
#endif
  absl::StatusOr<std::unique_ptr<SdpaGraph>> BuildGraph(const SdpaProblem& problem, void* handle) override {
#ifdef TEPLUG_CUDNN_FRONTEND
    return BuildCudnnSdpaGraph(problem, handle);
#else
    return absl::UnavailableError("cuDNN attention is not built in (no cuDNN frontend headers at build time)");
#endif
  }
  int SequenceLengths(const int32_t* cu, int32_t* lengths, int64_t batch, void* stream) override {
    return LaunchSequenceLengths(cu, lengths, batch, stream);
  }
  int RaggedOffsets(const int32_t* cu, int64_t* offsets, int64_t batch, int64_t token_stride, void* stream) override {
    return LaunchRaggedOffsets(cu, offsets, batch, token_stride, stream);
  }
  int WriteRngState(int64_t* rng, uint64_t seed, uint64_t offset, void* stream) override {
    return LaunchWriteRngState(rng, seed, offset, stream);
  }
  int ZeroRowsPastLength(void* base, std::array<int64_t, 4> dims, std::array<int64_t, 4> strides,
                         int element_bytes, const int32_t* lengths, void* stream) override {
    return LaunchZeroRowsPastLength(base, dims, strides, element_bytes, lengths, stream);
  }
  int MaxOfAmaxes(const float* slots, int64_t slot_stride, uint32_t mask, float* out,
                  void* stream) override {
    return LaunchMaxOfAmaxes(slots, slot_stride, mask, out, stream);
  }
  int NegInfPastLength(float* lse, int64_t batch, int64_t heads, int64_t seq, const int32_t* lengths,
                       void* stream) override {
    return LaunchNegInfPastLength(lse, batch, heads, seq, lengths, stream);
  }
};

}  // namespace

CudnnAttentionBackend& RealCudnnAttentionBackend() {
  static RealBackend* backend = new RealBackend();  // never destroyed: used until exit
  return *backend;
}

}  // namespace teplug::native::attention
