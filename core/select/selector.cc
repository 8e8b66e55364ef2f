#include "core/select/selector.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/select/ask_supports.h"

namespace teplug::core {
namespace {

const char* StageName(Stage s) {
  switch (s) {
    case Stage::kRequest: return "request";
    case Stage::kConfig: return "config";
    case Stage::kDevice: return "device";
    case Stage::kCapability: return "capability";
    case Stage::kSupports: return "supports";
    case Stage::kRanking: return "ranking";
  }
  return "?";
}

}  // namespace

namespace {
bool ProviderThenName(const std::shared_ptr<const Implementation>& a,
                      const std::shared_ptr<const Implementation>& b) {
  return a->provider->name != b->provider->name ? a->provider->name < b->provider->name
                                                : a->name < b->name;
}
}  // namespace

void SortImplementations(ImplementationList* list) {
  std::sort(list->begin(), list->end(), ProviderThenName);
}

void MergeImplementations(ImplementationList* list, size_t sorted) {
  const auto middle = list->begin() + static_cast<std::ptrdiff_t>(sorted);
  std::sort(middle, list->end(), ProviderThenName);
  std::inplace_merge(list->begin(), middle, list->end(), ProviderThenName);
}

Decision Decide(const SelectRequest& req) {
  const OpDescription& op = *req.op;
  const config::ConfigSnapshot& cfg = *req.config;
  Decision out;
  out.pool_ = req.candidates;
  out.config_ = req.config;
  out.interface_name_ = op.module->display_name();
  out.op_summary_ = op.summary;
  out.requested_provider_ = req.provider;
  out.config_generation_ = cfg.generation();

  const config::OpFacts facts = op.Facts();
  const config::RuleVerdicts verdicts = cfg.Evaluate(facts);
  const char* iface = op.module->name();

  if (req.api_strict) {
    out.strict_ = true;
    out.strict_source_ = "API option";
  } else if (std::optional<bool> rule_strict = verdicts.RuleStrict()) {
    out.strict_ = *rule_strict;
    for (const config::CompiledRule* r : verdicts.matched()) {
      if (r->strict.has_value()) {
        out.strict_source_ = r->Describe();
        break;
      }
    }
  } else if (cfg.IsStrict(verdicts, iface)) {
    out.strict_ = true;
    out.strict_source_ = absl::StrCat("config ", cfg.source_name());
  }
  for (const config::CompiledRule* r : verdicts.matched()) {
    if (!r->prefer.empty()) {
      out.prefer_rule_ = r;
      break;
    }
  }

  using CompactVerdict = Decision::CompactVerdict;
  using Why = Decision::Why;
  std::vector<CompactVerdict> rejected;
  std::vector<CompactVerdict> survivors;
  survivors.reserve(req.candidates->size());
  // Candidates are grouped by provider: look the provider up in the config
  // once per group.
  const Provider* last_provider = nullptr;
  bool provider_enabled = true;
  std::optional<int> override_priority;
  for (const auto& impl : *req.candidates) {
    const std::string& pname = impl->provider->name;
    if (impl->provider.get() != last_provider) {
      last_provider = impl->provider.get();
      override_priority = cfg.PriorityOverride(pname, iface);
      provider_enabled = cfg.ProviderEnabled(pname);
    }
    CompactVerdict v;
    v.impl = impl.get();
    v.index = static_cast<size_t>(&impl - req.candidates->data());
    v.priority = override_priority.value_or(impl->default_priority);
    v.priority_from_config = override_priority.has_value();
    auto reject = [&](Stage stage, Why why, std::string reason = {}, const config::CompiledRule* rule = nullptr) {
      v.verdict = Verdict::kRejected;
      v.stage = stage;
      v.why = why;
      v.reason = std::move(reason);
      v.rule = rule;
      rejected.push_back(std::move(v));
    };
    if (!req.provider.empty() && pname != req.provider) {
      reject(Stage::kRequest, Why::kNotRequested);
      continue;
    }
    if (!provider_enabled) {
      reject(Stage::kConfig, Why::kDisabled);
      continue;
    }
    if (std::optional<Refusal> r = CheckDevice(impl->capability.devices, op.device)) {
      v.refusal = *r;
      reject(Stage::kDevice, Why::kRefused);
      continue;
    }
    if (std::optional<Refusal> r = op.spec->check(impl->capability, op)) {
      v.refusal = *r;
      reject(Stage::kCapability, Why::kRefused);
      continue;
    }
    if (op.spec->ask_supports) {
      bool threw = false;
      if (std::optional<std::string> why = AskSupports(*impl, op.op(), op.args, &threw)) {
        if (threw) out.supports_exceptions_.push_back({impl.get(), *why});
        reject(Stage::kSupports, Why::kExplained, *std::move(why));
        continue;
      }
    }
    if (const config::CompiledRule* r = verdicts.DeniedBy(pname)) {
      reject(Stage::kConfig, Why::kDenied, {}, r);
      continue;
    }
    if (const config::CompiledRule* r = verdicts.NotAllowedBy(pname)) {
      // A provider requested by name is exempt from allow lists (never from
      // deny lists or a disabled provider): the record says so.
      if (req.provider.empty()) {
        reject(Stage::kConfig, Why::kNotAllowed, {}, r);
        continue;
      }
      v.allow_exempted_by = r;
    }
    v.prefer_rank = verdicts.PreferenceRank(pname);
    v.stage = Stage::kRanking;
    survivors.push_back(std::move(v));
  }

  // Rank by (prefer rank, priority); candidates arrive sorted by provider
  // then name, which breaks ties.
  // One 64-bit key per survivor: prefer rank (absent = last), then priority
  // descending, then arrival order (= provider, name). The index field holds
  // 16 bits; past that, indexes are cut to 16 bits (never spilling into the
  // priority) and the comparison below ignores the field.
  std::vector<uint64_t> keys(survivors.size());
  for (size_t i = 0; i < survivors.size(); ++i) {
    const CompactVerdict& v = survivors[i];
    const uint64_t prefer = v.prefer_rank ? static_cast<uint64_t>(std::min(*v.prefer_rank, 0xFFFE)) : 0xFFFF;
    const uint64_t priority_desc = ~(static_cast<uint32_t>(v.priority) ^ 0x80000000u) & 0xFFFFFFFFu;
    keys[i] = (prefer << 48) | (priority_desc << 16) | static_cast<uint64_t>(i & 0xFFFF);
  }
  std::vector<uint32_t> order(survivors.size());
  if (survivors.size() <= 0xFFFF) {
    std::sort(keys.begin(), keys.end());
    for (size_t i = 0; i < keys.size(); ++i) order[i] = static_cast<uint32_t>(keys[i] & 0xFFFF);
  } else {  // more survivors than the key's index field holds: compare in full
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
      return (keys[x] >> 16) < (keys[y] >> 16);
    });
  }
  out.verdicts_.reserve(req.candidates->size());
  out.ranked.reserve(survivors.size());
  for (size_t i = 0; i < order.size(); ++i) {
    CompactVerdict& v = survivors[order[i]];
    v.verdict = i == 0 ? Verdict::kChosen : Verdict::kOutranked;
    out.ranked.push_back((*req.candidates)[v.index]);
    out.verdicts_.push_back(std::move(v));
  }
  for (CompactVerdict& v : rejected) out.verdicts_.push_back(std::move(v));
  return out;
}

