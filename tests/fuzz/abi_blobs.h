// ABI structs built from fuzz bytes, in memory laid out as a plugin or a
// caller would hand them to the host — and no larger.
//
// Every struct is its own heap allocation of exactly the struct_size it
// claims (at least the struct_size field itself), so AddressSanitizer
// reports any host read past what the writer declared. Pointer fields never
// come from the fuzz bytes: the decoder sets each one to NULL or to another
// structure it decoded (or to fuzz-owned scratch memory for data pointers),
// so the fuzzer explores validation rather than wild pointers.
//
// Byte format of one struct T (DecodeStruct):
//   u8 size code   0: sizeof(T); 1..254: that many bytes; 255: a u32
//                  struct_size (allocated as min(that, sizeof(T) + 64))
//   sizeof(T) raw bytes, the struct's fields as the machine lays them out
//                  (struct_size and pointer fields are overwritten)
//   then whatever the struct's pointer fields decode (see the callers).
#ifndef TEPLUG_TESTS_FUZZ_ABI_BLOBS_H_
#define TEPLUG_TESTS_FUZZ_ABI_BLOBS_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "teplug/teplug.h"
#include "tests/fuzz/fuzz_input.h"

namespace teplug::fuzz {

// Owns every allocation made while decoding one input.
class BlobArena {
 public:
  // `size` bytes (at least sizeof(size_t)), zeroed, aligned for any ABI struct.
  void* Allocate(size_t size) {
    if (size < sizeof(size_t)) size = sizeof(size_t);
    // operator new[] aligns to 16 bytes; ASan's redzone starts right after
    // the `size` bytes, so a read past them is reported.
    blocks_.push_back(std::unique_ptr<unsigned char[]>(new unsigned char[size]()));
    return blocks_.back().get();
  }

 private:
  std::vector<std::unique_ptr<unsigned char[]>> blocks_;
};

// The struct_size a decoded struct of type T claims.
template <class T>
size_t DecodeStructSize(FuzzInput& in, size_t* allocate) {
  const uint8_t code = in.Take<uint8_t>();
  size_t claimed = sizeof(T);
  if (code == 255) {
    claimed = in.Take<uint32_t>();
  } else if (code != 0) {
    claimed = code;
  }
  *allocate = claimed < sizeof(T) + 64 ? claimed : sizeof(T) + 64;
  return claimed;
}

// Decodes one T: its claimed size, its raw fields, then `fix_pointers(T&)`
// (which reads the pointed-to structures from `in` and stores them), and
// copies the result into an allocation of the claimed size.
template <class T, class FixPointers>
T* DecodeStruct(FuzzInput& in, BlobArena& arena, FixPointers fix_pointers) {
  static_assert(std::is_trivially_copyable<T>::value, "ABI structs are plain C structs");
  size_t allocate = 0;
  const size_t claimed = DecodeStructSize<T>(in, &allocate);
  T value;
  in.TakeBytes(&value, sizeof value);
  value.struct_size = claimed;
  fix_pointers(value);
  void* blob = arena.Allocate(allocate);
  std::memcpy(blob, &value, allocate < sizeof value ? allocate : sizeof value);
  if (allocate < sizeof(size_t)) std::memcpy(blob, &claimed, sizeof(size_t));
  return static_cast<T*>(blob);
}

// A struct without pointer fields.
template <class T>
T* DecodePlainStruct(FuzzInput& in, BlobArena& arena) {
  return DecodeStruct<T>(in, arena, [](T&) {});
}

// Decodes a capability descriptor for `layout` (the struct type written;
// a plugin may hand a descriptor of the wrong type) with its device list.
//
// Format: u8 layout (mod 4: gemm, attention, quantizer, collective caps),
// the struct (DecodeStruct), then the device list:
//   u8 num_devices (stored as is: counts above the host's limit included)
//   u8 present      0: devices is NULL
//   u8 stride code  0: sizeof(TeplugDeviceSupport), else that many bytes
//   per element (num_devices of them, or one when num_devices is above 64):
//     sizeof(TeplugDeviceSupport) raw bytes, u8 size flag (0: struct_size is
//     the stride; else the raw struct_size is kept, except in element 0,
//     whose struct_size is the stride by definition)
const void* DecodeCapability(FuzzInput& in, BlobArena& arena);

// A data pointer: u8 block, u8 offset -> NULL when both are zero, else a
// pointer into 4096-aligned scratch memory at (block + extra_blocks) * 256 +
// offset, so the fuzz bytes choose its alignment class. `extra_blocks`
// (< 256) moves it by whole 256-byte blocks. The code under test never
// dereferences data pointers; the memory is real in case it ever does.
void* DecodeDataPointer(FuzzInput& in, size_t extra_blocks = 0);

}  // namespace teplug::fuzz

#endif  // TEPLUG_TESTS_FUZZ_ABI_BLOBS_H_
