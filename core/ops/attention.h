// IAttention/1: fused scaled-dot-product attention, forward and backward, in one module.
#ifndef TEPLUG_CORE_OPS_ATTENTION_H_
#define TEPLUG_CORE_OPS_ATTENTION_H_

#include "core/ops/interface_module.h"

namespace teplug::core {

const InterfaceModule& AttentionModule();

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_ATTENTION_H_
