#include "native/provider/device_caps.h"

#include "teplug/sdk/struct_io.hpp"

namespace teplug::native {
namespace {

const TeplugDeviceSupport kCuda[] = {{sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CUDA, TEPLUG_VENDOR_ANY, 0, 0}};

TeplugDeviceCaps MakeDeviceCaps() {
  TeplugDeviceCaps c = sdk::Versioned<TeplugDeviceCaps>();
  c.devices = kCuda;
  c.num_devices = 1;
  return c;
}

}  // namespace

const TeplugDeviceCaps* NativeDeviceCaps() {
  static const TeplugDeviceCaps caps = MakeDeviceCaps();
  return &caps;
}

}  // namespace teplug::native
