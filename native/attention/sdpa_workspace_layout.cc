#include "native/attention/cudnn_attention_backend.h"

namespace teplug::native::attention {
namespace {

constexpr size_t kAlign = 256;

size_t AlignUp(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

}  // namespace

SdpaWorkspaceLayout LayOutWorkspace(const SdpaProblem& problem, size_t graph_bytes) {
  SdpaWorkspaceLayout w;
  w.graph_bytes = graph_bytes;
  size_t at = AlignUp(graph_bytes);
  auto take = [&at](size_t bytes) {
    const size_t offset = at;
    at = AlignUp(at + bytes);
    return offset;
  };
  const size_t b = static_cast<size_t>(problem.batch);
  if (problem.padding) {
    w.seq_len_q = take(b * sizeof(int32_t));
    w.seq_len_kv = take(b * sizeof(int32_t));
  }
  if (problem.ragged) {
    w.ragged_q = take((b + 1) * sizeof(int64_t));
    w.ragged_k = take((b + 1) * sizeof(int64_t));
    w.ragged_v = take((b + 1) * sizeof(int64_t));
    w.ragged_o = take((b + 1) * sizeof(int64_t));
  }
  if (problem.dropout) w.rng = take(2 * sizeof(int64_t));
  if (problem.fp8) {
    w.amax_scratch = take(SdpaWorkspaceLayout::kAmaxSlots * SdpaWorkspaceLayout::kAmaxSlotBytes);
    if (!problem.backward && !problem.writes_lse) {
      w.stats_scratch = take(static_cast<size_t>(problem.batch * problem.heads_q * problem.seq_q) *
                             sizeof(float));
    }
  }
  // Nothing beyond cuDNN's own: report its bytes exactly.
  w.total = at == AlignUp(graph_bytes) ? graph_bytes : at;
  return w;
}

}  // namespace teplug::native::attention
