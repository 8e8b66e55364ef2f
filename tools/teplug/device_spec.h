// Device spellings on the command line: one device (`--device opencl:0`) and
// one device per rank (`teplug run --devices cpu,opencl:0`). A kind is a
// built-in name (cpu, cuda, opencl), a vendor kind number or a kind name a
// loaded provider declares (core::DeviceNames), optionally with :ORDINAL.
#ifndef TEPLUG_TOOLS_TEPLUG_DEVICE_SPEC_H_
#define TEPLUG_TOOLS_TEPLUG_DEVICE_SPEC_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/kernel/device_names.h"
#include "teplug/types.h"

namespace teplug::cli {

// Parses "cpu", "cuda", "cuda:1", "opencl:0", a vendor kind number
// ("1024:0", "vendor1024:0") or a declared kind name ("gaudi:0") into kind
// and ordinal (0 when not given). Errors quote `text` and say it was the
// value of `flag`.
absl::StatusOr<TeplugDevice> ParseDevice(const std::string& text, const core::DeviceNames& names,
                                         const std::string& flag = "--device");

// Parses `--devices`' comma list, one device per rank: exactly `ranks`
// entries, each as ParseDevice takes it. Errors name the entry (its position
// and text) or the count mismatch, giving both numbers.
absl::StatusOr<std::vector<TeplugDevice>> ParseDeviceList(const std::string& text, int ranks,
                                                          const core::DeviceNames& names);

// "cpu:0", "opencl:0", "gaudi:1": how the command line spells `device`.
std::string DeviceSpelling(const TeplugDevice& device, const core::DeviceNames& names);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_DEVICE_SPEC_H_
