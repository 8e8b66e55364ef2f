// `teplug validate FILE`: checks a config without running any op. Prints
// every problem as file:line:col: message — syntax and schema problems from
// the config loader, then provider names the config mentions that no loaded
// provider has, then plugins the config names that were refused. Exit 0 only
// when there is no problem.
#include <unistd.h>

#include <cstring>
#include <iostream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/config/config_loader.h"
#include "core/log/untrusted_text.h"
#include "tools/teplug/command_parse.h"
#include "tools/teplug/commands.h"
#include "tools/teplug/kernel_flags.h"

namespace teplug::cli {
namespace {

using core::EscapeUntrustedLines;
using core::EscapeUntrustedText;

constexpr char kValidateHelp[] =
    "Usage: teplug validate FILE [--plugin PATH]... [--no-discovery] [--probe on|off]\n"
    "\n"
    "Checks a teplug config (text format, or JSON when the name ends in .json or\n"
    "the text starts with '{') without running any op, and lists every problem\n"
    "as file:line:col: message: syntax, unknown fields, bad names and ranges,\n"
    "rule conflicts (core/config/README.md lists them), then provider names the\n"
    "config mentions that no provider this binary knows has (built-ins, the\n"
    "config's plugins, --plugin, and discovered plugins unless --no-discovery),\n"
    "and plugins named by the config that were refused. Each plugin is first\n"
    "loaded in a forked child (--probe off skips that): one that crashes or hangs\n"
    "there is a refused plugin, not a crash of this command.\n"
    "\n"
    "Exit status: 0 clean, 1 problems found, 2 usage error or unreadable file.\n";

// One problem per line of `text`; each line is escaped (it may quote the
// config file or a plugin).
void PrintLines(absl::string_view text, int* count) {
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    std::cout << EscapeUntrustedText(line) << "\n";
    ++*count;
  }
}

}  // namespace

int ValidateCommand(const std::vector<std::string>& args) {
  FlagSet flags("teplug validate");
  flags.AddRepeated("plugin", "PATH",
                    "also load this plugin library (its provider names count as known)");
  flags.AddBool("no-discovery", "ignore TEPLUG_PLUGINS, TEPLUG_PLUGIN_PATH and NVTE_PLUGIN");
  AddProbeFlag(&flags, ProbeDefault::kOn);
  if (auto done = ParseCommandLine(flags, args, kValidateHelp)) return *done;
  if (flags.positionals().size() != 1) {
    return ReportUsage(
        flags, flags.positionals().empty()
                   ? "name the config file to check: teplug validate FILE"
                   : absl::StrCat("one config file expected, got ", flags.positionals().size()));
  }
  const std::string path = flags.positionals()[0];
  const std::string shown_path = EscapeUntrustedText(path);
  if (access(path.c_str(), R_OK) != 0) {
    std::cerr << "error: cannot read config file \"" << shown_path << "\": " << std::strerror(errno)
              << "; check the path\n";
    return kExitUsage;
  }
  int problems = 0;
  absl::StatusOr<config::ValidatedConfig> parsed = config::LoadConfigFile(path);
  if (!parsed.ok()) {
    if (parsed.status().code() != absl::StatusCode::kInvalidArgument) {
      std::cerr << "error: " << EscapeUntrustedLines(parsed.status().message(), "  ") << "\n";
      return kExitUsage;
    }
    PrintLines(parsed.status().message(), &problems);
  } else {
    // Provider names are only known once plugins are loaded: start a kernel
    // on this config (no op runs) and collect what it found.
    absl::StatusOr<core::KernelOptions> options = KernelOptionsFromFlags(flags);
    if (!options.ok()) {
      std::cerr << "error: " << EscapeUntrustedLines(options.status().message(), "  ") << "\n";
      return kExitUsage;
    }
    options->config_path = path;
    options->log_level = core::LogLevel::kError;  // problems are printed below, not logged
    absl::StatusOr<std::unique_ptr<core::Kernel>> kernel =
        core::Kernel::Create(*std::move(options));
    if (!kernel.ok()) {
      std::cout << shown_path << ": the kernel cannot start with this config: "
                << EscapeUntrustedLines(kernel.status().message(), "  ") << "\n";
      ++problems;
    } else {
      for (const std::string& w : (*kernel)->ConfigWarnings()) PrintLines(w, &problems);
      for (const core::LoadReportEntry& e : (*kernel)->LoadReport()) {
        if (e.loaded || !absl::StartsWith(e.origin, "config ")) continue;
        std::cout << EscapeUntrustedText(e.origin.substr(7)) << ": plugin "
                  << EscapeUntrustedText(e.path) << " refused: " << EscapeUntrustedText(e.reason)
                  << "\n";
        ++problems;
      }
    }
  }
  if (problems == 0) {
    std::cout << shown_path << ": OK\n";
    return kExitOk;
  }
  std::cout << shown_path << ": " << problems << (problems == 1 ? " problem" : " problems") << "\n";
  return kExitNo;
}

}  // namespace teplug::cli
