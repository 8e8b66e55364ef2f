// Internals shared by Kernel and its dispatching objects: the published
// state (registry + config + decision cache) and the per-call dispatch loop.
// Not part of the public API.
#ifndef TEPLUG_CORE_KERNEL_KERNEL_CORE_H_
#define TEPLUG_CORE_KERNEL_KERNEL_CORE_H_

#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/status/statusor.h"
#include "core/boundary/plugin_call.h"
#include "core/concurrency/read_mostly.h"
#include "core/config/config_snapshot.h"
#include "core/kernel/decision_cache.h"
#include "core/kernel/device_names.h"
#include "core/kernel/kernel.h"
#include "core/kernel/prepared_op.h"
#include "core/loader/load_report.h"
#include "core/log/logger.h"
#include "core/ops/interface_module.h"
#include "core/ops/op_signature.h"
#include "core/registry/implementation.h"
#include "core/select/selector.h"

namespace teplug::core {

// Everything a call needs, immutable once published (the cache only fills).
struct KernelState {
  std::shared_ptr<const config::ConfigSnapshot> config;
  std::vector<std::shared_ptr<const Provider>> providers;  // by name
  // Per interface (InterfaceModule::index()), sorted by provider then name
  // (what Decide expects); never null. Shared with decisions, which point
  // into them.
  std::vector<std::shared_ptr<const ImplementationList>> impls;
  // Shared between states, so publishing a state copies one pointer per
  // entry, not every implementation name of every loaded provider.
  std::vector<std::shared_ptr<const LoadReportEntry>> report;
  std::vector<std::string> config_warnings;
  // Names the providers declared for vendor device kinds and vendor ids;
  // never null, replaced (not changed) when a provider adds names.
  std::shared_ptr<const DeviceNames> device_names = std::make_shared<const DeviceNames>();
  mutable DecisionCache cache;
  // Counts published states (the first is 0); a prepared op's binding names
  // the state its decision was made in by this number.
  uint64_t generation = 0;

  // Empty lists for `num_interfaces` interfaces.
  explicit KernelState(size_t num_interfaces);
  // A copy of everything but the cache (which starts empty), one generation on.
  std::unique_ptr<KernelState> CopyWithoutCache() const;
  // The registered provider named `name`, or null.
  const Provider* FindProvider(absl::string_view name) const;
  // For the loader: the source (escaped path, or "built-in") of the provider
  // already registered as `name`, or nullopt when the name is free.
  std::optional<std::string> ProviderSource(absl::string_view name) const;
};

class KernelCore {
 public:
  KernelCore(KernelOptions options, std::shared_ptr<Logger> logger, std::unique_ptr<KernelState> initial);

  // Runs one op: selects (cached per signature), calls `call(impl)` (the
  // implementation's `method`, through CallPlugin) on the ranked
  // implementations until one succeeds or fails with an error that is not
  // UNSUPPORTED/UNAVAILABLE and did not come from a C++ exception, and
  // applies strict mode. Every error it returns is host-made. Never throws.
  // The cache hit is inline and the rest out of line (DispatchMiss), so the
  // common call is the signature, one probe and the call.
  // `kOp` is a compile-time op spec so that its key builder is inlined here.
  template <const OpSpec& kOp, class Call>
  TeplugError* Dispatch(const InterfaceModule& module, const void* args, Call&& call) const;

  // Dispatch for a dispatching object prepared for one op (Kernel::Prepare):
  // the same fallback, strict mode and error handling as Dispatch, with the
  // decision taken from `prepared` instead of the cache while the state it
  // was made in is current. With check_calls, a call whose key differs from
  // the prepared one is refused with INVALID_ARGUMENT.
  template <const OpSpec& kOp, class Call>
  TeplugError* DispatchPrepared(const InterfaceModule& module, const PreparedOp& prepared, const void* args,
                                Call&& call) const;

  // Decides `op` for `args` (cached like a call) and returns it prepared:
  // INVALID_ARGUMENT for malformed args, FAILED_PRECONDITION for an op not
  // decided per call (collectives, device opening), NOT_FOUND with the
  // decision record when nothing can serve it.
  absl::StatusOr<std::unique_ptr<PreparedOp>> Prepare(const InterfaceModule& module, const OpSpec& op,
                                                      const void* args, bool check_calls) const;

