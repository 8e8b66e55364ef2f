// IDevice/1: the devices providers serve, their memory, copies and streams.
#ifndef TEPLUG_CORE_OPS_DEVICE_H_
#define TEPLUG_CORE_OPS_DEVICE_H_

#include "core/ops/interface_module.h"

namespace teplug::core {

const InterfaceModule& DeviceModule();

// Its examples (device_example.cc; see InterfaceModule::ExampleParams).
absl::StatusOr<std::vector<ExampleParam>> DeviceExampleParams(const InterfaceModule& module, const OpSpec& op);
void BuildDeviceExample(const OpSpec& op, const ExampleValues& values, ExampleOp* out);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_DEVICE_H_
