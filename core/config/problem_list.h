// Collects every problem found in one config file, then reports them all at
// once: errors as a single Status, one per line, "file:line:col: message";
// warnings (a rule that can never match, ...) as lines of their own,
// "file:line:col: warning: message", which do not make the config invalid.
#ifndef TEPLUG_CORE_CONFIG_PROBLEM_LIST_H_
#define TEPLUG_CORE_CONFIG_PROBLEM_LIST_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/config/field_locations.h"

namespace teplug::config {

class ProblemList {
 public:
  // `source_name` prefixes every line (a path, or a name like "<api>").
  explicit ProblemList(std::string source_name);

  // Adds the error "source:line:col: message".
  void Add(SourcePosition position, std::string message);

  // Adds the error "source: message" for the rare problem with no known
  // position (protobuf's own JSON errors carry none).
  void AddWithoutPosition(std::string message);

  // Adds the warning "source:line:col: warning: message".
  void AddWarning(SourcePosition position, std::string message);

  bool has_errors() const { return num_errors_ > 0; }
  size_t num_errors() const { return num_errors_; }
  size_t num_warnings() const { return problems_.size() - num_errors_; }

  // OK when there is no error; otherwise InvalidArgument whose message is
  // every error (warnings left out), sorted by position (problems without
  // one last), one per line.
  absl::Status ToStatus() const;

  // Every error and warning, formatted and sorted the same way.
  std::vector<std::string> Lines() const;
  // The warnings alone.
  std::vector<std::string> WarningLines() const;

 private:
  struct Problem {
    bool is_warning;
    bool has_position;
    SourcePosition position;
    std::string message;
  };
  // The selected problems as lines, sorted by position. Control bytes and
  // malformed UTF-8 in the source name and the messages (which quote the
  // file's text) are escaped (core/log/untrusted_text.h), so each problem
  // stays one line.
  std::vector<std::string> Format(bool errors, bool warnings) const;

  std::string source_name_;
  std::vector<Problem> problems_;
  size_t num_errors_ = 0;
};

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_PROBLEM_LIST_H_
