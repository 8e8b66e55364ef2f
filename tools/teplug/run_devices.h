// Where `teplug run`'s ranks keep their tensors: --device (one device for
// every rank) or --devices (one per rank) parsed with the kernel's device
// names, and each device other than the CPU opened once through the
// kernel's IDevice, with what the run's header says about them.
#ifndef TEPLUG_TOOLS_TEPLUG_RUN_DEVICES_H_
#define TEPLUG_TOOLS_TEPLUG_RUN_DEVICES_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/kernel/kernel.h"
#include "teplug/sdk/device_context.hpp"
#include "tools/teplug/cli_flags.h"
#include "tools/teplug/rank_device.h"

namespace teplug::cli {

struct RankDevices {
  // Indexed by rank; empty when every rank is on the CPU and --devices was
  // not given (the job then merges its rows over the ranks).
  std::vector<RankDevice> ranks;
  // "rank 1: opencl:0 \"...\" through IDevice opencl/opencl", one per rank
  // (plugin text not yet escaped); empty with `ranks`.
  std::vector<std::string> description;
  // The kernel's IDevice the devices were opened through (it outlives them),
  // and the opened devices the ranks point at (stable addresses).
  sdk::Ref<TeplugDeviceV1> idevice;
  std::vector<std::unique_ptr<sdk::DeviceContext>> contexts;
  std::vector<std::unique_ptr<CaseDevice>> opened;
};

// From `flags`' --device and --devices for `ranks` ranks. INVALID_ARGUMENT
// for a usage error (both flags, a bad spelling, a list whose length is not
// `ranks`); UNAVAILABLE with the device's own reason when a device cannot be
// opened, naming the rank and the device.
absl::StatusOr<RankDevices> OpenRankDevices(const core::Kernel& kernel, const FlagSet& flags,
                                            int ranks);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_RUN_DEVICES_H_
