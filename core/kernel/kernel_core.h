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

#include "absl/status/statusor.h"
#include "core/concurrency/read_mostly.h"
#include "core/config/config_snapshot.h"
#include "core/kernel/decision_cache.h"
#include "core/kernel/kernel.h"
#include "core/loader/load_report.h"
#include "core/log/logger.h"
#include "core/registry/implementation.h"
#include "core/select/op_description.h"
#include "core/select/selector.h"

namespace teplug::core {

// Everything a call needs, immutable once published (the cache only fills).
struct KernelState {
  std::shared_ptr<const config::ConfigSnapshot> config;
  std::vector<std::shared_ptr<const Provider>> providers;  // by name
  // Per interface, sorted by provider then name (what Decide expects); never
  // null. Shared with decisions, which point into them.
  std::array<std::shared_ptr<const ImplementationList>, kNumInterfaceKinds> impls;
  std::vector<LoadReportEntry> report;
  std::vector<std::string> config_warnings;
  mutable DecisionCache cache;

  // A copy of everything but the cache (which starts empty).
  KernelState();
  std::unique_ptr<KernelState> CopyWithoutCache() const;
  bool HasProvider(absl::string_view name) const;
};

class KernelCore {
 public:
  KernelCore(KernelOptions options, std::shared_ptr<Logger> logger, std::unique_ptr<KernelState> initial);

  // Runs one op: selects (cached per signature), calls `call(impl)` on the
  // ranked implementations until one succeeds or fails with an error that
  // is not UNSUPPORTED/UNAVAILABLE, and applies strict mode. Never throws.
  template <class Call>
  TeplugError* Dispatch(InterfaceKind kind, int32_t op, const void* args, Call&& call) const;

  // Runs `fn(const Decision&)` on the cached decision for the op (deciding
  // on a miss) while the state is held; returns fn's error, or an
  // INVALID_ARGUMENT error for malformed args. For supports/workspace_size.
  template <class Fn>
  TeplugError* WithDecision(InterfaceKind kind, int32_t op, const void* args, Fn&& fn) const {
    auto guard = state_.Read();
    std::unique_ptr<CachedDecision> uncached;
    TeplugError* err = nullptr;
    const Decision* d = Resolve(*guard, kind, op, args, &uncached, &err);
    if (d == nullptr) return err;
    return fn(*d);
  }

  // Selection outside the cache (Select/Explain, comm_create).
  absl::StatusOr<Decision> DecideNow(const KernelState& state, InterfaceKind kind, int32_t op,
                                     const void* args, absl::string_view provider) const;

  const KernelOptions& options() const { return options_; }
  Logger& logger() const { return *logger_; }
  const std::shared_ptr<Logger>& shared_logger() const { return logger_; }
  ReadMostly<KernelState>& state() const { return state_; }

 private:
  // Cache lookup + slow path. Returns the decision to use; `uncached` owns it
  // when the cache could not take it. Sets *err for malformed args.
  const Decision* Resolve(const KernelState& state, InterfaceKind kind, int32_t op, const void* args,
                          std::unique_ptr<CachedDecision>* uncached, TeplugError** err) const;
  // Handles a failed call: returns the error to give the caller, or nullptr
  // to try the next candidate (after logging the fallback once).
  TeplugError* OnCallError(const Decision& d, size_t index, TeplugError* e) const;
  TeplugError* NoProvider(const Decision& d) const;

  KernelOptions options_;
  std::shared_ptr<Logger> logger_;
  mutable ReadMostly<KernelState> state_;
};

template <class Call>
TeplugError* KernelCore::Dispatch(InterfaceKind kind, int32_t op, const void* args, Call&& call) const {
  auto guard = state_.Read();
  std::unique_ptr<CachedDecision> uncached;
  TeplugError* err = nullptr;
  const Decision* d = Resolve(*guard, kind, op, args, &uncached, &err);
  if (d == nullptr) return err;
  if (d->ranked.empty()) return NoProvider(*d);
  for (size_t i = 0; i < d->ranked.size(); ++i) {
    TeplugError* e = call(*d->ranked[i]);
    if (e == nullptr) return nullptr;
    if (TeplugError* final_error = OnCallError(*d, i, e)) return final_error;
  }
  return nullptr;  // unreachable: OnCallError returns an error for the last candidate
}

}  // namespace teplug::core

#endif  // TEPLUG_CORE_KERNEL_KERNEL_CORE_H_
