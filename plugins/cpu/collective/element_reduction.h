// The element-wise reduction functions handed to gloo::allreduce, one per
// (wire type, operator). They implement the ICollective semantics exactly:
// integer sum and product wrap modulo 2^bits (computed on unsigned values, so
// no signed overflow), floating min/max propagate NaN, and 128-bit integer
// sums serve the integer average without overflow.
#ifndef TEPLUG_PLUGINS_CPU_COLLECTIVE_ELEMENT_REDUCTION_H_
#define TEPLUG_PLUGINS_CPU_COLLECTIVE_ELEMENT_REDUCTION_H_

#include <cstddef>
#include <cstdint>

namespace teplug::cpu::collective {

// The operator as the wire sees it: avg travels as a sum and is divided after.
enum class WireOp { kSum, kProd, kMin, kMax };

// The element types that cross the wire for a reduction.
enum class WireType { kFloat, kInt8, kUint8, kInt32, kInt64, kInt128 };

// c[i] = a[i] op b[i] for i < n (Gloo's reduce-function signature; c may
// alias a or b).
using ReduceFunction = void (*)(void* c, const void* a, const void* b, size_t n);

ReduceFunction ReduceFunctionFor(WireType type, WireOp op);

// Bytes of one wire element.
size_t WireElementBytes(WireType type);

}  // namespace teplug::cpu::collective

#endif  // TEPLUG_PLUGINS_CPU_COLLECTIVE_ELEMENT_REDUCTION_H_
