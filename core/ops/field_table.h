// The field table: one entry per field of an op's args struct, saying what
// the core does with it. Everything the core derives from an op's args —
// argument validation, the op's device, config facts, the static
// capability check of tensors, the decision cache's key — is read from this
// table, so the key cannot drift from what selection reads: a field that
// selection reads (kSelected) and the key leaves out fails to compile
// (TableIsWellFormed, below, asserted where the key is built).
//
// Tables are constexpr arrays of Field, built with the factories at the end
// (TensorField(...).Fact("a_dtype") ...).
#ifndef TEPLUG_CORE_OPS_FIELD_TABLE_H_
#define TEPLUG_CORE_OPS_FIELD_TABLE_H_

#include <cstddef>
#include <cstdint>

namespace teplug::core {

enum class FieldRole : uint8_t {
  kTensor,     // const TeplugTensor*
  kStruct,     // pointer to a versioned sub-struct; its fields follow with `via`
  kInt32,      // int32_t, TeplugBool and enums
  kInt64,
  kFloat,
  kPresence,   // a pointer whose presence, not its target, matters
  kWorkspace,  // void* workspace; the size_t size follows it
  kPerCall,    // read by the implementation only: data pointers, seeds, scales, stream
};

// Field flags.
inline constexpr uint32_t kRequired = 1u << 0;     // tensor/struct: must not be NULL
inline constexpr uint32_t kDeviceFrom = 1u << 1;   // tensor: may name the op's device (first wins)
inline constexpr uint32_t kKeyShape = 1u << 2;     // tensor: its shape is in the key
inline constexpr uint32_t kKeyed = 1u << 3;        // scalar/presence: in the key
inline constexpr uint32_t kSelected = 1u << 4;     // read by selection: must be keyed
inline constexpr uint32_t kCheckAlign = 1u << 5;   // tensor: checked against the caps' alignment
inline constexpr uint32_t kKeyPresence = 1u << 6;  // tensor: only whether it is given is keyed

// "No offset" for via/caps offsets.
inline constexpr size_t kNone = ~size_t{0};

struct Field {
  const char* name = "";         // "a", "params.head_dim_qk"
  FieldRole role = FieldRole::kPerCall;
  uint32_t flags = 0;
  size_t offset = 0;             // in the args struct, or in the struct `via` points at
  size_t via = kNone;            // args offset of the pointer to the sub-struct holding the field
  const char* fact = nullptr;    // the config fact it feeds ("a_dtype", "head_dim"), or none
  const char* fact_doc = "";     // what that fact is, for docs and messages
  const char* label = nullptr;   // how capability refusals name it ("A"); default `name`
  size_t caps_dtypes = kNone;    // tensor: offset of the uint64_t dtype mask in the caps struct
  size_t caps_scaling = kNone;   // tensor: offset of the uint32_t scaling-mode mask in the caps struct
  size_t struct_v1_size = 0;     // kStruct: the v1 size its struct_size must reach
  const char* struct_name = "";  // kStruct: "TeplugAttentionParams"
  int32_t enum_count = 0;        // kInt32 enums: valid values are [0, enum_count)
  const char* (*enum_name)(int32_t) = nullptr;  // and their names (facts, messages)
  const char* enum_type = nullptr;  // when set, describe refuses values outside [0, enum_count)
  // A scalar of the args struct added after v1.0: the struct_size that holds
  // it. Readers take it as 0 from a shorter struct. 0: in the v1.0 layout.
  size_t since_size = 0;

