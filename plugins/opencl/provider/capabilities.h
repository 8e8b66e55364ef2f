// The opencl provider's capability descriptors (static storage).
//   IDevice  every OpenCL device (kind OPENCL, any vendor, any arch)
#ifndef TEPLUG_PLUGINS_OPENCL_PROVIDER_CAPABILITIES_H_
#define TEPLUG_PLUGINS_OPENCL_PROVIDER_CAPABILITIES_H_

#include "teplug/device.h"

namespace teplug::opencl::provider {

const TeplugDeviceCaps* OpenClDeviceCaps();

}  // namespace teplug::opencl::provider

#endif  // TEPLUG_PLUGINS_OPENCL_PROVIDER_CAPABILITIES_H_
