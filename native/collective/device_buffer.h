// A collective buffer read from a TeplugTensor: on a CUDA device, contiguous,
// a dtype of the NCCL table (nccl_types.h). Refusals are INVALID_ARGUMENT
// (malformed) or UNSUPPORTED (valid but not served), naming the tensor and
// the value.
#ifndef TEPLUG_NATIVE_COLLECTIVE_DEVICE_BUFFER_H_
#define TEPLUG_NATIVE_COLLECTIVE_DEVICE_BUFFER_H_

#include <cstddef>
#include <string>

#include "native/collective/nccl_types.h"
#include "teplug/types.h"

namespace teplug::native::collective {

struct DeviceBuffer {
  void* data = nullptr;
  NcclDtype dtype{};
  size_t count = 0;  // elements
  int ordinal = 0;   // the CUDA device
};

// Throws sdk::Exception; `name` is e.g. "TeplugCollectiveArgs.send".
DeviceBuffer ReadDeviceBuffer(const TeplugTensor* tensor, const std::string& name);

}  // namespace teplug::native::collective

#endif  // TEPLUG_NATIVE_COLLECTIVE_DEVICE_BUFFER_H_
