// Element types and reduction operators understood by the reference
// collectives, with their canonical names (the same names the C ABI uses).
#ifndef TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_DATA_TYPE_H_
#define TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_DATA_TYPE_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace teplug::reference::collective {

// Element type of a collective buffer. Data-movement operations (all-gather,
// broadcast, send/recv) accept every type; reductions accept the subset that
// CheckReducible() allows. fp64 is an extra beyond the canonical list because
// it costs nothing on the host and makes a useful high-precision oracle.
enum class DataType : uint32_t {
  kFp32,
  kFp16,
  kBf16,
  kFp8E4M3,
  kFp8E5M2,
  kE8M0,
  kFp4E2M1,  // two elements per byte; element counts must be even
  kInt8,
  kInt32,
  kInt64,
  kUint8,
  kFp64,
};

// Element-wise reduction applied by AllReduce / ReduceScatter.
enum class ReduceOp : uint32_t { kSum, kProd, kMin, kMax, kAvg };

// Canonical lower-case name ("fp32", "bf16", ...); "unknown" for values
// outside the enum so error messages never crash on bad input.
absl::string_view DataTypeName(DataType type);

// Canonical lower-case name ("sum", "avg", ...), "unknown" outside the enum.
absl::string_view ReduceOpName(ReduceOp op);

// Storage bits of one element (4 for fp4_e2m1, 8 for fp8, ...), or 0 for a
// value outside the enum.
int ElementBits(DataType type);

// Bytes occupied by `count` elements of `type`. Fails (naming `what`, e.g.
// "AllGather send buffer") for an unknown type, an odd fp4 count, or a size
// that overflows size_t.
absl::StatusOr<size_t> BufferBytes(DataType type, size_t count, absl::string_view what);

}  // namespace teplug::reference::collective

#endif  // TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_DATA_TYPE_H_