  // Runs `fn(const Decision&)` on the cached decision for the op (deciding
  // on a miss) while the state is held; returns fn's error, or an
  // INVALID_ARGUMENT error for malformed args. For supports/workspace_size.
  template <class Fn>
  TeplugError* WithDecision(const InterfaceModule& module, const OpSpec& op, const void* args, Fn&& fn) const {
    auto guard = state_.Read();
    OpSignature sig;
    const bool keyed = op.build_key(args, &sig);
    const CachedDecision* hit = keyed ? guard->cache.Find(sig) : nullptr;
    if (hit != nullptr) return fn(hit->decision);
    std::unique_ptr<CachedDecision> uncached;
    TeplugError* err = nullptr;
    const CachedDecision* c = DecideAndCache(*guard, module, op, args, keyed ? &sig : nullptr, &uncached, &err);
    if (c == nullptr) return err;
    return fn(c->decision);
  }

  // The INFO line for the first time a signature is served (per kernel):
  // where it goes and why. The record's text is formatted only when the
  // line is printed.
  void LogServedOnce(const Decision& d) const;

  // Selection outside the cache (Select/Explain, comm_create).
  absl::StatusOr<Decision> DecideNow(const KernelState& state, const InterfaceModule& module, const OpSpec& op,
                                     const void* args, absl::string_view provider) const;

  const KernelOptions& options() const { return options_; }
  Logger& logger() const { return *logger_; }
  const std::shared_ptr<Logger>& shared_logger() const { return logger_; }
  ReadMostly<KernelState>& state() const { return state_; }

 private:
  // The cache miss: decides, logs the first serving of the signature, and
  // caches the decision under `sig` (NULL when the call could not be keyed).
  // Returns the decision to use; `uncached` owns it when the cache could not
  // take it. Sets *err for malformed args.
  const CachedDecision* DecideAndCache(const KernelState& state, const InterfaceModule& module, const OpSpec& op,
                                       const void* args, const OpSignature* sig,
                                       std::unique_ptr<CachedDecision>* uncached, TeplugError** err) const;
  // Everything but a cache hit that succeeds at once: the miss, an empty
  // ranking, and call-time fallback from `first_error` (the error of
  // candidate 0 on a hit, `first_threw` when it came from an exception;
  // NULL on a miss, where nothing was called yet, and on a hit whose
  // ranking has a candidate marked broken). Candidates marked broken for
  // the signature are skipped.
  template <class Call>
  TeplugError* DispatchMiss(const KernelState& state, const InterfaceModule& module, const OpSpec& op,
                            const void* args, const OpSignature* sig, const CachedDecision* hit,
                            TeplugError* first_error, bool first_threw, Call& call) const;
  // Handles a failed call of candidate `index`: `e` is host-made (CallPlugin)
  // and `threw` says it came from a C++ exception. Returns the error to give
  // the caller, or nullptr to try the next candidate (after logging the
  // fallback once). UNSUPPORTED, UNAVAILABLE and exceptions fall back; with
  // every other returned code `e` itself (the plugin's code and message)
  // goes back to the caller. An exception also marks the candidate broken
  // for the signature (`c.MarkBroken`), so later calls skip it.
  TeplugError* OnCallError(const CachedDecision& c, size_t index, TeplugError* e, bool threw) const;
  TeplugError* NoProvider(const Decision& d) const;
  // A prepared op's slow paths, out of line: binds the current state's
  // cached decision for its key, if there is one; the refusal of a call
  // whose key differs from the prepared one (check_calls).
  void Rebind(const PreparedOp& prepared) const;
  // A prepared op's call after the state changed: dispatched by key, then
  // the decision the new state cached is bound.
  template <const OpSpec& kOp, class Call>
  TeplugError* DispatchRebinding(const InterfaceModule& module, const PreparedOp& prepared, const void* args,
                                 Call& call) const;
  TeplugError* CheckPreparedCall(const InterfaceModule& module, const OpSpec& op, const PreparedOp& prepared,
                                 const void* args) const;
  // The call found no candidate it may use that is not marked broken for
  // the signature (every one is, or strict mode and the first choice is).
  TeplugError* BrokenCandidates(const CachedDecision& c) const;

