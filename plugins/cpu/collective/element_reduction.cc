#include "plugins/cpu/collective/element_reduction.h"

#include <cmath>
#include <cstring>
#include <type_traits>

namespace teplug::cpu::collective {
namespace {

// The unsigned type of the same width, where wrapping arithmetic is defined.
// (std::make_unsigned does not know __int128 in strict C++17 mode.)
template <class T>
struct UnsignedOf {
  using type = std::make_unsigned_t<T>;
};
template <>
struct UnsignedOf<__int128> {
  using type = unsigned __int128;
};
template <class T>
using Unsigned = typename UnsignedOf<T>::type;

template <class T>
T WrapAdd(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return a + b;
  } else {
    using U = Unsigned<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  }
}

template <class T>
T WrapMul(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return a * b;
  } else {
    // Promote 8-bit values to unsigned int so the product cannot overflow int.
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, Unsigned<T>>;
    return static_cast<T>(static_cast<Unsigned<T>>(static_cast<U>(static_cast<Unsigned<T>>(a)) *
                                                   static_cast<U>(static_cast<Unsigned<T>>(b))));
  }
}

template <class T>
T Min(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
  }
  return b < a ? b : a;
}

template <class T>
T Max(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
  }
  return a < b ? b : a;
}

// Elements are copied in and out with memcpy: Gloo's scratch buffers promise
// no alignment beyond bytes, and 128-bit loads must not assume 16.
template <class T, T (*Op)(T, T)>
void Apply(void* c, const void* a, const void* b, size_t n) {
  auto* out = static_cast<unsigned char*>(c);
  const auto* x = static_cast<const unsigned char*>(a);
  const auto* y = static_cast<const unsigned char*>(b);
  for (size_t i = 0; i < n; ++i) {
    T u, v;
    std::memcpy(&u, x + i * sizeof(T), sizeof(T));
    std::memcpy(&v, y + i * sizeof(T), sizeof(T));
    const T r = Op(u, v);
    std::memcpy(out + i * sizeof(T), &r, sizeof(T));
  }
}

template <class T>
ReduceFunction For(WireOp op) {
  switch (op) {
    case WireOp::kSum:
      return &Apply<T, &WrapAdd<T>>;
    case WireOp::kProd:
      return &Apply<T, &WrapMul<T>>;
    case WireOp::kMin:
      return &Apply<T, &Min<T>>;
    case WireOp::kMax:
      return &Apply<T, &Max<T>>;
  }
  return nullptr;
}

}  // namespace

ReduceFunction ReduceFunctionFor(WireType type, WireOp op) {
  switch (type) {
    case WireType::kFloat:
      return For<float>(op);
    case WireType::kInt8:
      return For<int8_t>(op);
    case WireType::kUint8:
      return For<uint8_t>(op);
    case WireType::kInt32:
      return For<int32_t>(op);
    case WireType::kInt64:
      return For<int64_t>(op);
    case WireType::kInt128:
      return For<__int128>(op);
  }
  return nullptr;
}

size_t WireElementBytes(WireType type) {
  switch (type) {
    case WireType::kFloat:
      return sizeof(float);
    case WireType::kInt8:
      return 1;
    case WireType::kUint8:
      return 1;
    case WireType::kInt32:
      return 4;
    case WireType::kInt64:
      return 8;
    case WireType::kInt128:
      return 16;
  }
  return 0;
}

}  // namespace teplug::cpu::collective
