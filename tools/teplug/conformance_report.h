// What `teplug conformance` found, and how it is printed: one row per check
// (a contract check of an implementation, or one capability it declares),
// as a table for people or as JSON (--json, nothing else on stdout).
#ifndef TEPLUG_TOOLS_TEPLUG_CONFORMANCE_REPORT_H_
#define TEPLUG_TOOLS_TEPLUG_CONFORMANCE_REPORT_H_

#include <ostream>
#include <string>
#include <vector>

namespace teplug::cli {

enum class Verdict {
  kPass,         // checked, right
  kFail,         // checked, wrong: `detail` says how, `reproduce` re-runs it
  kNotChecked,   // declared, but conformance cannot exercise it: fails the run
  kNotDeclared,  // the plugin does not claim it
};
const char* VerdictName(Verdict v);  // "pass", "FAIL", "not checked", "not declared"

struct ConformanceRow {
  std::string interface_name;  // "gemm"
  std::string implementation;  // "provider/name"
  std::string check;           // "contract refcount", "a_dtypes=bf16"
  Verdict verdict = Verdict::kPass;
  std::string detail;     // escaped plugin text only (EscapeUntrustedText)
  int cases = 0;          // numerics cases that exercised it
  double max_error = -1;  // worst NormalizedMaxError seen; < 0: none measured
  double tolerance = -1;  // the tolerance it was held to; < 0: none
  std::string reproduce;  // the command line that re-runs the failing case
};

// The plugin's path and every row, grouped as given, then a summary line.
void PrintConformanceText(std::ostream& out, const std::string& plugin,
                          const std::vector<ConformanceRow>& rows);
// {"plugin": ..., "passed": bool, "rows": [{...}, ...]}.
void PrintConformanceJson(std::ostream& out, const std::string& plugin,
                          const std::vector<ConformanceRow>& rows);
// True when the plugin is proven right: no row failed and no declared claim
// went unchecked (a claim conformance cannot exercise is not proven, so it
// counts against exit 0 like a failure).
bool Conforms(const std::vector<ConformanceRow>& rows);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CONFORMANCE_REPORT_H_
