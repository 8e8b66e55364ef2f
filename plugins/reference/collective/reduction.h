// Element-wise reduction of `world` equally long buffers in rank order: the
// arithmetic behind AllReduce and ReduceScatter, kept apart from transport so
// it can be tested on its own.
//
// Defined semantics (the oracle's contract, also in README.md):
//   - Order: acc = x[0]; acc = op(acc, x[r]) for r = 1 .. world-1. Every rank
//     runs the same loop on the same data, so results are bit-identical on all
//     ranks and across runs.
//   - fp32 accumulates in fp32, fp64 in fp64. fp16 and bf16 are decoded to
//     fp32, accumulated in fp32 and rounded to the storage format once at the
//     end (round to nearest even).
//   - avg on floating types: the fp32/fp64 sum divided by world, then (for
//     fp16/bf16) rounded once.
//   - Integer sum and prod wrap modulo 2^bits (two's complement). Integer avg
//     is the exact sum (computed in 128 bits, so it never wraps) divided by
//     world, truncated toward zero; it always fits the type.
//   - min/max on floating types propagate NaN: if any input is NaN the result
//     is NaN. Between equal values (e.g. -0 and +0) the lower rank wins.
#ifndef TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_REDUCTION_H_
#define TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_REDUCTION_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "plugins/reference/collective/data_type.h"

namespace teplug::reference::collective {

// Ok when `type` can be reduced with `op` (fp32, fp64, fp16, bf16, int8,
// int32, int64, uint8 with any op); otherwise InvalidArgument naming `what`
// (the calling operation), the type and the operator.
absl::Status CheckReducible(DataType type, ReduceOp op, absl::string_view what);

// out[i] = reduction over r of inputs[r][i], for i < count, with the
// semantics above. `out` may alias any input: element i of every input is read
// before out[i] is written. Precondition: CheckReducible(type, op) is ok.
void ReduceInRankOrder(const void* const* inputs, int world, size_t count, DataType type,
                       ReduceOp op, void* out);

}  // namespace teplug::reference::collective

#endif  // TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_REDUCTION_H_
