// IAttention/1: fused scaled-dot-product attention, forward and backward, in one module.
#ifndef TEPLUG_CORE_OPS_ATTENTION_H_
#define TEPLUG_CORE_OPS_ATTENTION_H_

#include "core/ops/interface_module.h"

namespace teplug::core {

const InterfaceModule& AttentionModule();

// The parameters of an example of `op` and its builder (attention_example.cc;
// see InterfaceModule::ExampleParams).
absl::StatusOr<std::vector<ExampleParam>> AttentionExampleParams(const InterfaceModule& module, const OpSpec& op);
void BuildAttentionExample(const OpSpec& op, const ExampleValues& values, ExampleOp* out);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_ATTENTION_H_
