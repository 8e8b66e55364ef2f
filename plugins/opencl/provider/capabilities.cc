#include "plugins/opencl/provider/capabilities.h"

#include "teplug/sdk/struct_io.hpp"

namespace teplug::opencl::provider {
namespace {

const TeplugDeviceSupport kOpenClDevices[] = {
    {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_OPENCL, TEPLUG_VENDOR_ANY, 0, 0}};

TeplugDeviceCaps MakeDeviceCaps() {
  TeplugDeviceCaps c = sdk::Versioned<TeplugDeviceCaps>();
  c.devices = kOpenClDevices;
  c.num_devices = 1;
  return c;
}

}  // namespace

const TeplugDeviceCaps* OpenClDeviceCaps() {
  static const TeplugDeviceCaps caps = MakeDeviceCaps();
  return &caps;
}

}  // namespace teplug::opencl::provider