  KernelOptions options_;
  std::shared_ptr<Logger> logger_;
  mutable ReadMostly<KernelState> state_;
};

template <const OpSpec& kOp, class Call>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline TeplugError* KernelCore::Dispatch(const InterfaceModule& module, const void* args,
                                                                      Call&& call) const {
  auto guard = state_.Read();
  OpSignature sig;
  constexpr auto kBuildKey = kOp.build_key;
  const bool keyed = kBuildKey(args, &sig);
  const CachedDecision* hit = keyed ? guard->cache.Find(sig) : nullptr;
  TeplugError* first_error = nullptr;
  bool first_threw = false;
  if (ABSL_PREDICT_TRUE(hit != nullptr && !hit->decision.ranked.empty() &&
                        hit->broken.load(std::memory_order_relaxed) == 0)) {
    const Implementation& impl = *hit->decision.ranked[0];
    first_error = CallPlugin({impl.QualifiedName(), kOp.name}, [&] { return call(impl); }, &first_threw);
    if (ABSL_PREDICT_TRUE(first_error == nullptr)) return nullptr;
  }
  return DispatchMiss(*guard, module, kOp, args, keyed ? &sig : nullptr, hit, first_error, first_threw, call);
}

template <const OpSpec& kOp, class Call>
TeplugError* KernelCore::DispatchPrepared(const InterfaceModule& module, const PreparedOp& prepared, const void* args,
                                          Call&& call) const {
  if (ABSL_PREDICT_FALSE(prepared.check_calls())) {
    if (TeplugError* e = CheckPreparedCall(module, kOp, prepared, args)) return e;
  }
  // No args at all never reach a plugin: the keyed path says what is wrong.
  if (ABSL_PREDICT_FALSE(args == nullptr)) return DispatchRebinding<kOp>(module, prepared, args, call);
  {
    auto guard = state_.Read();
    const PreparedOp::Binding* b = prepared.binding();
    if (ABSL_PREDICT_TRUE(b->generation == guard->generation)) {
      // Prepare bound only a decision with a candidate.
      const CachedDecision* hit = b->decision;
      TeplugError* first_error = nullptr;
      bool first_threw = false;
      if (ABSL_PREDICT_TRUE(hit->broken.load(std::memory_order_relaxed) == 0)) {
        const Implementation& impl = *hit->decision.ranked[0];
        first_error = CallPlugin({impl.QualifiedName(), kOp.name}, [&] { return call(impl); }, &first_threw);
        if (ABSL_PREDICT_TRUE(first_error == nullptr)) return nullptr;
      }
      return DispatchMiss(*guard, module, kOp, args, &prepared.key(), hit, first_error, first_threw, call);
    }
  }
  return DispatchRebinding<kOp>(module, prepared, args, call);
}

template <const OpSpec& kOp, class Call>
ABSL_ATTRIBUTE_NOINLINE TeplugError* KernelCore::DispatchRebinding(const InterfaceModule& module,
                                                                   const PreparedOp& prepared, const void* args,
                                                                   Call& call) const {
  TeplugError* e = Dispatch<kOp>(module, args, call);
  Rebind(prepared);
  return e;
}

template <class Call>
ABSL_ATTRIBUTE_NOINLINE TeplugError* KernelCore::DispatchMiss(const KernelState& state,
                                                              const InterfaceModule& module, const OpSpec& op,
                                                              const void* args,
                                                              const OpSignature* sig, const CachedDecision* hit,
                                                              TeplugError* first_error, bool first_threw,
                                                              Call& call) const {
  std::unique_ptr<CachedDecision> uncached;
  const CachedDecision* c = hit;
  size_t next = 0;
  if (c == nullptr) {
    TeplugError* err = nullptr;
    c = DecideAndCache(state, module, op, args, sig, &uncached, &err);
    if (c == nullptr) return err;
  } else if (first_error != nullptr) {
    if (TeplugError* final_error = OnCallError(*c, 0, first_error, first_threw)) return final_error;
    next = 1;
  }
  const Decision& d = c->decision;
  if (d.ranked.empty()) return NoProvider(d);
  size_t i = c->NextUsable(next);
  // Strict mode serves with the first choice or not at all, also when it
  // is marked broken.
  if (d.strict() && i != 0) return BrokenCandidates(*c);
  for (; i < d.ranked.size(); i = c->NextUsable(i + 1)) {
    const Implementation& impl = *d.ranked[i];
    bool threw = false;
    TeplugError* e = CallPlugin({impl.QualifiedName(), op.name}, [&] { return call(impl); }, &threw);
    if (e == nullptr) return nullptr;
    if (TeplugError* final_error = OnCallError(*c, i, e, threw)) return final_error;
  }
  // Reached only when every candidate from `next` on was already marked
  // broken (OnCallError answers the last one it sees with an error).
  return BrokenCandidates(*c);
}

}  // namespace teplug::core

#endif  // TEPLUG_CORE_KERNEL_KERNEL_CORE_H_
