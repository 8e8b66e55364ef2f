// Reports config problems at the position of the field they are about; the
// message starts with the field path ("rules[0].match.dtypes[1]: ..."), so
// JSON and text errors read the same. Shared by the semantic checks.
#ifndef TEPLUG_CORE_CONFIG_LOCATED_CHECKER_H_
#define TEPLUG_CORE_CONFIG_LOCATED_CHECKER_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "core/config/field_locations.h"
#include "core/config/problem_list.h"
#include "core/config/teplug_config.pb.h"

namespace teplug::config {

// "path[index]".
std::string Indexed(absl::string_view path, int index);

// "line:col".
std::string PositionText(SourcePosition position);

class LocatedChecker {
 public:
  LocatedChecker(const FieldLocations& locations, ProblemList* problems)
      : locations_(locations), problems_(problems) {}

  SourcePosition Where(absl::string_view path) const { return locations_.FindNearest(path); }

  // An error about the field at `path`.
  void Report(absl::string_view path, absl::string_view message);
  // A warning about the field at `path`.
  void Warn(absl::string_view path, absl::string_view message);
  // How many errors have been reported so far (to tell whether a check added any).
  size_t num_errors() const { return problems_->num_errors(); }

  // Reports `value` at `path` unless it is one of `allowed`, suggesting the
  // closest allowed name: `unknown <what> "x" (did you mean "y"?); expected
  // one of: ...`.
  void CheckName(absl::string_view path, absl::string_view what, const std::string& value,
                 const std::vector<absl::string_view>& allowed);

  // Remembers that `value` first appeared in entry `index` of the list at
  // `list_path`; when it was seen before, reports `report_path` as a repeat,
  // citing where the first entry is.
  void NoteOrReportRepeat(absl::flat_hash_map<absl::string_view, int>& first_index,
                          absl::string_view value, int index, absl::string_view list_path,
                          absl::string_view report_path, absl::string_view what);

  // Reports every later repetition of a value within one repeated field.
  void CheckNoRepeats(absl::string_view list_path,
                      const google::protobuf::RepeatedPtrField<std::string>& values,
                      absl::string_view what);

  // Reports an empty, negative or inverted range.
  void CheckRange(absl::string_view path, const Range& range);

 private:
  const FieldLocations& locations_;
  ProblemList* problems_;
};

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_LOCATED_CHECKER_H_
