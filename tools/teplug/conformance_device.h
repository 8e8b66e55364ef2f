// `teplug conformance` for IDevice/1. An IDevice declares no capability
// bits, but every method is required, so every implementation claims its
// calls: "calls=device_info" (devices enumerate with well-formed fields),
// "calls=memory" (allocate / copy host->device->device->host / deallocate
// round-trips bytes exactly), "calls=streams" (streams created, used by
// copies, synchronised and destroyed, then the context closes, with the
// object's reference count unchanged) and "calls=refusals" (a bad ordinal,
// a zero size, a bad alignment and a NULL context are refused with a well
// formed error that says why). Spelled for --case as
// "check=memory,bytes=4099,stream=1". The checks open cpu:0 on host memory
// and, on another device conformance checks, that device.
#ifndef TEPLUG_TOOLS_TEPLUG_CONFORMANCE_DEVICE_H_
#define TEPLUG_TOOLS_TEPLUG_CONFORMANCE_DEVICE_H_

#include "tools/teplug/conformance_interface.h"

namespace teplug::cli {

const InterfaceConformance& DeviceConformance();

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CONFORMANCE_DEVICE_H_
