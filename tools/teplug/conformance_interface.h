// What `teplug conformance` needs to know to check one interface: its claims,
// how to plan, spell and run its numerics cases against the reference, and
// its contract checks. One InterfaceConformance per covered interface
// (conformance_gemm.cc, conformance_quantizer.cc); the command loops over
// them and reports every other interface's claims as not checked
// (conformance_collective.cc, conformance_device.cc, ... likewise).
#ifndef TEPLUG_TOOLS_TEPLUG_CONFORMANCE_INTERFACE_H_
#define TEPLUG_TOOLS_TEPLUG_CONFORMANCE_INTERFACE_H_

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/kernel/kernel.h"
#include "tools/teplug/conformance_limits.h"
#include "tools/teplug/conformance_staging.h"
#include "tools/teplug/host_tensor.h"

namespace teplug::cli {

// A numerics case to run: its --case text, its input seed and the claims
// ("field=member", as DeclaredClaims spells them) it exercises.
struct PlannedCase {
  std::string text;
  uint64_t seed = 0;
  std::vector<std::string> exercises;
};

// The outcome of one case: the plugin's outputs against the reference's.
struct CaseOutcome {
  bool passed = false;
  std::string problem;  // why it failed before comparing; "" when it compared
  double max_error = -1, tolerance = -1;

