// A capability descriptor's fields as data, for `teplug list`: each interface
// module lists the fields its descriptor has after the device list (a
// CapsField table), and CapabilityFields (interface_module.h) reads any
// descriptor through its module's table, so the listing shows every field of
// every interface without naming one. CoversDescriptor checks at compile time
// that a table names every byte of its struct: a field added to a descriptor
// and not to its table does not compile.
#ifndef TEPLUG_CORE_OPS_CAPABILITY_FIELDS_H_
#define TEPLUG_CORE_OPS_CAPABILITY_FIELDS_H_

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

namespace teplug::core {

enum class CapsFieldKind : uint8_t {
  kDTypes,    // uint64_t, a TEPLUG_DTYPE_BIT set
  kBits,      // uint32_t, a bit set whose bits `bit_name` names
  kLimit,     // int64_t; 0 means what `zero` says
  kReserved,  // uint32_t that must be zero: not listed
};

// One field of a descriptor struct after its device list.
struct CapsField {
  const char* name = "";
  CapsFieldKind kind = CapsFieldKind::kReserved;
  size_t offset = 0;                            // in the descriptor struct
  int bit_count = 0;                            // kBits: bits [0, bit_count) may be set
  const char* (*bit_name)(int32_t) = nullptr;   // kBits: a bit's name, or NULL for none
  const char* zero = "";                        // kLimit: what 0 means ("unbounded")
};

constexpr CapsField DTypesCapsField(const char* name, size_t offset) {
  return {name, CapsFieldKind::kDTypes, offset};
}
constexpr CapsField BitsCapsField(const char* name, size_t offset, int bit_count,
                                  const char* (*bit_name)(int32_t)) {
  return {name, CapsFieldKind::kBits, offset, bit_count, bit_name};
}
constexpr CapsField LimitCapsField(const char* name, size_t offset, const char* zero) {
  return {name, CapsFieldKind::kLimit, offset, 0, nullptr, zero};
}
constexpr CapsField ReservedCapsField(const char* name, size_t offset) {
  return {name, CapsFieldKind::kReserved, offset};
}

// The name at `i` of a constexpr array of names, or NULL past its end: a
// bit_name for bits named by a module's own array.
template <const auto& kNames>
const char* NameIn(int32_t i) {
  return i >= 0 && static_cast<size_t>(i) < std::size(kNames) ? kNames[i] : nullptr;
}

constexpr size_t CapsFieldBytes(CapsFieldKind k) {
  return k == CapsFieldKind::kBits || k == CapsFieldKind::kReserved ? 4 : 8;
}

// Whether `fields` name every byte of the descriptor struct `Caps` after its
// device list (struct_size, devices, num_devices) once: no field missing, none
// overlapping, none past the end.
template <class Caps, size_t N>
constexpr bool CoversDescriptor(const CapsField (&fields)[N]) {
  const size_t start = offsetof(Caps, num_devices) + sizeof(size_t);
  size_t total = 0;
  for (size_t i = 0; i < N; ++i) {
    const size_t begin = fields[i].offset, end = begin + CapsFieldBytes(fields[i].kind);
    if (begin < start || end > sizeof(Caps)) return false;
    for (size_t j = 0; j < i; ++j) {
      const size_t other = fields[j].offset;
      if (begin < other + CapsFieldBytes(fields[j].kind) && other < end) return false;
    }
    total += end - begin;
  }
  return total == sizeof(Caps) - start;
}

// One field of a descriptor as read, for `teplug list`: a set (the names of
// its bits, or the device list) or a number.
struct CapabilityField {
  std::string name;  // the descriptor's field: "a_dtypes", "max_dim"; "devices" for the list
  bool is_set = false;
  std::vector<std::string> members;  // a set's members, in bit order ("bit N" for an unnamed bit)
  int64_t number = 0;
  std::string zero_means;  // a number's meaning of 0 ("unbounded"), or ""

  // "fp32, bf16", "none" for an empty set, "128", "0 (unbounded)".
  std::string Text() const;
};

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_CAPABILITY_FIELDS_H_
