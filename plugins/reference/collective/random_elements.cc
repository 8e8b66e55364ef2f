#include "plugins/reference/collective/random_elements.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "plugins/reference/numerics/float_formats.h"

namespace teplug::reference::collective::testing {
namespace {

template <typename T>
void Put(std::vector<unsigned char>& buffer, size_t index, T value) {
  std::memcpy(buffer.data() + index * sizeof(T), &value, sizeof(T));
}

template <typename T>
T Get(const unsigned char* buffer, size_t index) {
  T value;
  std::memcpy(&value, buffer + index * sizeof(T), sizeof(T));
  return value;
}

// Uniform integer of type T over [low, high] except 0.
template <typename T>
T NonZeroInteger(std::mt19937_64& engine, int64_t low, int64_t high) {
  std::uniform_int_distribution<int64_t> distribution(low, high);
  int64_t value = 0;
  while (value == 0) value = distribution(engine);
  return static_cast<T>(value);
}

}  // namespace

bool IsFloating(DataType type) {
  return type == DataType::kFp32 || type == DataType::kFp64 || type == DataType::kFp16 ||
         type == DataType::kBf16;
}

std::vector<unsigned char> RandomElements(DataType type, size_t count, uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> magnitude(0.5, 2.0);
  std::bernoulli_distribution negative(0.5);
  auto floating = [&] { return negative(engine) ? -magnitude(engine) : magnitude(engine); };
  const size_t bytes =
      type == DataType::kFp4E2M1 ? count / 2 : count * static_cast<size_t>(ElementBits(type) / 8);
  std::vector<unsigned char> buffer(bytes);
  for (size_t i = 0; i < count; ++i) {
    switch (type) {
      case DataType::kFp32:
        Put(buffer, i, static_cast<float>(floating()));
        break;
      case DataType::kFp64:
        Put(buffer, i, floating());
        break;
      case DataType::kFp16:
        Put(buffer, i, EncodeFp16(floating()));
        break;
      case DataType::kBf16:
        Put(buffer, i, EncodeBf16(floating()));
        break;
      case DataType::kInt8:
        Put(buffer, i, NonZeroInteger<int8_t>(engine, -128, 127));
        break;
      case DataType::kUint8:
        Put(buffer, i, NonZeroInteger<uint8_t>(engine, 1, 255));
        break;
      case DataType::kInt32:
        Put(buffer, i, NonZeroInteger<int32_t>(engine, INT32_MIN, INT32_MAX));
        break;
      case DataType::kInt64:
        Put(buffer, i, NonZeroInteger<int64_t>(engine, INT64_MIN, INT64_MAX));
        break;
      case DataType::kFp8E4M3:
      case DataType::kFp8E5M2:
      case DataType::kE8M0:
        Put(buffer, i, NonZeroInteger<uint8_t>(engine, 1, 255));
        break;
      case DataType::kFp4E2M1:
        if (i % 2 == 0) Put(buffer, i / 2, NonZeroInteger<uint8_t>(engine, 1, 255));
        break;
    }
  }
  return buffer;
}

long double FloatingElement(const unsigned char* buffer, DataType type, size_t index) {
  switch (type) {
    case DataType::kFp32:
      return Get<float>(buffer, index);
    case DataType::kFp64:
      return Get<double>(buffer, index);
    case DataType::kFp16:
      return DecodeFp16(Get<uint16_t>(buffer, index));
    case DataType::kBf16:
      return DecodeBf16(Get<uint16_t>(buffer, index));
    default:
      break;
  }
  std::fprintf(stderr, "FloatingElement: %s is not a floating type\n",
               std::string(DataTypeName(type)).c_str());
  std::abort();
}

__int128 IntegerElement(const unsigned char* buffer, DataType type, size_t index) {
  switch (type) {
    case DataType::kInt8:
      return Get<int8_t>(buffer, index);
    case DataType::kUint8:
      return Get<uint8_t>(buffer, index);
    case DataType::kInt32:
      return Get<int32_t>(buffer, index);
    case DataType::kInt64:
      return Get<int64_t>(buffer, index);
    default:
      break;
  }
  std::fprintf(stderr, "IntegerElement: %s is not an integer type\n",
               std::string(DataTypeName(type)).c_str());
  std::abort();
}

}  // namespace teplug::reference::collective::testing
