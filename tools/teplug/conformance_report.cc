#include "tools/teplug/conformance_report.h"

#include "absl/strings/str_format.h"
#include "core/log/untrusted_text.h"
#include "tools/teplug/json_writer.h"

namespace teplug::cli {

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kPass:
      return "pass";
    case Verdict::kFail:
      return "FAIL";
    case Verdict::kNotChecked:
      return "not checked";
    case Verdict::kNotDeclared:
      return "not declared";
  }
  return "?";
}

bool Conforms(const std::vector<ConformanceRow>& rows) {
  for (const ConformanceRow& r : rows)
    if (r.verdict == Verdict::kFail || r.verdict == Verdict::kNotChecked) return false;
  return true;
}

void PrintConformanceText(std::ostream& out, const std::string& plugin,
                          const std::vector<ConformanceRow>& rows) {
  out << "conformance of " << core::EscapeUntrustedText(plugin) << "\n";
  std::string group;
  int counts[4] = {0, 0, 0, 0};
  for (const ConformanceRow& r : rows) {
    ++counts[static_cast<int>(r.verdict)];
    const std::string g = r.interface_name + " " + r.implementation;
    if (g != group) {
      out << "\n" << g << "\n";
      group = g;
    }
    out << absl::StrFormat("  %-12s %-28s", VerdictName(r.verdict), r.check);
    if (r.cases > 0) out << absl::StrFormat("  %d case%s", r.cases, r.cases == 1 ? "" : "s");
    if (r.max_error >= 0) out << absl::StrFormat("  max error %.3g", r.max_error);
    if (r.tolerance >= 0) out << absl::StrFormat(" (tolerance %.3g)", r.tolerance);
    if (!r.detail.empty()) out << "  " << r.detail;
    out << "\n";
    if (!r.reproduce.empty()) out << "               reproduce: " << r.reproduce << "\n";
  }
  const char* verdict = counts[1] > 0   ? "the plugin does not conform"
                        : counts[2] > 0 ? "not proven: a declared capability conformance cannot "
                                          "check counts as a failure"
                                        : "every declared capability passed";
  out << absl::StrFormat("\n%d passed, %d failed, %d not checked, %d not declared: %s\n", counts[0],
                         counts[1], counts[2], counts[3], verdict);
}

void PrintConformanceJson(std::ostream& out, const std::string& plugin,
                          const std::vector<ConformanceRow>& rows) {
  JsonWriter j;
  j.BeginObject();
  j.Key("plugin");
  j.String(plugin);
  j.Key("passed");
  j.Bool(Conforms(rows));
  j.Key("rows");
  j.BeginArray();
  for (const ConformanceRow& r : rows) {
    j.BeginObject();
    j.Key("interface");
    j.String(r.interface_name);
    j.Key("implementation");
    j.String(r.implementation);
    j.Key("check");
    j.String(r.check);
    j.Key("verdict");
    j.String(r.verdict == Verdict::kFail ? "fail" : VerdictName(r.verdict));
    j.Key("detail");
    j.String(r.detail);
    j.Key("cases");
    j.Int(r.cases);
    j.Key("max_error");
    if (r.max_error >= 0)
      j.String(absl::StrFormat("%.6g", r.max_error));
    else
      j.Null();
    j.Key("tolerance");
    if (r.tolerance >= 0)
      j.String(absl::StrFormat("%.6g", r.tolerance));
    else
      j.Null();
    j.Key("reproduce");
    j.String(r.reproduce);
    j.EndObject();
  }
  j.EndArray();
  j.EndObject();
  out << j.str();
}

}  // namespace teplug::cli
