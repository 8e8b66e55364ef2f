// The flags every kernel-using subcommand shares (--config, --plugin,
// --no-discovery, --log-level) and how they become KernelOptions.
#ifndef TEPLUG_TOOLS_TEPLUG_KERNEL_FLAGS_H_
#define TEPLUG_TOOLS_TEPLUG_KERNEL_FLAGS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "core/kernel/kernel.h"
#include "tools/teplug/cli_flags.h"

namespace teplug::cli {

// Whether a command runs the pre-flight probe (core/loader/plugin_probe.h)
// on each plugin unless --probe says otherwise. The inspecting commands
// (list, explain, validate) probe: they must report on a plugin that would
// crash, not crash with it. Commands that run ops load plugins as a library
// user's kernel would.
enum class ProbeDefault { kOff, kOn };

// Declares --config FILE, --plugin PATH (repeatable), --no-discovery,
// --log-level and --probe on|off on `flags`.
void AddKernelFlags(FlagSet* flags, ProbeDefault probe = ProbeDefault::kOff);
// Declares --probe on|off alone (for a command with its own kernel flags).
void AddProbeFlag(FlagSet* flags, ProbeDefault probe);

// KernelOptions from those flags. --no-discovery makes the kernel see
// TEPLUG_PLUGINS=none, the core's switch that turns off TEPLUG_PLUGINS,
// TEPLUG_PLUGIN_PATH and NVTE_PLUGIN (other variables are still read).
// A --config that cannot be read is a usage error naming the path.
// --probe on sets KernelOptions::probe_plugins (TEPLUG_PLUGIN_PROBE=1 and the
// config can still turn the probe on under --probe off).
absl::StatusOr<core::KernelOptions> KernelOptionsFromFlags(const FlagSet& flags);

// Kernel::Create with those options; failures say which flag or file to fix.
absl::StatusOr<std::unique_ptr<core::Kernel>> CreateKernelFromFlags(const FlagSet& flags);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_KERNEL_FLAGS_H_
