// INorm/1: LayerNorm and RMSNorm, forward and backward, in one module.
#ifndef TEPLUG_CORE_OPS_NORM_H_
#define TEPLUG_CORE_OPS_NORM_H_

#include "core/ops/interface_module.h"

namespace teplug::core {

const InterfaceModule& NormModule();

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_NORM_H_
