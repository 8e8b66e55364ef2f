// The capability descriptor of the native IDevice: CUDA devices, every arch.
// The vendor is left open (TEPLUG_VENDOR_ANY) because every CUDA device is
// NVIDIA's: a request for "cuda:0" that names no vendor (the CLI's --device
// cuda) must reach the device's own check, which refuses another vendor and,
// without a GPU, answers with the runtime's reason rather than a descriptor
// mismatch.
#ifndef TEPLUG_NATIVE_PROVIDER_DEVICE_CAPS_H_
#define TEPLUG_NATIVE_PROVIDER_DEVICE_CAPS_H_

#include "teplug/device.h"

namespace teplug::native {

// Static storage, valid for the life of the process.
const TeplugDeviceCaps* NativeDeviceCaps();

}  // namespace teplug::native

#endif  // TEPLUG_NATIVE_PROVIDER_DEVICE_CAPS_H_
