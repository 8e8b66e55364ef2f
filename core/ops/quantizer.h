// IQuantizer/1: high precision <-> fp8/fp4 in every scaling mode, in one module.
#ifndef TEPLUG_CORE_OPS_QUANTIZER_H_
#define TEPLUG_CORE_OPS_QUANTIZER_H_

#include "core/ops/interface_module.h"

namespace teplug::core {

const InterfaceModule& QuantizerModule();

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_QUANTIZER_H_