  constexpr Field Fact(const char* f, const char* doc) const {
    Field x = *this;
    x.fact = f;
    x.fact_doc = doc;
    x.flags |= kSelected;
    return x;
  }
  constexpr Field Label(const char* l) const { Field x = *this; x.label = l; return x; }
  constexpr Field DTypes(size_t caps_offset) const {
    Field x = *this; x.caps_dtypes = caps_offset; x.flags |= kSelected; return x;
  }
  constexpr Field Scaling(size_t caps_offset) const {
    Field x = *this; x.caps_scaling = caps_offset; x.flags |= kSelected; return x;
  }
  constexpr Field Via(size_t pointer_offset) const { Field x = *this; x.via = pointer_offset; return x; }
  constexpr Field Enum(int32_t count, const char* (*names)(int32_t), const char* type = nullptr) const {
    Field x = *this; x.enum_count = count; x.enum_name = names; x.enum_type = type; return x;
  }
  constexpr Field Selected() const { Field x = *this; x.flags |= kSelected; return x; }
  constexpr Field Since(size_t struct_size) const {
    Field x = *this;
    x.since_size = struct_size;
    return x;
  }
  const char* Label() const { return label != nullptr ? label : name; }
};

constexpr Field TensorField(const char* name, size_t offset, uint32_t flags = 0) {
  Field f;
  f.name = name;
  f.role = FieldRole::kTensor;
  f.offset = offset;
  f.flags = flags;
  return f;
}
constexpr Field StructField(const char* name, size_t offset, const char* struct_name, size_t v1_size) {
  Field f;
  f.name = name;
  f.role = FieldRole::kStruct;
  f.offset = offset;
  f.flags = kRequired;
  f.struct_name = struct_name;
  f.struct_v1_size = v1_size;
  return f;
}
// A scalar in the key (the usual case: selection may depend on it).
constexpr Field ScalarField(const char* name, FieldRole role, size_t offset) {
  Field f;
  f.name = name;
  f.role = role;
  f.offset = offset;
  f.flags = kKeyed;
  return f;
}
constexpr Field PresenceField(const char* name, size_t offset) {
  Field f;
  f.name = name;
  f.role = FieldRole::kPresence;
  f.offset = offset;
  f.flags = kKeyed;
  return f;
}
constexpr Field WorkspaceField(size_t offset) {
  Field f;
  f.name = "workspace";
  f.role = FieldRole::kWorkspace;
  f.offset = offset;
  return f;
}
// Read by the implementation only (the key promises `supports` nothing about it).
constexpr Field PerCallField(const char* name, size_t offset) {
  Field f;
  f.name = name;
  f.role = FieldRole::kPerCall;
  f.offset = offset;
  return f;
}

constexpr bool IsScalar(FieldRole r) {
  return r == FieldRole::kInt32 || r == FieldRole::kInt64 || r == FieldRole::kFloat;
}
constexpr size_t ScalarBytes(FieldRole r) { return r == FieldRole::kInt64 ? 8 : 4; }

// Whether a table is well formed: every field selection reads is keyed
// (tensors always are; scalars and presences need kKeyed), every `via`
// follows the struct field it points through, offsets are distinct, and a
// versioned field (Since) is a 4-byte scalar of the args struct.
template <size_t N>
constexpr bool TableIsWellFormed(const Field (&fields)[N]) {
  for (size_t i = 0; i < N; ++i) {
    const Field& f = fields[i];
    if ((f.flags & kSelected) && f.role == FieldRole::kPerCall) return false;
    if ((f.flags & kSelected) && (IsScalar(f.role) || f.role == FieldRole::kPresence) && !(f.flags & kKeyed)) {
      return false;
    }
    // Only top-level 4-byte scalars are versioned (the readers check the args' struct_size).
    if (f.since_size != 0 && (f.via != kNone || !IsScalar(f.role) || ScalarBytes(f.role) != 4 ||
                              f.since_size < f.offset + 4)) {
      return false;
    }
    if (f.via != kNone) {
      bool found = false;
      for (size_t j = 0; j < i; ++j) found = found || (fields[j].role == FieldRole::kStruct && fields[j].offset == f.via);
      if (!found) return false;
    }
    for (size_t j = 0; j < i; ++j) {
      if (fields[j].offset == f.offset && fields[j].via == f.via) return false;
    }
  }
  return true;
}

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_FIELD_TABLE_H_
