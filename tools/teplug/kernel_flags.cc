#include "tools/teplug/kernel_flags.h"

#include <unistd.h>

#include <cstring>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/log/logger.h"

namespace teplug::cli {

void AddProbeFlag(FlagSet* flags, ProbeDefault probe) {
  flags->AddString("probe", "on|off",
                   "load each plugin first in a forked child, and refuse it if the child crashes, "
                   "exits or hangs (costs a fork and a second load per plugin)",
                   probe == ProbeDefault::kOn ? "on" : "off", {"on", "off"});
}

void AddKernelFlags(FlagSet* flags, ProbeDefault probe) {
  flags->AddString(
      "config", "FILE",
      "config file (text format or JSON); default: $TEPLUG_CONFIG, else the embedded default");
  flags->AddRepeated("plugin", "PATH", "also load this plugin library");
  flags->AddBool("no-discovery", "ignore TEPLUG_PLUGINS, TEPLUG_PLUGIN_PATH and NVTE_PLUGIN");
  flags->AddString("log-level", "LEVEL", "kernel log level on stderr", "",
                   {"error", "warn", "info", "debug"});
  AddProbeFlag(flags, probe);
}

absl::StatusOr<core::KernelOptions> KernelOptionsFromFlags(const FlagSet& flags) {
  core::KernelOptions o;
  if (flags.IsSet("config")) {
    const std::string path = flags.GetString("config");
    if (access(path.c_str(), R_OK) != 0) {
      return flags.UsageError(absl::StrCat("cannot read config file \"", path,
                                           "\" given by --config: ", std::strerror(errno),
                                           "; check the path"));
    }
    o.config_path = path;
  }
  o.plugin_paths = flags.GetAll("plugin");
  if (flags.GetBool("no-discovery")) {
    core::EnvLookup secure = core::SecureEnv();
    // The core's own switch (core/loader/discovery.h): TEPLUG_PLUGINS=none
    // turns off all environment discovery, whatever else is set.
    o.env = [secure](const char* name) -> std::optional<std::string> {
      if (std::strcmp(name, "TEPLUG_PLUGINS") == 0) return "none";
      return secure(name);
    };
  }
  // Empty when the flag is not given; the flag's choices are all valid levels.
  o.log_level = core::ParseLogLevel(flags.GetString("log-level"));
  o.probe_plugins = flags.GetString("probe") == "on";
  return o;
}

absl::StatusOr<std::unique_ptr<core::Kernel>> CreateKernelFromFlags(const FlagSet& flags) {
  absl::StatusOr<core::KernelOptions> options = KernelOptionsFromFlags(flags);
  if (!options.ok()) return options.status();
  absl::StatusOr<std::unique_ptr<core::Kernel>> kernel = core::Kernel::Create(*std::move(options));
  if (!kernel.ok()) {
    return absl::Status(
        kernel.status().code(),
        absl::StrCat(kernel.status().message(),
                     "\n(fix the config named above, or check it with `teplug validate FILE`)"));
  }
  return kernel;
}

}  // namespace teplug::cli
