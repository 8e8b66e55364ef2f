// ICollective/1: collectives on a communicator, in one module. The
// implementation is chosen once, when a communicator is created
// (the "comm_create" op); every later op on it goes to that implementation.
#ifndef TEPLUG_CORE_OPS_COLLECTIVE_H_
#define TEPLUG_CORE_OPS_COLLECTIVE_H_

#include "core/ops/interface_module.h"

namespace teplug::core {

const InterfaceModule& CollectiveModule();

// The parameters of an example of `op` and its builder (collective_example.cc;
// see InterfaceModule::ExampleParams).
absl::StatusOr<std::vector<ExampleParam>> CollectiveExampleParams(const InterfaceModule& module, const OpSpec& op);
void BuildCollectiveExample(const OpSpec& op, const ExampleValues& values, ExampleOp* out);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_COLLECTIVE_H_
