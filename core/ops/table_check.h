// The static capability check of an op's tensors, generated from its field
// table: each tensor field's dtype (Field::caps_dtypes), scaling mode
// (Field::caps_scaling) and alignment (kCheckAlign) against the caps struct.
// It runs for every candidate of every selection, so the table is walked at
// compile time and only the fields that carry a check become code.
#ifndef TEPLUG_CORE_OPS_TABLE_CHECK_H_
#define TEPLUG_CORE_OPS_TABLE_CHECK_H_

#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>

#include "core/ops/field_table.h"
#include "core/ops/refusal.h"
#include "teplug/teplug.h"

namespace teplug::core {
namespace check_internal {

template <class T>
inline T Load(const void* base, size_t offset) {
  T v;
  std::memcpy(&v, static_cast<const char*>(base) + offset, sizeof v);
  return v;
}

struct Found {
  std::optional<Refusal> dtype, scaling, aligned;
};

template <const auto& kFields, size_t I>
inline void CheckField(const void* caps, const void* args, int64_t alignment, Found& found) {
  constexpr Field f = kFields[I];
  constexpr bool kChecked =
      f.role == FieldRole::kTensor && (f.caps_dtypes != kNone || f.caps_scaling != kNone || (f.flags & kCheckAlign));
  if constexpr (kChecked) {
    if (found.dtype) return;
    const void* base = args;
    if constexpr (f.via != kNone) base = Load<const void*>(args, f.via);
    if (base == nullptr) return;
    const auto* t = Load<const TeplugTensor*>(base, f.offset);
    if (t == nullptr) return;
    if constexpr (f.caps_dtypes != kNone) {
      found.dtype = CheckDType(f.Label(), t->dtype, Load<uint64_t>(caps, f.caps_dtypes));
      if (found.dtype) return;
    }
    if constexpr (f.caps_scaling != kNone) {
      if (!found.scaling) found.scaling = CheckScaling(f.Label(), t, Load<uint32_t>(caps, f.caps_scaling));
    }
    if constexpr ((f.flags & kCheckAlign) != 0) {
      if (!found.aligned && alignment > 1) found.aligned = CheckAlignment(f.Label(), t, alignment);
    }
  }
}

template <const auto& kFields, size_t... I>
inline Found CheckFields(const void* caps, const void* args, int64_t alignment, std::index_sequence<I...>) {
  Found found;
  (CheckField<kFields, I>(caps, args, alignment, found), ...);
  return found;
}

}  // namespace check_internal

// The first refusal: a dtype refusal wins over a scaling-mode one, which
// wins over an alignment one (each the first in table order). `alignment` is
// the caps' alignment in bytes (0 or 1: none).
template <const auto& kFields>
std::optional<Refusal> CheckTensorsFromTable(const void* caps, const void* args, int64_t alignment = 0) {
  constexpr size_t kN = sizeof(kFields) / sizeof(kFields[0]);
  check_internal::Found found =
      check_internal::CheckFields<kFields>(caps, args, alignment, std::make_index_sequence<kN>());
  if (found.dtype) return found.dtype;
  if (found.scaling) return found.scaling;
  return found.aligned;
}

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_TABLE_CHECK_H_
