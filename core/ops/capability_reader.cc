// Reading and validating capability descriptors: every field a plugin hands
// us is checked once here (struct sizes, known bits only, sane ranges), so
// selection can trust the copy and explain rejections without calling back.
#include "core/ops/capability_reader.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::core {
namespace {

// More device entries than any real implementation needs; a larger count is
// far more likely garbage than intent, and bounds what we copy.
constexpr size_t kMaxDevices = 64;

// The largest device-array stride (devices[0].struct_size) accepted: room
// for TeplugDeviceSupport to grow tenfold. It bounds how far past the
// array's start we read (kMaxDevices * kMaxDeviceStride bytes), so a huge
// or wrapping struct_size is refused instead of sending us to an address
// outside the plugin's array.
constexpr size_t kMaxDeviceStride = 256;

}  // namespace

absl::Status CheckBits(const char* strct, const char* field, uint64_t value, uint64_t known,
                       bool required) {
  if ((value & ~known) != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.%s 0x%x sets unknown bits 0x%x (known bits are 0x%x)", strct, field, value,
        value & ~known, known));
  }
  if (required && value == 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.%s is 0: at least one value must be set", strct, field));
  }
  return absl::OkStatus();
}

absl::Status CheckDtypes(const char* strct, const char* field, uint64_t value, bool required) {
  constexpr uint64_t kKnown = MaskBelow(TEPLUG_DTYPE_COUNT_) & ~TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_INVALID);
  return CheckBits(strct, field, value, kKnown, required);
}

absl::Status CheckNonNegative(const char* strct, const char* field, int64_t value) {
  if (value < 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.%s is %d: must be >= 0", strct, field, value));
  }
  return absl::OkStatus();
}

absl::Status ReadDevices(const char* strct, const TeplugDeviceSupport* devices, size_t num_devices,
                         std::vector<TeplugDeviceSupport>* out) {
  if (num_devices == 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.num_devices is 0: list at least one device (TEPLUG_DEVICE_ANY matches every kind)",
        strct));
  }
  if (num_devices > kMaxDevices) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.num_devices %d > %d allowed", strct, num_devices, kMaxDevices));
  }
  if (devices == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.num_devices is %d but devices is NULL", strct, num_devices));
  }
  constexpr size_t kRequired = TEPLUG_STRUCT_SIZE(TeplugDeviceSupport, arch_max);
  // The array's stride is the writer's sizeof(TeplugDeviceSupport), carried
  // by devices[0].struct_size (capability.h), so a list written by a newer
  // plugin with a larger element stays readable.
  const size_t stride = devices[0].struct_size;
  if (stride < kRequired || stride > kMaxDeviceStride || stride % alignof(TeplugDeviceSupport) != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.devices[0].struct_size %d: must be >= %d, <= %d and a multiple of %d (it is the array stride)",
        strct, stride, kRequired, kMaxDeviceStride, alignof(TeplugDeviceSupport)));
  }
  const auto* base = reinterpret_cast<const unsigned char*>(devices);
  out->clear();
  out->reserve(num_devices);
  for (size_t i = 0; i < num_devices; ++i) {
    TeplugDeviceSupport d;
    const auto* element = reinterpret_cast<const TeplugDeviceSupport*>(base + i * stride);
    if (element->struct_size != stride) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s.devices[%d].struct_size %d differs from devices[0].struct_size %d (the array stride)",
                          strct, i, element->struct_size, stride));
    }
    sdk::ReadVersioned(element, &d, kRequired);
    const bool known_kind = (d.kind >= TEPLUG_DEVICE_ANY && d.kind <= TEPLUG_DEVICE_OPENCL) ||
                            d.kind >= TEPLUG_DEVICE_VENDOR_BASE;
    if (!known_kind) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s.devices[%d].kind %d is neither a known kind (0-3) nor vendor-defined (>= %d)",
          strct, i, d.kind, static_cast<int>(TEPLUG_DEVICE_VENDOR_BASE)));
    }
    if (d.arch_min < 0 || d.arch_max < 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s.devices[%d] arch_min %d / arch_max %d: must be >= 0 (0 = no bound)",
                          strct, i, d.arch_min, d.arch_max));
    }
    if (d.arch_min > 0 && d.arch_max > 0 && d.arch_min > d.arch_max) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s.devices[%d].arch_min %d > arch_max %d", strct, i, d.arch_min, d.arch_max));
    }
    // Our copy is a full current-version struct.
    d.struct_size = sizeof(TeplugDeviceSupport);
    out->push_back(d);
  }
  return absl::OkStatus();
}

}  // namespace teplug::core

namespace teplug::core {

std::optional<std::string> CheckFunctionTable(const char* table, const TeplugObject* object, size_t v1_size,
                                              std::initializer_list<TableFunction> functions) {
  if (object == nullptr) return "object is NULL";
  if (object->vtbl == nullptr) return "object's vtbl is NULL";
  const size_t size = object->vtbl->struct_size;
  if (size < v1_size) {
    return absl::StrCat(table, ".struct_size ", size, " < ", v1_size,
                        " required (the function table is too small for the interface)");
  }
  const auto* base = reinterpret_cast<const char*>(object->vtbl);
  auto null_at = [&](size_t offset) {
    const void* fn = nullptr;
    std::memcpy(&fn, base + offset, sizeof fn);
    return fn == nullptr;
  };
  for (TableFunction f : {TableFunction{"query_interface", offsetof(TeplugObjectVtbl, query_interface)},
                          TableFunction{"add_ref", offsetof(TeplugObjectVtbl, add_ref)},
                          TableFunction{"release", offsetof(TeplugObjectVtbl, release)}}) {
    if (null_at(f.offset)) return absl::StrCat(table, ".", f.name, " is NULL");
  }
  for (const TableFunction& f : functions) {
    if (null_at(f.offset)) return absl::StrCat(table, ".", f.name, " is NULL");
  }
  return std::nullopt;
}

}  // namespace teplug::core
