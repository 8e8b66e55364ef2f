#include "core/loader/load_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/log/untrusted_text.h"

namespace teplug::core {

std::string RefusalLine(const LoadReportEntry& refused) {
  return absl::StrCat("plugin ", EscapeUntrustedText(refused.path), " (",
                      EscapeUntrustedText(refused.origin), ") refused: ",
                      EscapeUntrustedText(refused.reason));
}

std::string FormatLoadReport(const std::vector<LoadReportEntry>& entries) {
  if (entries.empty()) return "no plugins or built-in providers\n";
  std::string out;
  for (const LoadReportEntry& e : entries) {
    const std::string origin =
        absl::StrCat(EscapeUntrustedText(e.origin), e.required ? ", required" : "");
    const std::string path = EscapeUntrustedText(e.path);
    if (e.loaded) {
      absl::StrAppend(&out, "loaded  ", EscapeUntrustedText(e.provider), " from ", path, " (",
                      origin, "): ",
                      e.implementations.empty()
                          ? "no implementations"
                          : EscapeUntrustedText(absl::StrJoin(e.implementations, ", ")),
                      "\n");
      for (const std::string& s : e.skipped) {
        absl::StrAppend(&out, "        skipped: ", EscapeUntrustedText(s), "\n");
      }
    } else {
      absl::StrAppend(&out, "refused ", path, " (", origin, "): ", EscapeUntrustedText(e.reason),
                      "\n");
    }
  }
  return out;
}

}  // namespace teplug::core
