// The flags every kernel-using subcommand shares (--config, --plugin,
// --no-discovery, --log-level) and how they become KernelOptions.
#ifndef TEPLUG_TOOLS_TEPLUG_KERNEL_FLAGS_H_
#define TEPLUG_TOOLS_TEPLUG_KERNEL_FLAGS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "core/kernel/kernel.h"
#include "tools/teplug/cli_flags.h"

namespace teplug::cli {

// Declares --config FILE, --plugin PATH (repeatable), --no-discovery and
// --log-level on `flags`.
void AddKernelFlags(FlagSet* flags);

// KernelOptions from those flags. --no-discovery makes the kernel see
// TEPLUG_PLUGINS=none, the core's switch that turns off TEPLUG_PLUGINS,
// TEPLUG_PLUGIN_PATH and NVTE_PLUGIN (other variables are still read).
// A --config that cannot be read is a usage error naming the path.
absl::StatusOr<core::KernelOptions> KernelOptionsFromFlags(const FlagSet& flags);

// Kernel::Create with those options; failures say which flag or file to fix.
absl::StatusOr<std::unique_ptr<core::Kernel>> CreateKernelFromFlags(const FlagSet& flags);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_KERNEL_FLAGS_H_
