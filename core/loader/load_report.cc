#include "core/loader/load_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace teplug::core {

std::string RefusalLine(const LoadReportEntry& refused) {
  return absl::StrCat("plugin ", refused.path, " (", refused.origin, ") refused: ", refused.reason);
}

std::string FormatLoadReport(const std::vector<LoadReportEntry>& entries) {
  if (entries.empty()) return "no plugins or built-in providers\n";
  std::string out;
  for (const LoadReportEntry& e : entries) {
    const std::string origin = absl::StrCat(e.origin, e.required ? ", required" : "");
    if (e.loaded) {
      absl::StrAppend(&out, "loaded  ", e.provider, " from ", e.path, " (", origin, "): ",
                      e.implementations.empty() ? "no implementations"
                                                : absl::StrJoin(e.implementations, ", "),
                      "\n");
      for (const std::string& s : e.skipped) absl::StrAppend(&out, "        skipped: ", s, "\n");
    } else {
      absl::StrAppend(&out, "refused ", e.path, " (", origin, "): ", e.reason, "\n");
    }
  }
  return out;
}

}  // namespace teplug::core
