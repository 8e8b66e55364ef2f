#include "core/config/located_checker.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/config/closest_name.h"

namespace teplug::config {

std::string Indexed(absl::string_view path, int index) {
  return absl::StrCat(path, "[", index, "]");
}

std::string PositionText(SourcePosition position) {
  return absl::StrCat(position.line, ":", position.column);
}

void LocatedChecker::Report(absl::string_view path, absl::string_view message) {
  problems_->Add(Where(path), absl::StrCat(path, ": ", message));
}

void LocatedChecker::Warn(absl::string_view path, absl::string_view message) {
  problems_->AddWarning(Where(path), absl::StrCat(path, ": ", message));
}

void LocatedChecker::CheckName(absl::string_view path, absl::string_view what,
                               const std::string& value,
                               const std::vector<absl::string_view>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) return;
  Report(path, absl::StrCat("unknown ", what, " \"", value, "\"", DidYouMean(value, allowed),
                            "; expected one of: ", absl::StrJoin(allowed, ", ")));
}

void LocatedChecker::NoteOrReportRepeat(absl::flat_hash_map<absl::string_view, int>& first_index,
                                        absl::string_view value, int index,
                                        absl::string_view list_path,
                                        absl::string_view report_path, absl::string_view what) {
  auto [it, inserted] = first_index.emplace(value, index);
  if (inserted) return;
  Report(report_path,
         absl::StrCat(what, " \"", value, "\" is listed twice (first at ",
                      PositionText(Where(Indexed(list_path, it->second))), ")"));
}

void LocatedChecker::CheckNoRepeats(absl::string_view list_path,
                                    const google::protobuf::RepeatedPtrField<std::string>& values,
                                    absl::string_view what) {
  absl::flat_hash_map<absl::string_view, int> first_index;
  for (int i = 0; i < values.size(); ++i) {
    NoteOrReportRepeat(first_index, values[i], i, list_path, Indexed(list_path, i), what);
  }
}

void LocatedChecker::CheckRange(absl::string_view path, const Range& range) {
  if (!range.has_min() && !range.has_max()) {
    Report(path, "empty range: set min, max or both (inclusive bounds)");
    return;
  }
  if (range.has_min() && range.min() < 0) {
    Report(absl::StrCat(path, ".min"),
           absl::StrCat("negative bound ", range.min(), "; must be >= 0"));
  }
  if (range.has_max() && range.max() < 0) {
    Report(absl::StrCat(path, ".max"),
           absl::StrCat("negative bound ", range.max(), "; must be >= 0"));
  }
  if (range.has_min() && range.has_max() && range.min() > range.max()) {
    Report(path, absl::StrCat("inverted range: min ", range.min(), " is greater than max ",
                              range.max()));
  }
}

}  // namespace teplug::config
