// Collects every problem found in one config file, then reports them all at
// once as a single Status: one problem per line, "file:line:col: message".
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

  // Adds "source:line:col: message".
  void Add(SourcePosition position, std::string message);

  // Adds "source: message" for the rare problem with no known position
  // (protobuf's own JSON errors carry none).
  void AddWithoutPosition(std::string message);

  bool empty() const { return problems_.empty(); }
  size_t size() const { return problems_.size(); }

  // OK when empty; otherwise InvalidArgument whose message is every problem,
  // sorted by position (problems without one last), one per line. Control
  // bytes and malformed UTF-8 in the source name and the messages (which
  // quote the file's text) are escaped (core/log/untrusted_text.h), so each
  // problem stays one line.
  absl::Status ToStatus() const;

 private:
  struct Problem {
    bool has_position;
    SourcePosition position;
    std::string message;
  };
  std::string source_name_;
  std::vector<Problem> problems_;
};

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_PROBLEM_LIST_H_
