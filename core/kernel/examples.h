// Example ops by interface and op name (core/kernel/example_op.h): what
// `teplug explain` builds from its flags. The parameters, their defaults and
// accepted values, and the args built come from the interface's module; this
// API knows no interface.
//
//   auto op = teplug::core::BuildExampleOp("gemm", "gemm", {{"m", "4096"}, {"dtype", "fp8_e4m3"}},
//   device); kernel->Explain((*op)->iid, (*op)->op, (*op)->args);
#ifndef TEPLUG_CORE_KERNEL_EXAMPLES_H_
#define TEPLUG_CORE_KERNEL_EXAMPLES_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/kernel/example_op.h"
#include "teplug/teplug.h"

namespace teplug::core {

// An interface examples can be built for.
struct ExampleInterface {
  std::string name;              // "attention"
  std::string display_name;      // "IAttention/1"
  std::vector<std::string> ops;  // the ops with examples, the default first ("forward", "backward")
};

// Every interface the core serves, in the module list's order.
std::vector<ExampleInterface> ExampleInterfaces();

// The parameters of `op` of `interface`. NOT_FOUND for an unknown interface
// or op (naming the known ones); FAILED_PRECONDITION, with the module's
// reason, for an op that has no examples (e.g. a collective call, which is
// not decided per call).
absl::StatusOr<std::vector<ExampleParam>> ExampleParams(absl::string_view interface,
                                                        absl::string_view op);

// An example of `op` of `interface` on `device`, built from `values` (any
// parameter not given takes its default). Errors as ExampleParams, and
// INVALID_ARGUMENT naming the parameter for a value it does not accept.
absl::StatusOr<std::unique_ptr<ExampleOp>> BuildExampleOp(absl::string_view interface,
                                                          absl::string_view op,
                                                          const ExampleValueMap& values,
                                                          const TeplugDevice& device);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_KERNEL_EXAMPLES_H_
