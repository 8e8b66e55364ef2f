// The contract checks `teplug conformance` makes of any interface object,
// whatever its interface: each returns "" when the object kept the contract
// (interfaces/README.md) and otherwise one line saying what it broke. Text
// from the plugin in those lines is escaped (EscapeUntrustedText).
#ifndef TEPLUG_TOOLS_TEPLUG_CONFORMANCE_CONTRACT_H_
#define TEPLUG_TOOLS_TEPLUG_CONFORMANCE_CONTRACT_H_

#include <functional>
#include <optional>
#include <string>

#include "teplug/teplug.h"
#include "tools/teplug/conformance_interface.h"
#include "tools/teplug/conformance_limits.h"

namespace teplug::cli {

// "" for NULL (success); otherwise "<call> returned <code>: <message>" and
// the error destroyed (if it has a destroy to call). Never NULL-dereferences
// a malformed error.
std::string TakeError(TeplugError* error, const char* call);

// Adds a reference, runs `call` (which returns "" or its problem), then
// checks through add_ref/release's returned counts that the call kept no
// reference and that release decrements.
std::string CheckRefcountAround(TeplugObject* object, const std::function<std::string()>& call);

// `error` (returned by `what`, which must fail) is well formed: not NULL, a
// code of TeplugCode other than ok, a message, a destroy and a struct_size
// that holds them. Destroys it.
std::string CheckErrorObject(TeplugError* error, const std::string& what);

// When `supports` (may be NULL: no hook) says no to `args`, it gives a reason.
std::string CheckSupportsReason(TeplugSupportsFn supports, TeplugObject* object, int32_t op,
                                const void* args, const std::string& what);

// `error`, the answer to an op outside the declared capability, is
// UNSUPPORTED or INVALID_ARGUMENT, not success. Destroys it.
std::string CheckRefused(TeplugError* error, const std::string& what);

// The refusal of such a call, made directly on an implementation: asks
// `workspace_size` (a refusal there counts) and, when it answers, gets that
// much workspace from `staging` and makes `call` with it on staging's
// stream. Fills refused_op and error_object (naming `what`).
RefusalReport CheckRefusedCall(
    DeviceStaging* staging, const std::string& what,
    const std::function<TeplugError*(size_t* bytes)>& workspace_size,
    const std::function<TeplugError*(void* workspace, size_t bytes, TeplugStream stream)>& call);

// Runs `call` kThreads x kCallsPerThread times from kThreads threads at once;
// the first problem any call reports, naming the thread and call.
inline constexpr int kThreads = 4;
inline constexpr int kCallsPerThread = 8;
std::string CheckConcurrentCalls(const std::function<std::string()>& call);

// The contract checks any interface gets from its InterfaceConformance
// alone: refcount (the case `base` keeps no reference of the implementation
// serving it; release decrements), threads (the case run from kThreads
// threads at once ends every time exactly as it did run alone: the same
// error against the reference, to the last bit) and, where the interface
// has a `refuses` call, refused_op, error_object and supports_reason: a case
// the implementation must refuse (RefusalCase) called on it directly is
// refused, with a well-formed error, and supports says why it says no. With
// `where`, the cases run on that device (run_on_device, select_on_device;
// both must be set).
std::vector<std::string> SharedContractCheckNames(const InterfaceConformance& ic);
std::vector<ContractOutcome> RunSharedContractChecks(
    const InterfaceConformance& ic, const core::Kernel& plugin, const std::string& provider,
    const core::Kernel& oracle, const std::vector<std::string>& claims,
    const std::vector<DeclaredLimit>& limits, const std::string& base, uint64_t seed,
    const std::string& only, const CaseDevice* where = nullptr);

// A case the implementation serving `inside` must refuse: `outside`.
struct RefusalCase {
  std::string inside, outside;
};
// The first declared limit's case just past it, else a case exercising a
// dtype the descriptor does not declare (every other claim it exercises
// declared) beside `base`; nullopt when there is neither.
std::optional<RefusalCase> FindRefusalCase(const InterfaceConformance& ic,
                                           const std::vector<std::string>& claims,
                                           const std::vector<DeclaredLimit>& limits,
                                           const std::string& base, uint64_t seed);
// Selects the implementation serving `r.inside` (on `where`'s device when
// given) and calls `r.outside` on it through ic.refuses; problems name the
// case.
RefusalReport CallRefused(const InterfaceConformance& ic, const core::Kernel& plugin,
                          const std::string& provider, const RefusalCase& r, uint64_t seed,
                          const CaseDevice* where);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CONFORMANCE_CONTRACT_H_
