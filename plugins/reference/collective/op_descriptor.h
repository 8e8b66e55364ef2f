// What one rank says it is doing in a collective call. Every rank publishes
// its descriptor in the shared region before the first data step; all ranks
// then compare everyone's against rank 0's, so mismatched calls (different
// operation, count, type, root, or a skipped call) fail with an error naming
// the rank instead of silently producing garbage or hanging.
#ifndef TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_OP_DESCRIPTOR_H_
#define TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_OP_DESCRIPTOR_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "plugins/reference/collective/data_type.h"

namespace teplug::reference::collective {

// The collective operations, in the order of their names below.
enum class CollectiveKind : uint32_t {
  kAllReduce,
  kAllGather,
  kAllGatherV,
  kReduceScatter,
  kReduceScatterV,
  kBroadcast,
  kBarrier,
};

// "AllReduce", "AllGatherV", ... (the Communicator method names).
const char* CollectiveKindName(CollectiveKind kind);

// Plain data, trivially copyable: it lives in shared memory and is published
// with the release store of the barrier that follows the write.
struct OpDescriptor {
  CollectiveKind kind;
  DataType type;
  ReduceOp op;                  // meaningful for AllReduce / ReduceScatter(V) only
  int32_t root;                 // meaningful for Broadcast only
  uint64_t count;               // per-rank count (even variants), 0 for V variants
  uint64_t counts_fingerprint;  // FingerprintCounts() of V-variant counts
  uint64_t call_number;         // 1-based index of this collective on the communicator
};

// FNV-1a over the per-rank counts of a V variant; equal vectors give equal
// fingerprints, so ranks that passed different count vectors are detected.
uint64_t FingerprintCounts(const std::vector<size_t>& counts);

// Human-readable description, e.g. "AllReduce #3 (fp32 sum, count 10)".
std::string DescribeOp(const OpDescriptor& op);

// Empty when `other` (published by `other_rank`) agrees with `reference`
// (rank 0's); otherwise a sentence naming both calls.
std::string DescribeMismatch(const OpDescriptor& reference, const OpDescriptor& other,
                             int other_rank);

}  // namespace teplug::reference::collective

#endif  // TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_OP_DESCRIPTOR_H_
