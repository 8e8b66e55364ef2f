// The `teplug` subcommands. Each takes the arguments after its name, writes
// its report to stdout and problems to stderr, and returns the exit status:
// 0 success, 1 the answer is "no" (op not served, config has problems, an op
// exceeded its tolerance), 2 usage error (bad flag or value, unreadable file).
#ifndef TEPLUG_TOOLS_TEPLUG_COMMANDS_H_
#define TEPLUG_TOOLS_TEPLUG_COMMANDS_H_

#include <string>
#include <vector>

namespace teplug::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitNo = 1;
inline constexpr int kExitUsage = 2;

int ListCommand(const std::vector<std::string>& args);
int ExplainCommand(const std::vector<std::string>& args);
int ValidateCommand(const std::vector<std::string>& args);
int RunCommand(const std::vector<std::string>& args);
int ConformanceCommand(const std::vector<std::string>& args);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_COMMANDS_H_
