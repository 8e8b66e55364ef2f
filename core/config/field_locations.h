// Where each field of a parsed config was written in its source file.
//
// Validation problems and decision records must point at file:line:col. The
// text parser (ParseInfoTree) and the JSON scanner (json_location_scanner.h)
// both fill this table, keyed by the same field path spelling, so that the
// semantic checks are written once for both formats.
#ifndef TEPLUG_CORE_CONFIG_FIELD_LOCATIONS_H_
#define TEPLUG_CORE_CONFIG_FIELD_LOCATIONS_H_

#include <optional>
#include <string>
#include "absl/strings/string_view.h"

#include "absl/container/flat_hash_map.h"

namespace teplug::config {

// A 1-based line and column in a config file. Columns count bytes, except
// that the text-format tokenizer advances tabs to the next multiple of 8.
struct SourcePosition {
  int line = 1;
  int column = 1;
};

// Field path -> position of the field name (or, for array elements written
// in JSON, of the element). Paths look like "rules[2].match.dtypes[0]"; the
// whole file is the empty path "".
class FieldLocations {
 public:
  // Records `position` for `path`; the first record of a path wins.
  void Record(std::string path, SourcePosition position);

  // The position recorded for exactly `path`, if any.
  std::optional<SourcePosition> Find(absl::string_view path) const;

  // The position of `path`, or of its nearest recorded ancestor ("a.b[1].c"
  // -> "a.b[1]" -> "a.b" -> "a" -> ""), or 1:1 when nothing is recorded.
  // Used for problems about a missing field, which has no text of its own.
  SourcePosition FindNearest(absl::string_view path) const;

  size_t size() const { return positions_.size(); }

 private:
  absl::flat_hash_map<std::string, SourcePosition> positions_;
};

// The parent of a field path: "a.b[1]" -> "a.b", "a.b" -> "a", "a" -> "".
absl::string_view ParentFieldPath(absl::string_view path);

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_FIELD_LOCATIONS_H_
