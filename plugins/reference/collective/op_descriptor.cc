#include "plugins/reference/collective/op_descriptor.h"

#include "absl/strings/str_format.h"

namespace teplug::reference::collective {

const char* CollectiveKindName(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return "AllReduce";
    case CollectiveKind::kAllGather:
      return "AllGather";
    case CollectiveKind::kAllGatherV:
      return "AllGatherV";
    case CollectiveKind::kReduceScatter:
      return "ReduceScatter";
    case CollectiveKind::kReduceScatterV:
      return "ReduceScatterV";
    case CollectiveKind::kBroadcast:
      return "Broadcast";
    case CollectiveKind::kBarrier:
      return "Barrier";
  }
  return "UnknownCollective";
}

uint64_t FingerprintCounts(const std::vector<size_t>& counts) {
  uint64_t hash = 1469598103934665603ull;  // FNV-1a 64-bit offset basis
  for (size_t count : counts) {
    for (int byte = 0; byte < 8; ++byte) {
      hash ^= (static_cast<uint64_t>(count) >> (8 * byte)) & 0xFF;
      hash *= 1099511628211ull;  // FNV-1a 64-bit prime
    }
  }
  return hash;
}

std::string DescribeOp(const OpDescriptor& op) {
  std::string details;
  switch (op.kind) {
    case CollectiveKind::kAllReduce:
    case CollectiveKind::kReduceScatter:
      details =
          absl::StrFormat("%s %s, count %u", DataTypeName(op.type), ReduceOpName(op.op), op.count);
      break;
    case CollectiveKind::kReduceScatterV:
      details = absl::StrFormat("%s %s, per-rank counts %016x", DataTypeName(op.type),
                                ReduceOpName(op.op), op.counts_fingerprint);
      break;
    case CollectiveKind::kAllGather:
      details = absl::StrFormat("%s, count %u", DataTypeName(op.type), op.count);
      break;
    case CollectiveKind::kAllGatherV:
      details = absl::StrFormat("%s, per-rank counts %016x", DataTypeName(op.type),
                                op.counts_fingerprint);
      break;
    case CollectiveKind::kBroadcast:
      details = absl::StrFormat("%s, count %u, root %d", DataTypeName(op.type), op.count, op.root);
      break;
    case CollectiveKind::kBarrier:
      details = "no data";
      break;
  }
  return absl::StrFormat("%s #%u (%s)", CollectiveKindName(op.kind), op.call_number, details);
}

std::string DescribeMismatch(const OpDescriptor& reference, const OpDescriptor& other,
                             int other_rank) {
  const bool same = reference.kind == other.kind && reference.type == other.type &&
                    reference.op == other.op && reference.root == other.root &&
                    reference.count == other.count &&
                    reference.counts_fingerprint == other.counts_fingerprint &&
                    reference.call_number == other.call_number;
  if (same) return "";
  return absl::StrFormat(
      "rank %d called %s but rank 0 called %s; every rank must make the same "
      "sequence of collective calls with the same arguments (per-rank counts "
      "of V variants must be identical on all ranks)",
      other_rank, DescribeOp(other), DescribeOp(reference));
}

}  // namespace teplug::reference::collective
