// IDevice v1 of the reference provider: the host CPU as device cpu:0.
// Memory is host memory (aligned_alloc), copies are memcpy, and streams are
// tokens: every op of this provider completes before it returns, so there is
// never work to wait for. A context keeps the allocations and streams it made
// so that a foreign or freed pointer or stream is an INVALID_ARGUMENT naming
// it rather than undefined behaviour; close releases what is left.
#ifndef TEPLUG_PLUGINS_REFERENCE_PROVIDER_DEVICE_PROVIDER_H_
#define TEPLUG_PLUGINS_REFERENCE_PROVIDER_DEVICE_PROVIDER_H_

#include <memory>

#include "teplug/device.h"
#include "teplug/sdk/implement.hpp"

namespace teplug::reference::provider {

// The SDK object behind the registered IDevice v1 (thread-safe).
std::unique_ptr<sdk::DeviceImpl> NewReferenceDevice();

}  // namespace teplug::reference::provider

#endif  // TEPLUG_PLUGINS_REFERENCE_PROVIDER_DEVICE_PROVIDER_H_
