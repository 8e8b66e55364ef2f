// How an op's device is spelled in its description (facts and summary):
// the ABI's spelling ("vendor1100:0", vendor "0x1da3") unless providers
// declared names for their vendor device kinds and vendor ids, which the
// kernel's DeviceNames (core/kernel/device_names.h) supplies. The describe
// step takes one, so an op's facts and summary are built once, with the
// names the config and records use.
#ifndef TEPLUG_CORE_OPS_DEVICE_SPELLING_H_
#define TEPLUG_CORE_OPS_DEVICE_SPELLING_H_

#include <cstdint>
#include <string>

#include "teplug/types.h"

namespace teplug::core {

class DeviceSpelling {
 public:
  virtual ~DeviceSpelling() = default;
  // A device kind: "cpu", "cuda", "vendor1100", or its declared name.
  virtual std::string KindSpelling(int32_t kind) const;
  // A vendor id: "nvidia", "0x1da3", "" for any vendor, or its declared name.
  virtual std::string VendorSpelling(uint32_t vendor_id) const;
  // A device as records show it, from the two above: "cuda:0 (nvidia, arch
  // 90)", "gaudi:0 (habana)".
  std::string Label(const TeplugDevice& device) const;
};

// The ABI's spelling: no declared names.
const DeviceSpelling& AbiDeviceSpelling();

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_DEVICE_SPELLING_H_