const DecisionRecord& Decision::record() const {
  std::call_once(lazy_->once, [this] { lazy_->record = Materialize(); });
  return lazy_->record;
}

bool Decision::FirstFallbackFrom(size_t index) const {
  if (index >= 64) return true;
  const uint64_t bit = uint64_t{1} << index;
  return (lazy_->fallbacks_announced.fetch_or(bit, std::memory_order_relaxed) & bit) == 0;
}

DecisionRecord Decision::Materialize() const {
  DecisionRecord rec;
  rec.interface_name = interface_name_;
  rec.op_summary = op_summary_;
  rec.requested_provider = requested_provider_;
  rec.config_generation = config_generation_;
  rec.strict = strict_;
  rec.strict_source = strict_source_;
  const CompactVerdict* winner = verdicts_.empty() || verdicts_[0].verdict != Verdict::kChosen ? nullptr : &verdicts_[0];
  const std::string prefer_rule = prefer_rule_ != nullptr ? prefer_rule_->Describe() : "";
  const size_t survivors = static_cast<size_t>(
      std::count_if(verdicts_.begin(), verdicts_.end(), [](const CompactVerdict& v) { return v.verdict != Verdict::kRejected; }));
  for (const CompactVerdict& v : verdicts_) {
    CandidateVerdict c;
    c.implementation = v.impl->QualifiedName();
    c.provider = v.impl->provider->name;
    c.verdict = v.verdict;
    c.stage = StageName(v.stage);
    c.priority = v.priority;
    if (v.rule != nullptr) c.rule = v.rule->Describe();
    switch (v.verdict) {
      case Verdict::kChosen:
        c.reason = v.prefer_rank ? absl::StrCat("preferred (#", *v.prefer_rank + 1, ") by ", prefer_rule)
                                 : absl::StrCat("priority ", v.priority, v.priority_from_config ? " (config override)" : "");
        if (v.prefer_rank) c.rule = prefer_rule;
        if (survivors == 1) c.reason += " (the only candidate that accepts the op)";
        break;
      case Verdict::kOutranked: {
        std::string by = absl::StrCat("outranked by ", winner->impl->QualifiedName(), " (");
        if (winner->prefer_rank && !v.prefer_rank) {
          c.reason = absl::StrCat(by, "preferred by ", prefer_rule, ")");
        } else if (winner->prefer_rank && v.prefer_rank && *winner->prefer_rank != *v.prefer_rank) {
          c.reason = absl::StrCat(by, "earlier in the prefer list of ", prefer_rule, ")");
        } else if (winner->priority != v.priority) {
          c.reason = absl::StrCat(by, "priority ", winner->priority, " > ", v.priority, ")");
        } else {
          c.reason = absl::StrCat(by, "same priority ", winner->priority, ", name order)");
        }
        break;
      }
      case Verdict::kRejected:
        switch (v.why) {
          case Why::kNotRequested:
            c.reason = absl::StrCat("not the requested provider \"", requested_provider_, "\"");
            break;
          case Why::kDisabled:
            c.reason = absl::StrCat("provider disabled in config ", config_->source_name());
            break;
          case Why::kDenied: c.reason = "denied"; break;
          case Why::kNotAllowed: c.reason = "not in the allow list"; break;
          case Why::kRefused: c.reason = FormatRefusal(v.refusal, v.impl->capability.devices); break;
          case Why::kExplained:
          case Why::kNone: c.reason = v.reason; break;
        }
        break;
    }
    if (v.allow_exempted_by != nullptr) {
      absl::StrAppend(&c.reason, "; allowed because requested explicitly (",
                      v.allow_exempted_by->Describe(), " allows only ",
                      absl::StrJoin(v.allow_exempted_by->allow, ", "), ")");
    }
    rec.candidates.push_back(std::move(c));
  }
  return rec;
}

}  // namespace teplug::core
