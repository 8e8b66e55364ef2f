// Reading and validating capability descriptors, for interface modules:
// every field a plugin hands the host is checked once at registration
// (struct sizes, known bits only, sane ranges), so selection can trust the
// copy (Capability) and explain refusals without calling back.
#ifndef TEPLUG_CORE_OPS_CAPABILITY_READER_H_
#define TEPLUG_CORE_OPS_CAPABILITY_READER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "core/ops/interface_module.h"
#include "teplug/sdk/struct_io.hpp"
#include "teplug/teplug.h"

namespace teplug::core {

// Bits 0..count-1.
constexpr uint64_t MaskBelow(int count) { return count >= 64 ? ~uint64_t{0} : ((uint64_t{1} << count) - 1); }

// A bit mask: no bit outside `known`, and (when `required`) not empty.
absl::Status CheckBits(const char* strct, const char* field, uint64_t value, uint64_t known, bool required);
// A dtype mask (bit 0, TEPLUG_DTYPE_INVALID, is never a valid claim).
absl::Status CheckDtypes(const char* strct, const char* field, uint64_t value, bool required);
absl::Status CheckNonNegative(const char* strct, const char* field, int64_t value);
// Copies and validates the device list every descriptor starts with.
absl::Status ReadDevices(const char* strct, const TeplugDeviceSupport* devices, size_t num_devices,
                         std::vector<TeplugDeviceSupport>* out);

// Reads a descriptor of type Caps (v1 size `required`), copies its device
// list, validates it with `validate(const Caps&) -> absl::Status`, and keeps
// a complete copy whose `devices` pointer is NULL (the list is
// Capability::devices).
template <class Caps, class Validate>
absl::StatusOr<Capability> ReadCaps(const InterfaceModule& module, const char* strct, const void* raw,
                                    size_t required, Validate validate) {
  if (raw == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrFormat("the capability descriptor of %s is NULL", module.display_name()));
  }
  Caps caps;
  const Caps* p = static_cast<const Caps*>(raw);
  if (!sdk::ReadVersioned(p, &caps, required)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.struct_size %d < %d required", strct, p->struct_size, required));
  }
  Capability out;
  out.module = &module;
  absl::Status st = ReadDevices(strct, caps.devices, caps.num_devices, &out.devices);
  if (!st.ok()) return st;
  st = validate(caps);
  if (!st.ok()) return st;
  caps.struct_size = sizeof(Caps);  // our copy is complete (missing fields read as 0)
  caps.devices = nullptr;           // never plugin memory
  out.caps = std::make_shared<const Caps>(caps);
  out.caps_size = sizeof(Caps);
  return out;
}

// The named function pointers of a table, for CheckFunctionTable.
struct TableFunction {
  const char* name;
  size_t offset;  // in the vtbl struct
};

// A plugin object's function table: non-NULL, struct_size at least `v1_size`,
// the base functions and `functions` non-NULL. A message naming the table
// and field, or nullopt.
std::optional<std::string> CheckFunctionTable(const char* table, const TeplugObject* object, size_t v1_size,
                                              std::initializer_list<TableFunction> functions);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_CAPABILITY_READER_H_
