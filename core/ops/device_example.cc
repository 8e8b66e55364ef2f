// Example IDevice/1 ops for `teplug explain`: opening a device, which the
// common --device (and --vendor, --arch) flags name; it takes no other
// parameter.
#include <vector>

#include "core/ops/device.h"
#include "core/ops/example_params.h"

namespace teplug::core {

absl::StatusOr<std::vector<ExampleParam>> DeviceExampleParams(const InterfaceModule&, const OpSpec&) {
  return std::vector<ExampleParam>{};
}

void BuildDeviceExample(const OpSpec&, const ExampleValues&, ExampleOp* e) {
  auto* a = e->NewStruct<TeplugDeviceOpenArgs>();
  a->device = &e->device;
  e->args = a;
}

}  // namespace teplug::core
