// IDevice/1: the devices providers serve, their memory, copies and streams.
#ifndef TEPLUG_CORE_OPS_DEVICE_H_
#define TEPLUG_CORE_OPS_DEVICE_H_

#include "core/ops/interface_module.h"

namespace teplug::core {

const InterfaceModule& DeviceModule();

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_DEVICE_H_
