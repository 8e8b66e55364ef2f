// `teplug explain`'s op flags and the op they describe. The flags are the
// interface modules' example parameters (core/kernel/examples.h), one flag
// per parameter name (head_dim -> --head-dim), with their docs, defaults and
// accepted values; the op is built by the kernel's example builder. The CLI
// itself knows no interface: it adds the device flags and --op.
#ifndef TEPLUG_TOOLS_TEPLUG_EXPLAIN_OP_H_
#define TEPLUG_TOOLS_TEPLUG_EXPLAIN_OP_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/kernel/device_names.h"
#include "core/kernel/examples.h"
#include "teplug/teplug.h"
#include "tools/teplug/cli_flags.h"
#include "tools/teplug/device_spec.h"

namespace teplug::cli {

// Declares --op, the device flags and one flag per example parameter of
// every interface's ops. A parameter several ops share is one flag: its help
// names the interfaces (and ops) and each one's default, and its accepted
// values are the union of theirs (each op's builder checks its own).
void AddOpFlags(FlagSet* flags);

// Builds the op --op (default: the interface's first op with examples) of
// `interface` from the parameter flags the user gave. Usage errors name the
// flag: an unknown interface (with "did you mean"), an op the interface does
// not have or does not decide per call, a flag the op does not take, a value
// it does not accept. `names` (the kernel's) resolves device kind and vendor
// names that loaded providers declare.
absl::StatusOr<std::unique_ptr<core::ExampleOp>> BuildExplainedOp(const std::string& interface,
                                                                  const FlagSet& flags,
                                                                  const core::DeviceNames& names);

// The flag spelling of a parameter: head_dim -> head-dim.
std::string FlagName(const std::string& param);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_EXPLAIN_OP_H_
