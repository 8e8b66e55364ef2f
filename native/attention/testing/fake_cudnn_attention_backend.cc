#include "native/attention/testing/fake_cudnn_attention_backend.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <thread>

namespace teplug::native::attention::testing {
namespace {

class FakeGraph final : public SdpaGraph {
 public:
  FakeGraph(FakeCudnnAttentionBackend& backend, size_t workspace) : backend_(backend), workspace_(workspace) {}
  ~FakeGraph() override { backend_.Record("DestroyGraph"); }
  size_t workspace_size() const override { return workspace_; }
  absl::Status Execute(const SdpaBuffers& buffers, void* workspace) override {
    (void)workspace;
    backend_.HoldHandle();
    backend_.Record("Execute");
    backend_.RecordExecution(buffers);
    const SdpaFp8Scales& f = buffers.fp8;
    for (auto [amax, value] : {std::pair{f.amax_s, kFakeAmaxS},
                               {f.amax_o, kFakeAmaxO},
                               {f.amax_dq, kFakeAmaxDq},
                               {f.amax_dk, kFakeAmaxDk},
                               {f.amax_dv, kFakeAmaxDv},
                               {f.amax_dp, kFakeAmaxDp}}) {
      if (amax != nullptr) *static_cast<float*>(amax) = value;
    }
    return absl::OkStatus();
  }

 private:
  FakeCudnnAttentionBackend& backend_;
  size_t workspace_;
};

}  // namespace

void FakeCudnnAttentionBackend::Record(const std::string& call) {
  std::lock_guard<std::mutex> lock(mu_);
  log_.push_back(call);
}

void FakeCudnnAttentionBackend::HoldHandle() {
  if (handles_in_use_.fetch_add(1) != 0) handle_overlaps_.fetch_add(1);
  std::this_thread::sleep_for(handle_hold);
  handles_in_use_.fetch_sub(1);
}

void FakeCudnnAttentionBackend::RecordExecution(const SdpaBuffers& b) {
  std::lock_guard<std::mutex> lock(mu_);
  executions_.push_back(b);
}

absl::StatusOr<int32_t> FakeCudnnAttentionBackend::LoadLibrary() {
  Record("LoadLibrary");
  if (!load_error.empty()) return absl::NotFoundError(load_error);
  return version;
}

absl::StatusOr<void*> FakeCudnnAttentionBackend::CreateHandle() {
  Record("CreateHandle");
  std::lock_guard<std::mutex> lock(mu_);
  ++live_handles_;
  return reinterpret_cast<void*>(static_cast<uintptr_t>(0x1000 * next_handle_++));
}

void FakeCudnnAttentionBackend::DestroyHandle(void* handle) {
  (void)handle;
  Record("DestroyHandle");
  std::lock_guard<std::mutex> lock(mu_);
  --live_handles_;
}

absl::Status FakeCudnnAttentionBackend::SetStream(void* handle, void* stream) {
  (void)handle;
  (void)stream;
  Record("SetStream");
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<SdpaGraph>> FakeCudnnAttentionBackend::BuildGraph(const SdpaProblem& problem,
                                                                                 void* handle) {
  (void)handle;
  HoldHandle();
  Record("BuildGraph");
  if (!build_error.empty()) return absl::UnimplementedError(build_error);
  {
    std::lock_guard<std::mutex> lock(mu_);
    built_.push_back(problem);
  }
  return std::unique_ptr<SdpaGraph>(new FakeGraph(*this, graph_workspace));
}

// The host versions of the kernels, so tests can read what they wrote.
int FakeCudnnAttentionBackend::SequenceLengths(const int32_t* cu, int32_t* lengths, int64_t batch, void* stream) {
  (void)stream;
  Record("SequenceLengths");
  for (int64_t b = 0; b < batch; ++b) lengths[b] = cu[b + 1] - cu[b];
  return 0;
}

int FakeCudnnAttentionBackend::RaggedOffsets(const int32_t* cu, int64_t* offsets, int64_t batch, int64_t token_stride,
                                             void* stream) {
  (void)stream;
  Record("RaggedOffsets");
  for (int64_t b = 0; b <= batch; ++b) offsets[b] = cu[b] * token_stride;
  return 0;
}

int FakeCudnnAttentionBackend::WriteRngState(int64_t* rng, uint64_t seed, uint64_t offset, void* stream) {
  (void)stream;
  Record("WriteRngState");
  rng[0] = static_cast<int64_t>(seed);
  rng[1] = static_cast<int64_t>(offset);
  return 0;
}

int FakeCudnnAttentionBackend::ZeroRowsPastLength(void* base, std::array<int64_t, 4> dims,
                                                  std::array<int64_t, 4> strides, int element_bytes,
                                                  const int32_t* lengths, void* stream) {
  (void)stream;
  Record("ZeroRowsPastLength");
  auto* p = static_cast<char*>(base);
  for (int64_t b = 0; b < dims[0]; ++b)
    for (int64_t h = 0; h < dims[1]; ++h)
      for (int64_t s = lengths[b]; s < dims[2]; ++s)
        for (int64_t d = 0; d < dims[3]; ++d) {
          const int64_t i = b * strides[0] + h * strides[1] + s * strides[2] + d * strides[3];
          std::memset(p + i * element_bytes, 0, static_cast<size_t>(element_bytes));
        }
  return 0;
}

int FakeCudnnAttentionBackend::MaxOfAmaxes(const float* slots, int64_t slot_stride, uint32_t mask,
                                           float* out, void* stream) {
  (void)stream;
  Record("MaxOfAmaxes");
  float m = 0.0f;
  for (int i = 0; i < 32; ++i)
    if ((mask >> i) & 1u) m = std::max(m, slots[i * slot_stride]);
  *out = m;
  return 0;
}

int FakeCudnnAttentionBackend::NegInfPastLength(float* lse, int64_t batch, int64_t heads, int64_t seq,
                                                const int32_t* lengths, void* stream) {
  (void)stream;
  Record("NegInfPastLength");
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t s = lengths[b]; s < seq; ++s) lse[(b * heads + h) * seq + s] = -INFINITY;
  return 0;
}

std::vector<std::string> FakeCudnnAttentionBackend::log() const {
  std::lock_guard<std::mutex> lock(mu_);
  return log_;
}

int FakeCudnnAttentionBackend::count(const std::string& call) const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(std::count(log_.begin(), log_.end(), call));
}

std::vector<SdpaProblem> FakeCudnnAttentionBackend::built() const {
  std::lock_guard<std::mutex> lock(mu_);
  return built_;
}

std::vector<SdpaBuffers> FakeCudnnAttentionBackend::executions() const {
  std::lock_guard<std::mutex> lock(mu_);
  return executions_;
}

int FakeCudnnAttentionBackend::live_handles() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_handles_;
}

}  // namespace teplug::native::attention::testing
