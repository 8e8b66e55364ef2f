// INorm/1: LayerNorm and RMSNorm, forward and backward, in one module.
#ifndef TEPLUG_CORE_OPS_NORM_H_
#define TEPLUG_CORE_OPS_NORM_H_

#include "core/ops/interface_module.h"

namespace teplug::core {

const InterfaceModule& NormModule();

// The parameters of an example of `op` and its builder (norm_example.cc;
// see InterfaceModule::ExampleParams).
absl::StatusOr<std::vector<ExampleParam>> NormExampleParams(const InterfaceModule& module, const OpSpec& op);
void BuildNormExample(const OpSpec& op, const ExampleValues& values, ExampleOp* out);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_NORM_H_