  // Takes one compared output into account: the output closest to (or
  // furthest past) its tolerance speaks for the case.
  void Include(double error, double tol) {
    if (tolerance <= 0 || error / tol > max_error / tolerance) max_error = error, tolerance = tol;
  }
  // Sets `passed` from the outputs included.
  void Decide() { passed = tolerance > 0 && max_error <= tolerance; }
};

struct ContractOutcome {
  std::string check;
  bool passed = false;
  std::string detail;
};

// What an implementation did with a call it must refuse (a case past a
// declared limit, or in a dtype it does not declare), one line per contract
// check, "" where it kept the contract.
struct RefusalReport {
  std::string refused_op;       // unsupported or invalid_argument, not success
  std::string error_object;     // that error well formed (CheckErrorObject)
  std::string supports_reason;  // supports, asked first, said why when it said no
  // The first problem, in the order above; "" for none.
  std::string First() const;
};

struct InterfaceConformance {
  const char* name;  // "gemm": the --interface value and the report's group
  // Every claim the interface's descriptor can make.
  std::vector<std::string> (*all_claims)();
  // Whether conformance can build a case exercising `claim`.
  bool (*checkable)(const std::string& claim);
  // One case per checkable declared claim, then (unless quick) sampled
  // combinations; seeds derived from `seed`.
  std::vector<PlannedCase> (*plan)(const std::vector<std::string>& claims, bool quick,
                                   uint64_t seed);
  // The claims a --case text exercises, or the error naming what is wrong in it.
  absl::StatusOr<std::vector<std::string>> (*parse_case)(const std::string& text);
  // Runs a (valid) case through `provider` in `plugin` and the reference in `oracle`.
  CaseOutcome (*run)(const core::Kernel& plugin, const std::string& provider,
                     const core::Kernel& oracle, const std::string& text, uint64_t seed);
  // The implementation `provider` serves the case `text` with (for the
  // contract checks every interface gets: refcount and threads).
  absl::StatusOr<core::Selection> (*select)(const core::Kernel& plugin, const std::string& provider,
                                            const std::string& text);
  // The interface's own contract checks' names and runner (on the
  // implementation serving `base`, only the check `only` unless it is
  // empty); when null, the shared ones (SharedContractCheckNames) run.
  std::vector<std::string> (*contract_names)();
  std::vector<ContractOutcome> (*contract)(const core::Kernel& plugin, const std::string& provider,
                                           const std::vector<std::string>& claims,
                                           const std::string& base, uint64_t seed,
                                           const std::string& only);
  // The claims every implementation of the interface makes by implementing
  // it, beside those its descriptor declares (IDevice: its calls, all
  // required); null: none.
  std::vector<std::string> (*implied_claims)() = nullptr;
  // Runs a case as `run` does, but with the plugin's op on `where`'s device
  // (its tensors staged there through IDevice, conformance_staging.h); the
  // reference still runs on host memory. Null: the interface's cases run on
  // host memory only, so its claims on other devices are not checked.
  CaseOutcome (*run_on_device)(const core::Kernel& plugin, const std::string& provider,
                               const core::Kernel& oracle, const std::string& text, uint64_t seed,
                               const CaseDevice& where) = nullptr;
  // `select` with the case's tensors on `where`'s device (for the shared
  // contract checks there). Null: contract checks run on host memory only.
  absl::StatusOr<core::Selection> (*select_on_device)(const core::Kernel& plugin,
                                                      const std::string& provider,
                                                      const std::string& text,
                                                      const CaseDevice& where) = nullptr;
  // The interface's own contract checks that run on a device too, beside the
  // shared ones there (names, and the runner on `where`'s device with the
  // arguments of `contract`). Null: only the shared ones run on a device.
  std::vector<std::string> (*device_contract_names)() = nullptr;
  std::vector<ContractOutcome> (*device_contract)(const core::Kernel& plugin,
                                                  const std::string& provider,
                                                  const std::vector<std::string>& claims,
                                                  const std::string& base, uint64_t seed,
                                                  const std::string& only,
                                                  const CaseDevice& where) = nullptr;
  // The descriptor's numeric limits and the case keys each bounds
  // (conformance_limits.h): planned cases are fitted inside them and each
  // declared one is probed at its edge and just outside. Null: none.
  const std::vector<LimitRule>& (*limit_rules)() = nullptr;
  // Asks `impl`'s supports about the op of `text`, a case it must refuse
  // (past a declared limit, or in a dtype it does not declare), then calls
  // the op on `impl` directly (the core's selection would refuse it first),
  // on `where`'s device when given: what it did (RefusalReport). Null: the
  // interface gets no refusal checks (refused_op, error_object,
  // supports_reason, the limits' outside cases).
  RefusalReport (*refuses)(TeplugObject* impl, const std::string& text, uint64_t seed,
                           const CaseDevice* where) = nullptr;
};

// A case runner taking where the plugin's op runs (null: host memory), and
// the `run` and `run_on_device` of InterfaceConformance made from one.
using CaseRunner = CaseOutcome (*)(const core::Kernel& plugin, const std::string& provider,
                                   const core::Kernel& oracle, const std::string& text,
                                   uint64_t seed, const CaseDevice* where);
template <CaseRunner kRun>
CaseOutcome RunOnHost(const core::Kernel& plugin, const std::string& provider,
                      const core::Kernel& oracle, const std::string& text, uint64_t seed) {
  return kRun(plugin, provider, oracle, text, seed, nullptr);
}
template <CaseRunner kRun>
CaseOutcome RunOnDevice(const core::Kernel& plugin, const std::string& provider,
                        const core::Kernel& oracle, const std::string& text, uint64_t seed,
                        const CaseDevice& where) {
  return kRun(plugin, provider, oracle, text, seed, &where);
}

// A case selector taking where the case's tensors live (null: host memory),
// and the `select` and `select_on_device` made from one.
using CaseSelector = absl::StatusOr<core::Selection> (*)(const core::Kernel& plugin,
                                                         const std::string& provider,
                                                         const std::string& text,
                                                         const CaseDevice* where);
template <CaseSelector kSelect>
absl::StatusOr<core::Selection> SelectOnHost(const core::Kernel& plugin,
                                             const std::string& provider,
                                             const std::string& text) {
  return kSelect(plugin, provider, text, nullptr);
}
template <CaseSelector kSelect>
absl::StatusOr<core::Selection> SelectOnDevice(const core::Kernel& plugin,
                                               const std::string& provider,
                                               const std::string& text, const CaseDevice& where) {
  return kSelect(plugin, provider, text, &where);
}

// "field=member" for every member of every set field of `listing`'s
// descriptor but its devices ("a_dtypes=bf16", "epilogues=gelu").
std::vector<std::string> DeclaredClaims(const core::ImplementationListing& listing);
// The first line of a kernel message (a decision record may follow it), escaped.
std::string KernelMessageHead(absl::string_view message);
// Fills `t` (fp32, fp16 or bf16) with values from [-1, -0.05] U [0.05, 1]:
// random, never zero.
void FillNonZero(HostTensor* t, std::mt19937_64* rng);
// Splits a --case text ("key=value,key=value") and calls `set` for each
// item in order; the first error `set` returns is the result.
absl::Status ForEachCaseItem(
    const std::string& text,
    const std::function<absl::Status(const std::string& key, const std::string& value)>& set);
// `--case: "key=value": the value must be <want>`.
absl::Status BadCaseValue(const std::string& key, const std::string& value,
                          const std::string& want);
// "" when `mine` and `ref` (same dtype and shape; NULL: nothing to compare)
// hold the same bytes, else which byte of `what` differs first and both
// values.
std::string FirstDifference(const std::string& what, const TeplugTensor* mine,
                            const TeplugTensor* ref);
// "field=member".
std::string Claim(const std::string& field, const std::string& member);
// Whether `claims` holds `claim`.
bool HasClaim(const std::vector<std::string>& claims, const std::string& claim);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CONFORMANCE_INTERFACE_H_
