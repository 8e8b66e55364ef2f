#include "core/kernel/kernel_core.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_format.h"

namespace teplug::core {

KernelState::KernelState(size_t num_interfaces) {
  impls.reserve(num_interfaces);
  for (size_t i = 0; i < num_interfaces; ++i) impls.push_back(std::make_shared<const ImplementationList>());
}

std::unique_ptr<KernelState> KernelState::CopyWithoutCache() const {
  auto s = std::make_unique<KernelState>(0);
  s->config = config;
  s->providers = providers;
  s->impls = impls;
  s->report = report;
  s->config_warnings = config_warnings;
  s->device_names = device_names;
  s->generation = generation + 1;
  return s;
}

const Provider* KernelState::FindProvider(absl::string_view name) const {
  // `providers` is sorted by name: a binary search.
  auto at = std::lower_bound(providers.begin(), providers.end(), name,
                             [](const auto& p, absl::string_view n) { return p->name < n; });
  return at != providers.end() && (*at)->name == name ? at->get() : nullptr;
}

std::optional<std::string> KernelState::ProviderSource(absl::string_view name) const {
  const Provider* p = FindProvider(name);
  if (p == nullptr) return std::nullopt;
  return p->source;
}

KernelCore::KernelCore(KernelOptions options, std::shared_ptr<Logger> logger,
                       std::unique_ptr<KernelState> initial)
    : options_(std::move(options)), logger_(std::move(logger)), state_(std::move(initial)) {}

absl::StatusOr<Decision> KernelCore::DecideNow(const KernelState& state, const InterfaceModule& module,
                                               const OpSpec& op, const void* args,
                                               absl::string_view provider) const {
  absl::StatusOr<OpDescription> desc = op.describe(module, op, args, *state.device_names);
  if (!desc.ok()) return desc.status();
  SelectRequest req;
  req.op = &*desc;
  req.candidates = state.impls[static_cast<size_t>(module.index())];
  req.config = state.config;
  req.provider = std::string(provider);
  req.api_strict = options_.strict;
  req.spelling = state.device_names;
  Decision d = Decide(req);
  const DecisionRecord& rec = d.record();
  for (const CandidateVerdict& v : rec.candidates) {
    if (!v.supports_threw) continue;
    logger_->LogOnce(absl::StrCat("exception:", d.op_summary(), ":", v.implementation()),
                     LogLevel::kWarn,
                     absl::StrCat(rec.ExplanationOf(v), " (asked about ", d.op_summary(),
                                  "); treated as a refusal"));
  }
  if (logger_->Enabled(LogLevel::kDebug)) {
    for (const CandidateVerdict& v : rec.candidates) {
      if (v.verdict == Verdict::kRejected) {
        const std::string rule = rec.Rule(v);
        logger_->Log(LogLevel::kDebug, absl::StrCat(d.op_summary(), ": ", v.implementation(), " rejected [",
                                                    StageName(v.stage), "] ", rec.Reason(v),
                                                    rule.empty() ? "" : " by ", rule));
      }
    }
  }
  return d;
}

const CachedDecision* KernelCore::DecideAndCache(const KernelState& state, const InterfaceModule& module,
                                                 const OpSpec& op, const void* args, const OpSignature* sig,
                                                 std::unique_ptr<CachedDecision>* uncached,
                                                 TeplugError** err) const {
  absl::StatusOr<Decision> d = DecideNow(state, module, op, args, "");
  if (!d.ok()) {
    *err = teplug_error_create(TEPLUG_INVALID_ARGUMENT, std::string(d.status().message()).c_str());
    return nullptr;
  }
  LogServedOnce(*d);
  auto entry = std::make_unique<CachedDecision>();
  entry->decision = *std::move(d);
  if (sig != nullptr) {
    entry->key = *sig;
    if (const CachedDecision* cached = state.cache.Insert(entry)) return cached;
    logger_->LogOnce("cache-full", LogLevel::kDebug,
                     "decision cache window full: some signatures are decided on every call");
  }
  *uncached = std::move(entry);
  return uncached->get();
}

absl::StatusOr<std::unique_ptr<PreparedOp>> KernelCore::Prepare(const InterfaceModule& module, const OpSpec& op,
                                                                const void* args, bool check_calls) const {
  auto guard = state_.Read();
  OpSignature key;
  if (!op.build_key(args, &key)) {
    // Malformed args say what is wrong; well-formed ones are of an op that
    // is decided elsewhere than per call.
    absl::StatusOr<OpDescription> desc = op.describe(module, op, args, *guard->device_names);
    if (!desc.ok()) return desc.status();
    return absl::FailedPreconditionError(absl::StrCat(
        module.display_name(), " ", op.name, " cannot be prepared: it is not decided per call (",
        desc->summary, "); use the dispatching object"));
  }
  const CachedDecision* c = guard->cache.Find(key);
  std::unique_ptr<CachedDecision> uncached;
  if (c == nullptr) {
    TeplugError* err = nullptr;
    c = DecideAndCache(*guard, module, op, args, &key, &uncached, &err);
    if (c == nullptr) {
      absl::Status s = absl::InvalidArgumentError(err->message);
      err->destroy(err);
      return s;
    }
  }
  const Decision& d = c->decision;
  if (d.ranked.empty()) {
    return absl::NotFoundError(
        absl::StrCat("teplug: no provider can serve ", d.op_summary(), "\n", d.record().Format()));
  }
  auto prepared = std::make_unique<PreparedOp>(op.op, key, d.op_summary(), check_calls);
  prepared->Bind(guard->generation, c, std::move(uncached));
  return prepared;
}

void KernelCore::Rebind(const PreparedOp& prepared) const {
  auto guard = state_.Read();
  const CachedDecision* c = guard->cache.Find(prepared.key());
  if (c != nullptr && !c->decision.ranked.empty()) prepared.Bind(guard->generation, c);
}

TeplugError* KernelCore::CheckPreparedCall(const InterfaceModule& module, const OpSpec& op,
                                           const PreparedOp& prepared, const void* args) const {
  OpSignature key;
  if (op.build_key(args, &key) && key == prepared.key()) return nullptr;
  auto guard = state_.Read();
  absl::StatusOr<OpDescription> desc = op.describe(module, op, args, *guard->device_names);
  std::string msg = absl::StrCat(
      "teplug: a dispatching object prepared for ", prepared.summary(), " was called with ",
      desc.ok() ? desc->summary : absl::StrCat("malformed args: ", desc.status().message()),
      desc.ok() && desc->summary == prepared.summary()
          ? " (they differ in a keyed fact the summary does not show: a pointer's alignment, explicit strides, "
            "quantization or the workspace)"
          : "",
      desc.ok() ? "; a prepared object serves only calls with the facts it was prepared for "
                  "(use the dispatching object, or prepare one per signature)"
                : "");
  return teplug_error_create(TEPLUG_INVALID_ARGUMENT, msg.c_str());
}

void KernelCore::LogServedOnce(const Decision& d) const {
  if (!logger_->Enabled(LogLevel::kInfo)) return;
  logger_->LogOnceWith(absl::StrCat("served:", d.op_summary()), LogLevel::kInfo,
                       [&d] { return absl::StrCat("serving ", d.record().OneLine()); });
}

TeplugError* KernelCore::NoProvider(const Decision& d) const {
  std::string msg = absl::StrCat("teplug: no provider can serve ", d.op_summary(), "\n", d.record().Format());
  return teplug_error_create(TEPLUG_UNSUPPORTED, msg.c_str());
}

TeplugError* KernelCore::BrokenCandidates(const CachedDecision& c) const {
  const Decision& d = c.decision;
  std::vector<absl::string_view> broken;
  for (size_t i = 0; i < d.ranked.size(); ++i) {
    if (c.IsBroken(i)) broken.push_back(d.ranked[i]->QualifiedName());
  }
  std::string msg = absl::StrCat(
      "teplug: cannot serve ", d.op_summary(), ": ", absl::StrJoin(broken, ", "),
      " let a C++ exception escape an earlier call of this signature and ", broken.size() == 1 ? "is" : "are",
      " skipped for it until the registry or config changes (the warning logged then names the exception); ",
      d.strict() ? absl::StrCat("strict mode (", d.strict_source(), "): no fallback")
                 : std::string("no other candidate is left"),
      "\n", d.record().Format());
  return teplug_error_create(TEPLUG_INTERNAL, msg.c_str());
}

TeplugError* KernelCore::OnCallError(const CachedDecision& c, size_t index, TeplugError* e, bool threw) const {
  const Decision& d = c.decision;
  const int32_t code = e->code;
  // Returned codes other than these are the op's answer (a bad argument, an
  // internal failure the plugin reported): they go back to the caller. An
  // exception means the implementation broke: it counts as failed for this
  // signature (later calls skip it) and the next candidate is tried.
  if (!threw && code != TEPLUG_UNSUPPORTED && code != TEPLUG_UNAVAILABLE) return e;
  if (threw) c.MarkBroken(index);
  const std::string& failed = d.ranked[index]->QualifiedName();
  const size_t next = c.NextUsable(index + 1);
  if (d.strict() || next == d.ranked.size()) {
    std::string why = d.strict()
                          ? absl::StrCat("strict mode (", d.strict_source(), "): no fallback")
                          : std::string("no further candidate to fall back to");
    if (threw) absl::StrAppend(&why, "; ", failed, " is skipped for this signature from now on");
    if (threw) {  // logged once even when no fallback follows
      logger_->LogOnce(absl::StrCat("exception:", d.op_summary(), ":", failed), LogLevel::kWarn,
                       absl::StrCat(e->message, " (serving ", d.op_summary(), "); ", why));
    }
    std::string full = absl::StrCat(e->message, "\n", why, "\n", d.record().Format());
    e->destroy(e);
    return teplug_error_create(static_cast<TeplugCode>(code), full.c_str());
  }
  // Never silent: the first fallback per signature and implementation is a
  // warning that names both implementations and the error. Later calls with
  // this cached decision skip the strings and the logger's lock.
  if (d.FirstFallbackFrom(index)) {
    logger_->LogOnce(absl::StrCat("fallback:", d.op_summary(), ":", failed), LogLevel::kWarn,
                     absl::StrCat(e->message, " (serving ", d.op_summary(), "); falling back to ",
                                  d.ranked[next]->QualifiedName(),
                                  threw ? absl::StrCat("; ", failed, " is skipped for this signature from now on")
                                        : std::string()));
  }
  e->destroy(e);
  return nullptr;
}

}  // namespace teplug::core
