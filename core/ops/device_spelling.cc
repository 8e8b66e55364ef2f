#include "core/ops/device_spelling.h"

#include "absl/strings/str_cat.h"
#include "core/ops/refusal.h"
#include "teplug/sdk/names.hpp"

namespace teplug::core {

std::string DeviceSpelling::KindSpelling(int32_t kind) const { return sdk::DeviceKindName(kind); }

std::string DeviceSpelling::VendorSpelling(uint32_t vendor_id) const { return VendorName(vendor_id); }

std::string DeviceSpelling::Label(const TeplugDevice& d) const {
  std::string s = absl::StrCat(KindSpelling(d.kind), ":", d.ordinal);
  const std::string vendor = VendorSpelling(d.vendor_id);
  if (!vendor.empty() || d.arch != 0) {
    absl::StrAppend(&s, " (", vendor.empty() ? "any vendor" : vendor);
    if (d.arch != 0) absl::StrAppend(&s, ", arch ", d.arch);
    absl::StrAppend(&s, ")");
  }
  return s;
}

const DeviceSpelling& AbiDeviceSpelling() {
  static const DeviceSpelling kAbi;
  return kAbi;
}

}  // namespace teplug::core
