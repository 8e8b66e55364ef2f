// IDevice v1 of the opencl provider: the ICD loader's devices as opencl:<n>.
// A context is a cl_context on one device with a private in-order queue for
// copies given no stream; memory is a cl_mem per allocation, handed out as a
// device address (device_address_space.h); a TeplugStream is a
// cl_command_queue made by stream_create, synchronized with clFinish. Every
// OpenCL failure is an error naming the call and the CL error.
#ifndef TEPLUG_PLUGINS_OPENCL_PROVIDER_OPENCL_DEVICE_H_
#define TEPLUG_PLUGINS_OPENCL_PROVIDER_OPENCL_DEVICE_H_

#include <CL/cl.h>

#include <memory>

#include "teplug/device.h"
#include "teplug/sdk/implement.hpp"

namespace teplug::opencl::provider {

// The SDK object behind the registered IDevice v1 (thread-safe).
std::unique_ptr<sdk::DeviceImpl> NewOpenClDevice();

// What an IDevice context of this provider is on, for the provider's ops: the
// cl_context and device of the context that owns a resolved address
// (ResolvedAddress.owner); throws sdk::Exception (INVALID_ARGUMENT) unless it
// is a live context of this provider.
struct OpenClContextHandles {
  cl_context context;
  cl_device_id device;
  int32_t ordinal;
  cl_command_queue default_queue;  // for ops given no stream (then finished before returning)
};
OpenClContextHandles HandlesOfOwner(const void* owner);

}  // namespace teplug::opencl::provider

#endif  // TEPLUG_PLUGINS_OPENCL_PROVIDER_OPENCL_DEVICE_H_
