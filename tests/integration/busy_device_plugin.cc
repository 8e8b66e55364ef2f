// A test IDevice provider, "busy", that outranks the reference (priority
// 200) for cpu:0 but cannot serve it: open answers UNAVAILABLE (so the
// dispatcher falls back), device_count says 1 and device_info fails (so the
// listing reports the problem and skips the device).
#include <memory>

#include "teplug/sdk/implement.hpp"
#include "teplug/sdk/plugin.hpp"
#include "teplug/teplug.h"

namespace {

class BusyDevice : public teplug::sdk::DeviceImpl {
 public:
  size_t DeviceCount() override { return 1; }
  void DescribeDevice(size_t, TeplugDeviceInfo*) override {
    throw teplug::sdk::Internal("busy: device_info is broken (test)");
  }
  TeplugDeviceContext* Open(const TeplugDeviceOpenArgs&) override {
    throw teplug::sdk::Unavailable("busy: every context is taken (test)");
  }
  void Close(TeplugDeviceContext*) override {}
  void* Allocate(const TeplugAllocateArgs&) override { return nullptr; }
  void Deallocate(TeplugDeviceContext*, void*) override {}
  void Copy(const TeplugCopyArgs&) override {}
  TeplugStream CreateStream(TeplugDeviceContext*) override { return nullptr; }
  void SynchronizeStream(TeplugDeviceContext*, TeplugStream) override {}
  void DestroyStream(TeplugDeviceContext*, TeplugStream) override {}
};

const TeplugDeviceSupport kCpu[] = {{sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CPU, 0, 0, 0}};

const TeplugDeviceCaps* Caps() {
  static const TeplugDeviceCaps caps = [] {
    auto c = teplug::sdk::Versioned<TeplugDeviceCaps>();
    c.devices = kCpu;
    c.num_devices = 1;
    return c;
  }();
  return &caps;
}

void Register(teplug::sdk::Registrar& r) {
  r.Register(teplug::sdk::kIidDeviceV1, teplug::sdk::MakeDevice(std::make_unique<BusyDevice>()), Caps(), "cpu", 200);
}

}  // namespace

TEPLUG_SDK_PLUGIN("busy", "teplug tests", "1.0", Register)
