// The start every subcommand shares: parse its flags, answer --help, report
// usage errors on stderr with the right exit status.
#ifndef TEPLUG_TOOLS_TEPLUG_COMMAND_PARSE_H_
#define TEPLUG_TOOLS_TEPLUG_COMMAND_PARSE_H_

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "tools/teplug/cli_flags.h"
#include "tools/teplug/commands.h"

namespace teplug::cli {

// Parses `args` into `flags`. Returns the exit status when the command is
// already finished: kExitOk after printing `help_text` + the flag table for
// --help, kExitUsage after printing the error for a bad command line.
// nullopt means: go on.
inline std::optional<int> ParseCommandLine(FlagSet& flags, const std::vector<std::string>& args,
                                           const std::string& help_text) {
  absl::Status st = flags.Parse(args);
  if (!st.ok()) {
    std::cerr << "error: " << st.message() << "\n";
    return kExitUsage;
  }
  if (flags.help_requested()) {
    std::cout << help_text << "\nFlags:\n" << flags.FlagsHelp();
    return kExitOk;
  }
  return std::nullopt;
}

// Prints a usage error for `flags`' command; returns kExitUsage.
inline int ReportUsage(const FlagSet& flags, const std::string& message) {
  std::cerr << "error: " << flags.UsageError(message).message() << "\n";
  return kExitUsage;
}

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_COMMAND_PARSE_H_
