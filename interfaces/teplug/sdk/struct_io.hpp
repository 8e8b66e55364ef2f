// teplug/sdk/struct_io.hpp — reading and writing struct_size-versioned structs.
//
// Every ABI struct starts with struct_size. A reader never trusts that the
// writer compiled the same version: ReadVersioned copies only the bytes both
// sides know into a zero-initialised local copy, so fields an older writer
// lacks read as 0/NULL (their documented default), and trailing fields of a
// newer writer are ignored.
#ifndef TEPLUG_SDK_STRUCT_IO_HPP_
#define TEPLUG_SDK_STRUCT_IO_HPP_

#include <cstddef>
#include <cstring>
#include <type_traits>

namespace teplug::sdk {

// A zero-initialised T with struct_size = sizeof(T): how a writer creates one.
template <class T>
T Versioned() {
  static_assert(std::is_trivially_copyable<T>::value, "ABI structs are plain C structs");
  T value;
  std::memset(&value, 0, sizeof(T));
  value.struct_size = sizeof(T);
  return value;
}

// The smallest struct_size a reader accepts: the size of the first version of
// the struct ends at `struct_size` itself plus whatever the caller requires.
// Returns false (and leaves *out zeroed) when p is NULL or its struct_size is
// smaller than `min_size`.
template <class T>
bool ReadVersioned(const T* p, T* out, size_t min_size = sizeof(size_t)) {
  static_assert(std::is_trivially_copyable<T>::value, "ABI structs are plain C structs");
  std::memset(out, 0, sizeof(T));
  if (p == nullptr || p->struct_size < min_size) return false;
  size_t n = p->struct_size < sizeof(T) ? p->struct_size : sizeof(T);
  std::memcpy(static_cast<void*>(out), static_cast<const void*>(p), n);
  out->struct_size = n;  // what the writer provided (capped at what we know)
  return true;
}

}  // namespace teplug::sdk

#endif  // TEPLUG_SDK_STRUCT_IO_HPP_
