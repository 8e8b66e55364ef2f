#include "tools/teplug/conformance_contract.h"

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/kernel/kernel.h"
#include "core/log/untrusted_text.h"

namespace teplug::cli {
namespace {

bool KnownFailureCode(int32_t code) {
  return code >= TEPLUG_INVALID_ARGUMENT && code <= TEPLUG_FAILED_PRECONDITION;
}

// What CheckErrorObject checks, without destroying `error`.
bool error_well_formed(const TeplugError* error) {
  return error->struct_size >= TEPLUG_STRUCT_SIZE(TeplugError, destroy) &&
         KnownFailureCode(error->code) && error->message != nullptr && error->destroy != nullptr;
}

}  // namespace

std::string TakeError(TeplugError* error, const char* call) {
  if (error == nullptr) return "";
  std::string text =
      absl::StrCat(call, " returned ", teplug_code_name(error->code), ": ",
                   error->message == nullptr ? std::string("(no message)")
                                             : core::EscapeUntrustedText(error->message));
  if (error->destroy != nullptr) error->destroy(error);
  return text;
}

std::string CheckRefcountAround(TeplugObject* object, const std::function<std::string()>& call) {
  const TeplugObjectVtbl* v = object->vtbl;
  const uint32_t held = v->add_ref(object);
  const std::string problem = call();
  const uint32_t after_call = v->add_ref(object);
  const uint32_t released = v->release(object);
  const uint32_t back = v->release(object);
  if (!problem.empty()) return problem;
  if (after_call != held + 1) {
    return absl::StrCat("the call changed the reference count: add_ref returned ", held,
                        " before it and ", after_call, " after it (expected ", held + 1, ")");
  }
  if (released != after_call - 1 || back != held - 1) {
    return absl::StrCat("release does not decrement: add_ref returned ", after_call,
                        ", then release returned ", released, " and ", back, " (expected ",
                        after_call - 1, " and ", held - 1, ")");
  }
  return "";
}

std::string CheckErrorObject(TeplugError* error, const std::string& what) {
  if (error == nullptr) return absl::StrCat(what, " returned success; it must fail");
  std::string problem;
  if (error->struct_size < TEPLUG_STRUCT_SIZE(TeplugError, destroy)) {
    problem = absl::StrCat("struct_size ", error->struct_size, " is smaller than ",
                           TEPLUG_STRUCT_SIZE(TeplugError, destroy));
  } else if (!KnownFailureCode(error->code)) {
    problem = absl::StrCat("code ", error->code, " is not a TeplugCode failure (1..9)");
  } else if (error->message == nullptr) {
    problem = "message is NULL";
  } else if (error->destroy == nullptr) {
    problem = "destroy is NULL";
  }
  if (error->destroy != nullptr && error->struct_size >= TEPLUG_STRUCT_SIZE(TeplugError, destroy))
    error->destroy(error);
  return problem.empty() ? ""
                         : absl::StrCat("the error object of ", what, " is malformed: ", problem);
}

std::string CheckSupportsReason(TeplugSupportsFn supports, TeplugObject* object, int32_t op,
                                const void* args, const std::string& what) {
  if (supports == nullptr) return "";
  char reason[256] = {0};
  if (supports(object, op, args, reason, sizeof reason) != 0) return "";
  if (reason[0] == '\0') return absl::StrCat("supports said no to ", what, " without a reason");
  return "";
}

std::string CheckRefused(TeplugError* error, const std::string& what) {
  if (error == nullptr) {
    return absl::StrCat(what,
                        " succeeded; what the descriptor does not declare must be answered "
                        "unsupported (or invalid_argument)");
  }
  const int32_t code = error->code;
  std::string text = TakeError(error, "it");
  if (code == TEPLUG_UNSUPPORTED || code == TEPLUG_INVALID_ARGUMENT) return "";
  return absl::StrCat(what, ": ", text, "; expected unsupported or invalid_argument");
}

std::string RefusalReport::First() const {
  for (const std::string* p : {&refused_op, &error_object, &supports_reason})
    if (!p->empty()) return *p;
  return "";
}

RefusalReport CheckRefusedCall(
    DeviceStaging* staging, const std::string& what,
    const std::function<TeplugError*(size_t* bytes)>& workspace_size,
    const std::function<TeplugError*(void* workspace, size_t bytes, TeplugStream stream)>& call) {
  RefusalReport r;
  size_t bytes = 0;
  TeplugError* e = workspace_size(&bytes);
  if (e == nullptr) {
    void* workspace = nullptr;
    if (std::string w = staging->Workspace(bytes, &workspace); !w.empty()) {
      r.refused_op = w;
      return r;
    }
    e = call(workspace, bytes, staging->stream());
  }
  if (e == nullptr) {
    // Accepted: the work finishes before its memory goes.
    r.refused_op = CheckRefused(nullptr, what);
    if (std::string f = staging->Finish(); !f.empty())
      r.refused_op = absl::StrCat(r.refused_op, "; then ", f);
    return r;
  }
  // Read what CheckRefused needs before CheckErrorObject destroys it.
  const bool well_formed = error_well_formed(e);
  if (!well_formed) {
    r.error_object = CheckErrorObject(e, what);
    return r;
  }
  r.refused_op = CheckRefused(e, what);
  return r;
}

std::string CheckConcurrentCalls(const std::function<std::string()>& call) {
  std::mutex mu;
  std::string first;
  std::vector<std::thread> threads;
  std::atomic<int> ready{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Start together, so the calls overlap.
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
      for (int i = 0; i < kCallsPerThread; ++i) {
        std::string p = call();
        if (p.empty()) continue;
        std::lock_guard<std::mutex> lock(mu);
        if (first.empty())
          first = absl::StrCat("thread ", t + 1, " of ", kThreads, ", call ", i + 1,
                               " (calls at the same time): ", p);
        return;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  return first;
}

std::vector<std::string> SharedContractCheckNames(const InterfaceConformance& ic) {
  if (ic.refuses == nullptr) return {"refcount", "threads"};
  return {"refcount", "error_object", "supports_reason", "refused_op", "threads"};
}

std::optional<RefusalCase> FindRefusalCase(const InterfaceConformance& ic,
                                           const std::vector<std::string>& claims,
                                           const std::vector<DeclaredLimit>& limits,
                                           const std::string& base, uint64_t seed) {
  for (const LimitProbe& p : PlanLimitProbes(base, limits)) {
    absl::StatusOr<std::string> inside = FitCase(p.outside, limits);
    if (!p.outside.empty() && inside.ok()) return RefusalCase{*inside, p.outside};
  }
  for (const std::string& claim : ic.all_claims()) {
    const std::string field = claim.substr(0, claim.find('='));
    if (!absl::EndsWith(field, "dtypes") || HasClaim(claims, claim) || !ic.checkable(claim))
      continue;
    std::vector<std::string> with = claims;
    with.push_back(claim);
    for (const PlannedCase& p : ic.plan(with, true, seed)) {
      if (!HasClaim(p.exercises, claim)) continue;
      bool others_declared = true;
      for (const std::string& e : p.exercises)
        others_declared = others_declared && (e == claim || HasClaim(claims, e));
      absl::StatusOr<std::string> fitted = FitCase(p.text, limits);
      if (others_declared && fitted.ok()) return RefusalCase{base, *fitted};
    }
  }
  return std::nullopt;
}

RefusalReport CallRefused(const InterfaceConformance& ic, const core::Kernel& plugin,
                          const std::string& provider, const RefusalCase& r, uint64_t seed,
                          const CaseDevice* where) {
  RefusalReport report;
  absl::StatusOr<core::Selection> s =
      where == nullptr ? ic.select(plugin, provider, r.inside)
                       : ic.select_on_device(plugin, provider, r.inside, *where);
  if (!s.ok()) {
    report.refused_op = absl::StrCat("the plugin does not serve the case it must refuse beside (",
                                     r.inside, "): ", KernelMessageHead(s.status().message()));
    return report;
  }
  report = ic.refuses(s->as<TeplugObject>(), r.outside, seed, where);
  for (std::string* p :
       {&report.refused_op, &report.error_object, &report.supports_reason}) {
    if (!p->empty()) *p = absl::StrCat("case ", r.outside, ": ", *p);
  }
  return report;
}

std::vector<ContractOutcome> RunSharedContractChecks(
    const InterfaceConformance& ic, const core::Kernel& plugin, const std::string& provider,
    const core::Kernel& oracle, const std::vector<std::string>& claims,
    const std::vector<DeclaredLimit>& limits, const std::string& base, uint64_t seed,
    const std::string& only, const CaseDevice* where) {
  // A run alone first; then "" when a run ends exactly as it did: the same
  // problem, or the same error against the reference to the last bit (the
  // numerics cases say whether that error is within tolerance).
  auto run_once = [&] {
    return where == nullptr ? ic.run(plugin, provider, oracle, base, seed)
                            : ic.run_on_device(plugin, provider, oracle, base, seed, *where);
  };
  const CaseOutcome alone = run_once();
  auto run = [&]() -> std::string {
    const CaseOutcome o = run_once();
    if (o.problem == alone.problem && o.max_error == alone.max_error) return "";
    if (!o.problem.empty()) return o.problem;
    return absl::StrCat("the result differs from a call alone: error against the reference ",
                        o.max_error, " where it was ", alone.max_error);
  };
  std::vector<ContractOutcome> results;
  // The refusal the three refusal checks read, made once.
  std::optional<RefusalReport> refusal;
  std::string nothing_to_refuse;
  auto refused = [&]() -> const RefusalReport& {
    if (!refusal) {
      refusal.emplace();
      if (std::optional<RefusalCase> r = FindRefusalCase(ic, claims, limits, base, seed)) {
        *refusal = CallRefused(ic, plugin, provider, *r, seed, where);
      } else {
        nothing_to_refuse = "every dtype is declared and no limit: nothing to refuse";
      }
    }
    return *refusal;
  };
  for (const std::string& check : SharedContractCheckNames(ic)) {
    if (!only.empty() && check != only) continue;
    ContractOutcome o{check, false, ""};
    if (check == "refused_op" || check == "error_object" || check == "supports_reason") {
      const RefusalReport& r = refused();
      o.detail = check == "refused_op"     ? r.refused_op
                 : check == "error_object" ? r.error_object
                                           : r.supports_reason;
      o.passed = o.detail.empty();
      if (o.passed) o.detail = nothing_to_refuse;
      results.push_back(o);
      continue;
    }
    if (check == "refcount") {
      absl::StatusOr<core::Selection> s =
          where == nullptr ? ic.select(plugin, provider, base)
                           : ic.select_on_device(plugin, provider, base, *where);
      o.detail = s.ok() ? CheckRefcountAround(s->as<TeplugObject>(), run)
                        : absl::StrCat("the plugin does not serve the base case ", base);
    } else {
      o.detail = CheckConcurrentCalls(run);
    }
    o.passed = o.detail.empty();
    results.push_back(o);
  }
  return results;
}

}  // namespace teplug::cli
