#include "plugins/reference/collective/reduction.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "absl/strings/str_format.h"
#include "plugins/reference/numerics/float_formats.h"

namespace teplug::reference::collective {
namespace {

// Reads element `index` of a buffer of T without alignment assumptions
// (slots in the shared region and user buffers may be unaligned).
template <typename T>
T LoadElement(const void* buffer, size_t index) {
  T value;
  std::memcpy(&value, static_cast<const unsigned char*>(buffer) + index * sizeof(T), sizeof(T));
  return value;
}

template <typename T>
void StoreElement(void* buffer, size_t index, T value) {
  std::memcpy(static_cast<unsigned char*>(buffer) + index * sizeof(T), &value, sizeof(T));
}

// NaN-propagating min/max; on ties the accumulator (lower rank) is kept.
template <typename Acc>
Acc FloatingMin(Acc acc, Acc next) {
  if (std::isnan(acc) || std::isnan(next)) return std::numeric_limits<Acc>::quiet_NaN();
  return next < acc ? next : acc;
}
template <typename Acc>
Acc FloatingMax(Acc acc, Acc next) {
  if (std::isnan(acc) || std::isnan(next)) return std::numeric_limits<Acc>::quiet_NaN();
  return next > acc ? next : acc;
}

// Storage format <-> accumulator conversions for the floating types.
float LoadFp16(uint16_t bits) { return DecodeFp16(bits); }
uint16_t StoreFp16(float value) { return EncodeFp16(value); }
float LoadBf16(uint16_t bits) { return DecodeBf16(bits); }
uint16_t StoreBf16(float value) { return EncodeBf16(value); }
template <typename T>
T Identity(T value) {
  return value;
}

// Floating reduction: Storage is the element type in memory, Acc the type the
// arithmetic runs in; Load/Store convert (Store rounds exactly once).
template <typename Storage, typename Acc, Acc (*Load)(Storage), Storage (*Store)(Acc)>
void ReduceFloating(const void* const* inputs, int world, size_t count, ReduceOp op, void* out) {
  for (size_t i = 0; i < count; ++i) {
    Acc acc = Load(LoadElement<Storage>(inputs[0], i));
    for (int r = 1; r < world; ++r) {
      const Acc next = Load(LoadElement<Storage>(inputs[r], i));
      switch (op) {
        case ReduceOp::kSum:
        case ReduceOp::kAvg:
          acc = acc + next;
          break;
        case ReduceOp::kProd:
          acc = acc * next;
          break;
        case ReduceOp::kMin:
          acc = FloatingMin(acc, next);
          break;
        case ReduceOp::kMax:
          acc = FloatingMax(acc, next);
          break;
      }
    }
    if (op == ReduceOp::kAvg) acc = acc / static_cast<Acc>(world);
    StoreElement<Storage>(out, i, Store(acc));
  }
}

// Integer reduction: sum/prod wrap (done in the unsigned type, where wrapping
// is defined), avg divides the exact 128-bit sum, truncating toward zero.
template <typename T>
void ReduceInteger(const void* const* inputs, int world, size_t count, ReduceOp op, void* out) {
  using Unsigned = std::make_unsigned_t<T>;
  for (size_t i = 0; i < count; ++i) {
    const T first = LoadElement<T>(inputs[0], i);
    T result = first;
    if (op == ReduceOp::kAvg) {
      __int128 exact_sum = first;
      for (int r = 1; r < world; ++r) exact_sum += LoadElement<T>(inputs[r], i);
      result = static_cast<T>(exact_sum / world);
    } else if (op == ReduceOp::kMin || op == ReduceOp::kMax) {
      for (int r = 1; r < world; ++r) {
        const T next = LoadElement<T>(inputs[r], i);
        if (op == ReduceOp::kMin ? next < result : next > result) result = next;
      }
    } else {
      // Widened to at least unsigned int so that uint8 * uint8 never runs in
      // (overflowing) signed int arithmetic after integer promotion.
      using Wide = std::common_type_t<Unsigned, unsigned>;
      Wide wrapped = static_cast<Unsigned>(first);
      for (int r = 1; r < world; ++r) {
        const Wide next = static_cast<Unsigned>(LoadElement<T>(inputs[r], i));
        wrapped = static_cast<Unsigned>(op == ReduceOp::kSum ? wrapped + next : wrapped * next);
      }
      result = static_cast<T>(static_cast<Unsigned>(wrapped));
    }
    StoreElement<T>(out, i, result);
  }
}

}  // namespace

absl::Status CheckReducible(DataType type, ReduceOp op, absl::string_view what) {
  if (ReduceOpName(op) == "unknown") {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: unknown reduction operator code %u (expected sum, prod, min, max "
                        "or avg)",
                        what, static_cast<uint32_t>(op)));
  }
  switch (type) {
    case DataType::kFp32:
    case DataType::kFp64:
    case DataType::kFp16:
    case DataType::kBf16:
    case DataType::kInt8:
    case DataType::kInt32:
    case DataType::kInt64:
    case DataType::kUint8:
      return absl::OkStatus();
    default:
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: the reference collectives cannot reduce %s with %s; reducible "
                          "types are fp32, fp64, fp16, bf16, int8, int32, int64 and uint8 (fp8 "
                          "and fp4 data is moved with all_gather/broadcast/send, not reduced)",
                          what, DataTypeName(type), ReduceOpName(op)));
  }
}

void ReduceInRankOrder(const void* const* inputs, int world, size_t count, DataType type,
                       ReduceOp op, void* out) {
  switch (type) {
    case DataType::kFp32:
      ReduceFloating<float, float, Identity<float>, Identity<float>>(inputs, world, count, op, out);
      return;
    case DataType::kFp64:
      ReduceFloating<double, double, Identity<double>, Identity<double>>(inputs, world, count, op,
                                                                         out);
      return;
    case DataType::kFp16:
      ReduceFloating<uint16_t, float, LoadFp16, StoreFp16>(inputs, world, count, op, out);
      return;
    case DataType::kBf16:
      ReduceFloating<uint16_t, float, LoadBf16, StoreBf16>(inputs, world, count, op, out);
      return;
    case DataType::kInt8:
      ReduceInteger<int8_t>(inputs, world, count, op, out);
      return;
    case DataType::kInt32:
      ReduceInteger<int32_t>(inputs, world, count, op, out);
      return;
    case DataType::kInt64:
      ReduceInteger<int64_t>(inputs, world, count, op, out);
      return;
    case DataType::kUint8:
      ReduceInteger<uint8_t>(inputs, world, count, op, out);
      return;
    default:
      return;  // excluded by CheckReducible
  }
}

}  // namespace teplug::reference::collective
