// Reading a descriptor through its module's CapsField table.
#include "core/ops/capability_fields.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/ops/interface_module.h"
#include "core/ops/refusal.h"
#include "teplug/sdk/names.hpp"

namespace teplug::core {
namespace {

template <class T>
T Read(const Capability& cap, size_t offset) {
  T v;
  std::memcpy(&v, static_cast<const char*>(cap.caps.get()) + offset, sizeof v);
  return v;
}

std::vector<std::string> Members(uint64_t mask, int count, const char* (*name)(int32_t)) {
  std::vector<std::string> out;
  for (int bit = 0; bit < count && bit < 64; ++bit) {
    if (!(mask & (uint64_t{1} << bit))) continue;
    const char* n = name(bit);
    out.push_back(n != nullptr ? n : absl::StrCat("bit ", bit));
  }
  return out;
}

const char* DTypeBitName(int32_t bit) { return sdk::DTypeName(bit); }

}  // namespace

std::string CapabilityField::Text() const {
  if (is_set) return members.empty() ? "none" : absl::StrJoin(members, ", ");
  if (number == 0 && !zero_means.empty()) return absl::StrCat("0 (", zero_means, ")");
  return absl::StrCat(number);
}

std::vector<CapabilityField> CapabilityFields(const Capability& cap) {
  std::vector<CapabilityField> out;
  CapabilityField devices;
  devices.name = "devices";
  devices.is_set = true;
  for (const TeplugDeviceSupport& s : cap.devices) devices.members.push_back(DeviceSupportLabel(s));
  out.push_back(std::move(devices));
  for (const CapsField& f : cap.module->CapabilityFieldTable()) {
    CapabilityField field;
    field.name = f.name;
    switch (f.kind) {
      case CapsFieldKind::kDTypes:
        field.is_set = true;
        field.members = Members(Read<uint64_t>(cap, f.offset), TEPLUG_DTYPE_COUNT_, &DTypeBitName);
        break;
      case CapsFieldKind::kBits:
        field.is_set = true;
        field.members = Members(Read<uint32_t>(cap, f.offset), f.bit_count, f.bit_name);
        break;
      case CapsFieldKind::kLimit:
        field.number = Read<int64_t>(cap, f.offset);
        field.zero_means = f.zero;
        break;
      case CapsFieldKind::kReserved:
        continue;
    }
    out.push_back(std::move(field));
  }
  return out;
}

}  // namespace teplug::core
