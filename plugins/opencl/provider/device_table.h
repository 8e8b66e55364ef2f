// The OpenCL devices this provider serves: every device of every platform the
// ICD loader reports, in platform order then device order; the position in
// that list is the device's ordinal (opencl:0 is the first). A machine with no
// OpenCL platform has an empty list, not an error.
#ifndef TEPLUG_PLUGINS_OPENCL_PROVIDER_DEVICE_TABLE_H_
#define TEPLUG_PLUGINS_OPENCL_PROVIDER_DEVICE_TABLE_H_

#include <CL/cl.h>

#include <cstdint>
#include <string>
#include <vector>

namespace teplug::opencl::provider {

// One enumerated device and what TeplugDeviceInfo says about it.
struct ClDeviceEntry {
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  uint32_t vendor_id = 0;     // CL_DEVICE_VENDOR_ID (a PCI id for real GPUs)
  int32_t arch = 0;           // OpenClVersionArch of CL_DEVICE_VERSION
  std::string name;           // CL_DEVICE_NAME
  uint64_t memory_bytes = 0;  // CL_DEVICE_GLOBAL_MEM_SIZE
};

// "OpenCL <major>.<minor> <anything>" (CL_DEVICE_VERSION's required form) as
// major*10 + minor, the ordered arch number; 0 when the text is not in that form.
int32_t OpenClVersionArch(const std::string& device_version);

// Enumerates the devices once per process (thread-safe); throws sdk::Exception
// naming the OpenCL call when the loader fails other than by having no platform.
const std::vector<ClDeviceEntry>& ClDevices();

}  // namespace teplug::opencl::provider

#endif  // TEPLUG_PLUGINS_OPENCL_PROVIDER_DEVICE_TABLE_H_
