#include "plugins/reference/collective/reduction_oracle.h"

#include <cmath>
#include <cstdint>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "plugins/reference/collective/random_elements.h"

namespace teplug::reference::collective::testing {
namespace {

long double AccumulatorRoundoff(DataType type) {
  return type == DataType::kFp64 ? std::ldexp(1.0L, -53) : std::ldexp(1.0L, -24);
}

long double OutputRoundoff(DataType type) {
  switch (type) {
    case DataType::kFp16:
      return std::ldexp(1.0L, -11);
    case DataType::kBf16:
      return std::ldexp(1.0L, -8);
    case DataType::kFp64:
      return std::ldexp(1.0L, -53);
    default:
      return std::ldexp(1.0L, -24);
  }
}

// Keeps the low `bits` bits of `value` as a two's complement (or unsigned)
// number: the definition of wrapping arithmetic.
__int128 WrapToType(unsigned __int128 value, DataType type) {
  const int bits = ElementBits(type);
  const unsigned __int128 mask = (static_cast<unsigned __int128>(1) << bits) - 1;
  const unsigned __int128 low = value & mask;
  const bool is_signed = type != DataType::kUint8;
  if (is_signed && (low >> (bits - 1)) != 0) {
    return static_cast<__int128>(low) - (static_cast<__int128>(1) << bits);
  }
  return static_cast<__int128>(low);
}

std::string Int128ToString(__int128 value) {
  if (value == 0) return "0";
  const bool negative = value < 0;
  unsigned __int128 magnitude = negative ? -static_cast<unsigned __int128>(value) : value;
  std::string digits;
  while (magnitude != 0) {
    digits.insert(digits.begin(), static_cast<char>('0' + magnitude % 10));
    magnitude /= 10;
  }
  return negative ? "-" + digits : digits;
}

std::string CheckFloatingElement(const std::vector<const unsigned char*>& inputs, size_t index,
                                 DataType type, ReduceOp op, const unsigned char* got_buffer) {
  const long double world = static_cast<long double>(inputs.size());
  std::vector<long double> values;
  long double sum = 0, sum_abs = 0, product = 1;
  for (const unsigned char* input : inputs) {
    const long double value = FloatingElement(input, type, index);
    values.push_back(value);
    sum += value;
    sum_abs += std::fabs(value);
    product *= value;
  }
  long double expected = 0, bound = 0;
  const long double u_acc = AccumulatorRoundoff(type);
  const long double u_out = OutputRoundoff(type);
  switch (op) {
    case ReduceOp::kSum:
      expected = sum;
      bound = world * u_acc * sum_abs + u_out * std::fabs(expected);
      break;
    case ReduceOp::kAvg:
      expected = sum / world;
      bound = u_acc * sum_abs + (u_acc + u_out) * std::fabs(expected);
      break;
    case ReduceOp::kProd:
      expected = product;
      bound = (world * u_acc + u_out) * std::fabs(expected);
      break;
    case ReduceOp::kMin:
    case ReduceOp::kMax:
      expected = values[0];
      for (long double value : values) {
        expected = op == ReduceOp::kMin ? std::fmin(expected, value) : std::fmax(expected, value);
      }
      break;
  }
  bound *= 1.01L;
  const long double got = FloatingElement(got_buffer, type, index);
  if (std::fabs(got - expected) <= bound) return "";
  return absl::StrFormat(
      "%s %s element %u: inputs [%s] gave %.10Lg, expected %.10Lg within "
      "%.3Lg (error %.3Lg)",
      DataTypeName(type), ReduceOpName(op), index,
      absl::StrJoin(
          values, ", ",
          [](std::string* out, long double v) { absl::StrAppendFormat(out, "%.10Lg", v); }),
      got, expected, bound, std::fabs(got - expected));
}

std::string CheckIntegerElement(const std::vector<const unsigned char*>& inputs, size_t index,
                                DataType type, ReduceOp op, const unsigned char* got_buffer) {
  std::vector<__int128> values;
  __int128 sum = 0;
  unsigned __int128 product = 1;
  for (const unsigned char* input : inputs) {
    const __int128 value = IntegerElement(input, type, index);
    values.push_back(value);
    sum += value;
    product *= static_cast<unsigned __int128>(value);
  }
  __int128 expected = values[0];
  switch (op) {
    case ReduceOp::kSum:
      expected = WrapToType(static_cast<unsigned __int128>(sum), type);
      break;
    case ReduceOp::kProd:
      expected = WrapToType(product, type);
      break;
    case ReduceOp::kAvg:
      expected = sum / static_cast<__int128>(inputs.size());
      break;
    case ReduceOp::kMin:
    case ReduceOp::kMax:
      for (__int128 value : values) {
        if (op == ReduceOp::kMin ? value < expected : value > expected) expected = value;
      }
      break;
  }
  const __int128 got = IntegerElement(got_buffer, type, index);
  if (got == expected) return "";
  return absl::StrFormat(
      "%s %s element %u: inputs [%s] gave %s, expected %s", DataTypeName(type), ReduceOpName(op),
      index,
      absl::StrJoin(values, ", ",
                    [](std::string* out, __int128 v) { out->append(Int128ToString(v)); }),
      Int128ToString(got), Int128ToString(expected));
}

}  // namespace

std::vector<ReduceCase> MakeReduceCases(int world, size_t count, uint64_t seed_base) {
  std::vector<ReduceCase> cases;
  uint64_t seed = seed_base;
  for (DataType type : kReducibleTypes) {
    for (ReduceOp op : kReduceOps) {
      ReduceCase c{type, op, {}};
      for (int r = 0; r < world; ++r) {
        c.inputs.push_back(RandomElements(type, count, ++seed));
      }
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

std::string CheckReduction(const std::vector<const unsigned char*>& inputs, size_t count,
                           DataType type, ReduceOp op, const unsigned char* got) {
  for (size_t i = 0; i < count; ++i) {
    const std::string failure = IsFloating(type) ? CheckFloatingElement(inputs, i, type, op, got)
                                                 : CheckIntegerElement(inputs, i, type, op, got);
    if (!failure.empty()) return failure;
  }
  return "";
}

}  // namespace teplug::reference::collective::testing
