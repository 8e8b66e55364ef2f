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

// Field I's tensor (a tensor field), or null when it or its struct is absent.
template <const auto& kFields, size_t I>
inline const TeplugTensor* TensorOf(const void* args) {
  constexpr Field f = kFields[I];
  const void* base = args;
  if constexpr (f.via != kNone) base = Load<const void*>(args, f.via);
  return base == nullptr ? nullptr : Load<const TeplugTensor*>(base, f.offset);
}

// True when field I's dtype check refuses its tensor, with the field and
// the tensor in *field and *t. Tested inline: most tensors of most
// candidates pass, and a refusal is built only for the one that does not.
template <const auto& kFields, size_t I>
inline bool DTypeRefused(const void* caps, const void* args, const Field** field, const TeplugTensor** t) {
  constexpr Field f = kFields[I];
  if constexpr (f.role == FieldRole::kTensor && f.caps_dtypes != kNone) {
    const TeplugTensor* tensor = TensorOf<kFields, I>(args);
    if (tensor == nullptr || DTypeAllowed(tensor->dtype, Load<uint64_t>(caps, f.caps_dtypes))) return false;
    *field = &kFields[I];
    *t = tensor;
    return true;
  } else {
    return false;
  }
}

// The first field in table order whose dtype check refuses, with its
// tensor in *t; null when none does.
template <const auto& kFields, size_t... I>
inline const Field* FirstDTypeRefused(const void* caps, const void* args, const TeplugTensor** t,
                                      std::index_sequence<I...>) {
  const Field* field = nullptr;
  (DTypeRefused<kFields, I>(caps, args, &field, t) || ...);
  return field;
}

// The scaling-mode and alignment checks, in the order their refusals win.
enum class Pass { kScaling, kAlignment };

// Whether field f carries a check of kind kPass.
template <Pass kPass>
constexpr bool Checks(const Field& f) {
  return f.role == FieldRole::kTensor &&
         (kPass == Pass::kScaling ? f.caps_scaling != kNone : (f.flags & kCheckAlign) != 0);
}

// Field I's check of kind kPass. True when it refused, with the refusal in
// *out; false when it passed or the field has no such check.
template <const auto& kFields, Pass kPass, size_t I>
inline bool CheckField(const void* caps, const void* args, int64_t alignment, std::optional<Refusal>* out) {
  constexpr Field f = kFields[I];
  if constexpr (Checks<kPass>(f)) {
    const TeplugTensor* t = TensorOf<kFields, I>(args);
    if (t == nullptr) return false;
    if constexpr (kPass == Pass::kScaling) {
      *out = CheckScaling(f.Label(), t, Load<uint32_t>(caps, f.caps_scaling));
    } else {
      if (alignment <= 1) return false;
      *out = CheckAlignment(f.Label(), t, alignment);
    }
    return out->has_value();
  } else {
    return false;
  }
}

// The first refusal of kind kPass in table order.
template <const auto& kFields, Pass kPass, size_t... I>
inline bool CheckFields(const void* caps, const void* args, int64_t alignment, std::optional<Refusal>* out,
                        std::index_sequence<I...>) {
  return (CheckField<kFields, kPass, I>(caps, args, alignment, out) || ...);
}

// Whether any field carries a scaling-mode or alignment check.
template <const auto& kFields, size_t... I>
constexpr bool AnyChecks(std::index_sequence<I...>) {
  return ((Checks<Pass::kScaling>(kFields[I]) || Checks<Pass::kAlignment>(kFields[I])) || ...);
}

}  // namespace check_internal

// The first refusal: a dtype refusal wins over a scaling-mode one, which
// wins over an alignment one (each the first in table order). `alignment` is
// the caps' alignment in bytes (0 or 1: none).
template <const auto& kFields>
std::optional<Refusal> CheckTensorsFromTable(const void* caps, const void* args, int64_t alignment = 0) {
  using check_internal::Pass;
  constexpr auto kAll = std::make_index_sequence<sizeof(kFields) / sizeof(kFields[0])>();
  const TeplugTensor* t = nullptr;
  if (const Field* f = check_internal::FirstDTypeRefused<kFields>(caps, args, &t, kAll)) {
    return CheckDType(f->Label(), t->dtype, check_internal::Load<uint64_t>(caps, f->caps_dtypes));
  }
  if constexpr (check_internal::AnyChecks<kFields>(kAll)) {
    std::optional<Refusal> r;
    if (!check_internal::CheckFields<kFields, Pass::kScaling>(caps, args, alignment, &r, kAll)) {
      check_internal::CheckFields<kFields, Pass::kAlignment>(caps, args, alignment, &r, kAll);
    }
    return r;
  } else {
    (void)alignment;
    return std::nullopt;
  }
}

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_TABLE_CHECK_H_
