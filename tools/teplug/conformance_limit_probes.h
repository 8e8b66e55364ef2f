// Running the probes of the declared numeric limits (conformance_limits.h)
// on one implementation: the edge case through the interface's numerics,
// the outside case through its refusal call, on host memory or a device.
#ifndef TEPLUG_TOOLS_TEPLUG_CONFORMANCE_LIMIT_PROBES_H_
#define TEPLUG_TOOLS_TEPLUG_CONFORMANCE_LIMIT_PROBES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/kernel/kernel.h"
#include "tools/teplug/conformance_interface.h"
#include "tools/teplug/conformance_limits.h"
#include "tools/teplug/conformance_staging.h"

namespace teplug::cli {

// "" when the implementation `provider` serves the fitted (inside) version
// of `outside` with refuses `outside` itself; else what went wrong, naming
// the case.
std::string CheckLimitRefusal(const InterfaceConformance& ic, const core::Kernel& plugin,
                              const std::string& provider,
                              const std::vector<DeclaredLimit>& limits,
                              const std::string& outside, uint64_t seed, const CaseDevice* where);

// The verdict on one declared limit.
struct LimitOutcome {
  bool passed = false;
  std::string detail;        // why it failed, or what was not probed
  std::string failed_case;   // the case to re-run with --case ("" when it passed)
  CaseOutcome edge;          // the edge case's numerics
};
// Runs the edge case (its numerics must pass) and the outside case (it
// must be refused) of `probe`.
LimitOutcome RunLimitProbe(const InterfaceConformance& ic, const core::Kernel& plugin,
                           const std::string& provider, const core::Kernel& oracle,
                           const std::vector<DeclaredLimit>& limits, const LimitProbe& probe,
                           uint64_t seed, const CaseDevice* where);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CONFORMANCE_LIMIT_PROBES_H_
