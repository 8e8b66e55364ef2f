#include "tools/teplug/conformance_limit_probes.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/teplug/conformance_contract.h"

namespace teplug::cli {

std::string CheckLimitRefusal(const InterfaceConformance& ic, const core::Kernel& plugin,
                              const std::string& provider,
                              const std::vector<DeclaredLimit>& limits,
                              const std::string& outside, uint64_t seed, const CaseDevice* where) {
  if (ic.refuses == nullptr) return absl::StrCat("conformance cannot call ", ic.name, " directly");
  if (where != nullptr && ic.select_on_device == nullptr)
    return absl::StrCat("conformance selects ", ic.name, " on host memory only");
  // The implementation is the one serving the case brought inside the limits.
  absl::StatusOr<std::string> inside = FitCase(outside, limits);
  if (!inside.ok()) return std::string(inside.status().message());
  return CallRefused(ic, plugin, provider, {*inside, outside}, seed, where).First();
}

LimitOutcome RunLimitProbe(const InterfaceConformance& ic, const core::Kernel& plugin,
                           const std::string& provider, const core::Kernel& oracle,
                           const std::vector<DeclaredLimit>& limits, const LimitProbe& probe,
                           uint64_t seed, const CaseDevice* where) {
  LimitOutcome o;
  if (probe.edge.empty() || !ic.parse_case(probe.edge).ok()) {
    o.detail = "no case inside every declared limit reaches this one's edge";
    return o;
  }
  o.edge = where == nullptr ? ic.run(plugin, provider, oracle, probe.edge, seed)
                            : ic.run_on_device(plugin, provider, oracle, probe.edge, seed, *where);
  if (!o.edge.passed) {
    o.failed_case = probe.edge;
    o.detail = o.edge.problem.empty()
                   ? absl::StrFormat("at its edge, case %s: error %.3g > tolerance %.3g",
                                     probe.edge, o.edge.max_error, o.edge.tolerance)
                   : absl::StrCat("at its edge, case ", probe.edge, ": ", o.edge.problem);
    return o;
  }
  if (probe.outside.empty()) {
    o.passed = true;
    o.detail = absl::StrCat("edge passed; no refusal checked: ", probe.why_no_outside);
    return o;
  }
  o.detail = CheckLimitRefusal(ic, plugin, provider, limits, probe.outside, seed, where);
  o.passed = o.detail.empty();
  if (!o.passed) o.failed_case = probe.outside;
  return o;
}

}  // namespace teplug::cli
