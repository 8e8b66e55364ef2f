// A small command-line flag parser for the `teplug` subcommands.
//
// Accepts `--name value`, `--name=value`, boolean `--name`, repeatable flags
// and positional arguments. Every error is written for a person: it names the
// subcommand, the flag, the value and the fix, e.g.
//   unknown flag --hed-dim for `teplug explain`; did you mean --head-dim? (see teplug explain
//   --help) bad value "bf17" for --dtype of `teplug explain`: expected one of fp32, fp16, bf16, ...
// Declared flags also produce the subcommand's --help text, so help and
// parsing cannot drift apart.
#ifndef TEPLUG_TOOLS_TEPLUG_CLI_FLAGS_H_
#define TEPLUG_TOOLS_TEPLUG_CLI_FLAGS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace teplug::cli {

// The flags of one subcommand, their values after Parse, and its help text.
class FlagSet {
 public:
  // `command` is how the user typed the subcommand, e.g. "teplug explain".
  explicit FlagSet(std::string command);

  // A flag taking a string. `allowed` (if non-empty) is the accepted set,
  // checked at parse time.
  void AddString(const std::string& name, const std::string& value_name, const std::string& help,
                 const std::string& default_value = "", std::vector<std::string> allowed = {});
  // A flag taking an integer within [min, max].
  void AddInt(const std::string& name, const std::string& help, int64_t default_value, int64_t min,
              int64_t max);
  // A flag taking a finite number within [min, max].
  void AddDouble(const std::string& name, const std::string& help, double default_value, double min,
                 double max);
  // A flag without a value ("--json"); `--name=true|false` also accepted.
  void AddBool(const std::string& name, const std::string& help);
  // A string flag that may be given several times (values kept in order).
  void AddRepeated(const std::string& name, const std::string& value_name, const std::string& help);
  // For a flag whose effective default is not its stored default (it follows
  // another flag, or depends on the op): help shows "[default: <text>]"
  // instead of the stored value. Parsing and Get* are unchanged.
  void SetDefaultText(const std::string& name, const std::string& text);

  // Parses `args` (without the program and subcommand names). Positional
  // arguments are kept in order. `--help`/`-h` sets help_requested() and
  // stops. InvalidArgument with a message as in the file comment otherwise.
  absl::Status Parse(const std::vector<std::string>& args);

  bool help_requested() const { return help_requested_; }
  const std::vector<std::string>& positionals() const { return positionals_; }
  // Whether the user gave the flag (defaults do not count).
  bool IsSet(const std::string& name) const;
  std::string GetString(const std::string& name) const;
  int64_t GetInt(const std::string& name) const;
  double GetDouble(const std::string& name) const;
  bool GetBool(const std::string& name) const;
  std::vector<std::string> GetAll(const std::string& name) const;

  // "  --head-dim N   head dimension (default 128)" lines for every flag.
  std::string FlagsHelp() const;
  // A usage error for this subcommand: "<message> (see <command> --help)".
  absl::Status UsageError(const std::string& message) const;
  const std::string& command() const { return command_; }

 private:
  enum class Kind { kString, kInt, kDouble, kBool, kRepeated };
  struct Spec {
    Kind kind;
    std::string value_name;
    std::string help;
    std::string default_value;
    std::vector<std::string> allowed;
    std::string default_text;  // SetDefaultText; empty: show default_value
    int64_t int_min = 0, int_max = 0;
    double double_min = 0, double_max = 0;
  };
  absl::Status SetValue(const std::string& name, const Spec& spec, const std::string& value);
  std::string Suggest(const std::string& unknown) const;

  std::string command_;
  std::vector<std::string> order_;  // declaration order, for help
  std::map<std::string, Spec> specs_;
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positionals_;
  bool help_requested_ = false;
};

// Levenshtein distance, for "did you mean" suggestions.
int EditDistance(const std::string& a, const std::string& b);

// The closest of `candidates` to `word` when it is close enough to be a
// plausible typo (distance <= max(2, |word|/3)), else "".
std::string ClosestMatch(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CLI_FLAGS_H_
