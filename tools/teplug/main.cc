// `teplug`: list providers, explain a selection, validate a config, and run
// the main job (a transformer block through the kernel). Dispatches to the
// subcommand and prints the global help.
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "tools/teplug/cli_flags.h"
#include "tools/teplug/commands.h"

namespace {

constexpr char kGlobalHelp[] =
    "Usage: teplug <command> [flags]\n"
    "\n"
    "Commands:\n"
    "  list        providers, their implementations and refused plugins\n"
    "  explain     which provider would serve an op, and why (decision record)\n"
    "  validate    check a config file; every problem with file:line:col\n"
    "  run         the main job: a transformer block forward and backward through\n"
    "              the kernel, each op checked against the reference provider\n"
    "\n"
    "`teplug <command> --help` describes each command and its flags.\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace teplug::cli;  // NOLINT(build/namespaces): the command table below
  // Under `bazel run`, resolve relative paths (--config FILE) against the
  // directory the user ran from, not the runfiles tree.
  if (const char* dir = std::getenv("BUILD_WORKING_DIRECTORY"); dir != nullptr && chdir(dir) != 0) {
    std::cerr << "error: cannot change to BUILD_WORKING_DIRECTORY " << dir << "\n";
    return kExitUsage;
  }
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kGlobalHelp;
    return args.empty() ? kExitUsage : kExitOk;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  if (command == "list") return ListCommand(args);
  if (command == "explain") return ExplainCommand(args);
  if (command == "validate") return ValidateCommand(args);
  if (command == "run") return RunCommand(args);
  const std::string close = ClosestMatch(command, {"list", "explain", "validate", "run"});
  std::cerr << "error: unknown command \"" << command << "\""
            << (close.empty() ? "" : "; did you mean " + close + "?")
            << " (commands: list, explain, validate, run; see teplug --help)\n";
  return kExitUsage;
}
