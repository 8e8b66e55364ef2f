// Test support: the independent oracle for reduced results. It computes the
// exact reduction (long double for floating types, 128-bit integers for
// integer types) and accepts a result only within the error bound that the
// documented semantics (reduction.h) allow:
//   floating sum:  |got - exact| <= world * u_acc * sum|x| + u_out * |exact|
//   floating avg:  the sum bound / world + (u_acc + u_out) * |exact|
//   floating prod: |got - exact| <= (world * u_acc + u_out) * |exact|
//   min, max:      exact
//   integers:      exact, with sum/prod wrapped modulo 2^bits and avg the
//                  exact sum / world truncated toward zero
// where u_acc is the accumulator's unit roundoff (2^-24 for fp32/fp16/bf16,
// 2^-53 for fp64) and u_out the output format's (2^-24 fp32, 2^-11 fp16,
// 2^-8 bf16, 2^-53 fp64); each bound carries 1% slack.
#ifndef TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_REDUCTION_ORACLE_H_
#define TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_REDUCTION_ORACLE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "plugins/reference/collective/data_type.h"

namespace teplug::reference::collective::testing {

// Every type and operator the reductions accept, for exhaustive tests.
inline constexpr DataType kReducibleTypes[] = {DataType::kFp32,  DataType::kFp64, DataType::kFp16,
                                               DataType::kBf16,  DataType::kInt8, DataType::kInt32,
                                               DataType::kInt64, DataType::kUint8};
inline constexpr ReduceOp kReduceOps[] = {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin,
                                          ReduceOp::kMax, ReduceOp::kAvg};

// Bytes of one element; every reducible type is a whole number of bytes.
inline size_t ElementBytes(DataType type) { return ElementBits(type) / 8; }

// One (type, operator) pair with every rank's random input.
struct ReduceCase {
  DataType type;
  ReduceOp op;
  std::vector<std::vector<unsigned char>> inputs;  // [rank], `count` elements each
};

// Every reducible type x every operator, in kReducibleTypes x kReduceOps
// order, each with `world` random inputs of `count` elements. Input r of case
// i uses seed seed_base + i * world + r + 1, so every input differs and a
// suite that keeps its seed_base keeps its data bit for bit.
std::vector<ReduceCase> MakeReduceCases(int world, size_t count, uint64_t seed_base);

// Checks got[i] for i < count against the reduction of inputs[r][i] over all
// ranks r. Returns "" when every element is within bounds, otherwise a
// description of the first failing element (index, inputs, got, expected).
std::string CheckReduction(const std::vector<const unsigned char*>& inputs, size_t count,
                           DataType type, ReduceOp op, const unsigned char* got);

}  // namespace teplug::reference::collective::testing

#endif  // TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_REDUCTION_ORACLE_H_
