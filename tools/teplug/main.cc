// `teplug`: list providers, explain a selection, validate a config, and run
// the main job (a transformer block through the kernel). Dispatches to the
// subcommand and prints the global help.
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "tools/teplug/cli_flags.h"
#include "tools/teplug/commands.h"

namespace {

using teplug::cli::kExitOk;
using teplug::cli::kExitUsage;

// Every subcommand, once: the dispatch, the help and the suggestions all
// read this table.
struct Command {
  const char* name;
  int (*run)(const std::vector<std::string>& args);
  const char* summary;  // one line per '\n'
};
constexpr Command kCommands[] = {
    {"list", teplug::cli::ListCommand, "providers, their implementations and refused plugins"},
    {"explain", teplug::cli::ExplainCommand,
     "which provider would serve an op, and why (decision record)"},
    {"validate", teplug::cli::ValidateCommand,
     "check a config file; every problem with file:line:col"},
    {"run", teplug::cli::RunCommand,
     "the main job: a transformer block forward and backward through\n"
     "the kernel, each op checked against the reference provider"},
    {"conformance", teplug::cli::ConformanceCommand,
     "prove a plugin right: contract checks and every declared\n"
     "capability's numerics against the reference provider"},
};

std::vector<std::string> CommandNames() {
  std::vector<std::string> names;
  for (const Command& c : kCommands) names.emplace_back(c.name);
  return names;
}

std::string GlobalHelp() {
  std::string out = "Usage: teplug <command> [flags]\n\nCommands:\n";
  for (const Command& c : kCommands) {
    bool first = true;
    for (absl::string_view line : absl::StrSplit(c.summary, '\n')) {
      absl::StrAppend(&out, absl::StrFormat("  %-11s  %s\n", first ? c.name : "", line));
      first = false;
    }
  }
  absl::StrAppend(&out, "\n`teplug <command> --help` describes each command and its flags.\n");
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  // Under `bazel run`, resolve relative paths (--config FILE) against the
  // directory the user ran from, not the runfiles tree.
  if (const char* dir = std::getenv("BUILD_WORKING_DIRECTORY"); dir != nullptr && chdir(dir) != 0) {
    std::cerr << "error: cannot change to BUILD_WORKING_DIRECTORY " << dir << "\n";
    return kExitUsage;
  }
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << GlobalHelp();
    return args.empty() ? kExitUsage : kExitOk;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  for (const Command& c : kCommands) {
    if (command == c.name) return c.run(args);
  }
  const std::string close = teplug::cli::ClosestMatch(command, CommandNames());
  std::cerr << "error: unknown command \"" << command << "\""
            << (close.empty() ? "" : "; did you mean " + close + "?")
            << " (commands: " << absl::StrJoin(CommandNames(), ", ") << "; see teplug --help)\n";
  return kExitUsage;
}
