// IQuantizer/1: high precision <-> fp8/fp4 in every scaling mode, in one module.
#ifndef TEPLUG_CORE_OPS_QUANTIZER_H_
#define TEPLUG_CORE_OPS_QUANTIZER_H_

#include "core/ops/interface_module.h"

namespace teplug::core {

const InterfaceModule& QuantizerModule();

// The parameters of an example of `op` and its builder (quantizer_example.cc;
// see InterfaceModule::ExampleParams).
absl::StatusOr<std::vector<ExampleParam>> QuantizerExampleParams(const InterfaceModule& module, const OpSpec& op);
void BuildQuantizerExample(const OpSpec& op, const ExampleValues& values, ExampleOp* out);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_QUANTIZER_H_
