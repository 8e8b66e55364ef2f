// `teplug conformance` for IGemm/1: the cases (one per declared capability and
// sampled combinations, each a line a person can pass back with --case), their
// numerics against the reference provider, and the contract checks of one
// implementation (reference counts, error objects, reasons, refusals,
// workspace, struct sizes, concurrent calls).
#ifndef TEPLUG_TOOLS_TEPLUG_CONFORMANCE_GEMM_H_
#define TEPLUG_TOOLS_TEPLUG_CONFORMANCE_GEMM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/kernel/kernel.h"
#include "tools/teplug/conformance_interface.h"

namespace teplug::cli {

// One GEMM call shape: what --case spells as
// "a_dtype=bf16,b_dtype=bf16,d_dtype=bf16,scaling=none,bias=0,gelu=0,gelu_aux=0,
//  accumulate=0,trans_a=0,trans_b=1,m=17,n=24,k=64".
struct GemmCase {
  int32_t a_dtype = 1, b_dtype = 1, d_dtype = 1;  // TeplugDType (fp32)
  int32_t scaling = 0;  // TeplugScalingMode of fp8/fp4 operands; 0 for none
  bool bias = false, gelu = false, gelu_aux = false, accumulate = false;
  bool trans_a = false, trans_b = true;
  int64_t m = 17, n = 24, k = 64;
};
std::string FormatGemmCase(const GemmCase& c);
// Keys may come in any order and be left out (their default above); an
// unknown key or value is an error naming it and the choices.
absl::StatusOr<GemmCase> ParseGemmCase(const std::string& text);

// Every "field=member" IGemm/1 can claim (what a plugin that claims less
// reports as not declared).
std::vector<std::string> AllGemmClaims();

// A case to run, with its input seed and the claims it exercises.
struct PlannedGemmCase {
  GemmCase gemm;
  uint64_t seed = 0;
  std::vector<std::string> exercises;
};
// One case per claim conformance can build, then (unless `quick`) sampled
// combinations of claims; seeds derived from `seed`.
std::vector<PlannedGemmCase> PlanGemmCases(const std::vector<std::string>& claims, bool quick,
                                           uint64_t seed);
// The claims of `case`, the same strings PlanGemmCases lists.
std::vector<std::string> ClaimsExercised(const GemmCase& c);
// Whether conformance can build inputs for `claim` (every IGemm/1 claim but
// integer and e8m0 dtypes and an fp4 D, which it cannot build).
bool GemmClaimCheckable(const std::string& claim);

// Runs `c` through `provider` in `plugin` (on `where`'s device when given,
// on host memory otherwise) and the reference in `oracle` (host memory).
CaseOutcome RunGemmCase(const core::Kernel& plugin, const std::string& provider,
                        const core::Kernel& oracle, const GemmCase& c, uint64_t seed,
                        const CaseDevice* where = nullptr);

// The contract checks, by name, in the order they run.
std::vector<std::string> GemmContractCheckNames();
// Those of them that also run on a device: workspace and struct_sizes (the
// others, refcount, threads and the refusals, are the shared checks there).
std::vector<std::string> GemmDeviceContractCheckNames();
// Runs the contract checks named `only` (all when empty) on the
// implementation `provider` serves `base` with: on host memory all of
// GemmContractCheckNames, on `where`'s device (every tensor, the workspace
// and the stream there) those of GemmDeviceContractCheckNames.
std::vector<ContractOutcome> RunGemmContractChecks(const core::Kernel& plugin,
                                                   const std::string& provider,
                                                   const std::vector<std::string>& claims,
                                                   const GemmCase& base, uint64_t seed,
                                                   const std::string& only,
                                                   const CaseDevice* where = nullptr);

// IGemm/1 for the conformance command (cases as FormatGemmCase text).
const InterfaceConformance& GemmConformance();

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CONFORMANCE_GEMM_H_
