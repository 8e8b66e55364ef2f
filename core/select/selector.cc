#include "core/select/selector.h"

#include <algorithm>

#include "core/select/ask_supports.h"

namespace teplug::core {
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
  DecisionRecord& rec = out.record_;
  rec.pool = req.candidates;
  rec.config = req.config;
  rec.spelling = req.spelling;
  rec.interface_name = op.module->display_name();
  rec.op_summary = op.summary;
  rec.requested_provider = req.provider;
  rec.config_generation = cfg.generation();

  const config::OpFacts facts = op.Facts();
  const config::RuleVerdicts verdicts = cfg.Evaluate(facts);
  const char* iface = op.module->name();

  using StrictBy = DecisionRecord::StrictBy;
  if (req.api_strict) {
    rec.strict = true;
    rec.strict_by = StrictBy::kApi;
  } else if (std::optional<bool> rule_strict = verdicts.RuleStrict()) {
    rec.strict = *rule_strict;
    for (const config::CompiledRule* r : verdicts.matched()) {
      if (r->strict.has_value()) {
        rec.strict_by = StrictBy::kRule;
        rec.strict_rule = r;
        break;
      }
    }
  } else if (cfg.IsStrict(verdicts, iface)) {
    rec.strict = true;
    rec.strict_by = StrictBy::kConfig;
  }
  for (const config::CompiledRule* r : verdicts.matched()) {
    if (!r->prefer.empty()) {
      rec.prefer_rule = r;
      break;
    }
  }

  using Why = CandidateVerdict::Why;
  // Each candidate's verdict in arrival order, then copied into rank order
  // (a verdict is a few words of plain values; its reason, if any, is
  // appended to the record's refusals or explanations once).
  const size_t n = req.candidates->size();
  std::vector<CandidateVerdict> arrival(n);
  std::vector<uint32_t> survivors;  // positions in `arrival`
  survivors.reserve(n);
  // Candidates are grouped by provider: everything that depends only on the
  // provider (its config overrides and enablement, and the matched rules'
  // deny, allow and prefer lists) is looked up once per group.
  const Provider* last_provider = nullptr;
  bool provider_enabled = true;
  std::optional<int> override_priority;
  const config::CompiledRule* denied_by = nullptr;
  const config::CompiledRule* not_allowed_by = nullptr;
  std::optional<int> prefer_rank;
  for (size_t index = 0; index < n; ++index) {
    const Implementation& impl = *(*req.candidates)[index];
    const std::string& pname = impl.provider->name;
    if (impl.provider.get() != last_provider) {
      last_provider = impl.provider.get();
      override_priority = cfg.PriorityOverride(pname, iface);
      provider_enabled = cfg.ProviderEnabled(pname);
      denied_by = verdicts.DeniedBy(pname);
      not_allowed_by = verdicts.NotAllowedBy(pname);
      prefer_rank = verdicts.PreferenceRank(pname);
    }
    CandidateVerdict& v = arrival[index];
    v.impl = &impl;
    v.index = index;
    v.priority = override_priority.value_or(impl.default_priority);
    v.priority_from_config = override_priority.has_value();
    auto reject = [&](Stage stage, Why why, const config::CompiledRule* rule = nullptr) {
      v.stage = stage;
      v.why = why;
      v.rule = rule;
    };
    auto refuse = [&](Stage stage, const Refusal& r) {
      // One allocation, made only when one is refused.
      if (rec.refusals.empty()) rec.refusals.reserve(n - index);
      v.reason = static_cast<uint32_t>(rec.refusals.size());
      rec.refusals.push_back(r);
      reject(stage, Why::kRefused);
    };
    if (!req.provider.empty() && pname != req.provider) {
      reject(Stage::kRequest, Why::kNotRequested);
      continue;
    }
    if (!provider_enabled) {
      reject(Stage::kConfig, Why::kDisabled);
      continue;
    }
    if (!DeviceAccepted(impl.capability.devices, op.device)) {
      refuse(Stage::kDevice, *CheckDevice(impl.capability.devices, op.device));
      continue;
    }
    if (std::optional<Refusal> r = op.spec->check(impl.capability, op)) {
      refuse(Stage::kCapability, *r);
      continue;
    }
    if (op.spec->ask_supports) {
      bool threw = false;
      if (std::optional<std::string> why = AskSupports(impl, op.op(), op.args, &threw)) {
        v.reason = static_cast<uint32_t>(rec.explanations.size());
        rec.explanations.push_back(*std::move(why));
        v.supports_threw = threw;
        reject(Stage::kSupports, Why::kExplained);
        continue;
      }
    }
    if (denied_by != nullptr) {
      reject(Stage::kConfig, Why::kDenied, denied_by);
      continue;
    }
    if (not_allowed_by != nullptr) {
      // A provider requested by name is exempt from allow lists (never from
      // deny lists or a disabled provider): the record says so.
      if (req.provider.empty()) {
        reject(Stage::kConfig, Why::kNotAllowed, not_allowed_by);
        continue;
      }
      v.allow_exempted_by = not_allowed_by;
    }
    v.prefer_rank = prefer_rank;
    survivors.push_back(static_cast<uint32_t>(index));
  }

  // Rank by (prefer rank, priority); candidates arrive sorted by provider
  // then name, which breaks ties.
  // One 64-bit key per survivor: prefer rank (absent = last), then priority
  // descending, then arrival order (= provider, name). The index field holds
  // 16 bits; past that, indexes are cut to 16 bits (never spilling into the
  // priority) and the comparison below ignores the field.
  std::vector<uint64_t> keys(survivors.size());
  for (size_t i = 0; i < survivors.size(); ++i) {
    const CandidateVerdict& v = arrival[survivors[i]];
    const uint64_t prefer =
        v.prefer_rank ? static_cast<uint64_t>(std::min(*v.prefer_rank, 0xFFFE)) : 0xFFFF;
    const uint64_t priority_desc = ~(static_cast<uint32_t>(v.priority) ^ 0x80000000u) & 0xFFFFFFFFu;
    keys[i] = (prefer << 48) | (priority_desc << 16) | static_cast<uint64_t>(i & 0xFFFF);
  }
  std::vector<uint32_t> order(survivors.size());  // positions in `survivors`, in rank order
  if (survivors.size() <= 0xFFFF) {
    std::sort(keys.begin(), keys.end());
    for (size_t i = 0; i < keys.size(); ++i) order[i] = static_cast<uint32_t>(keys[i] & 0xFFFF);
  } else {  // more survivors than the key's index field holds: compare in full
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
      return (keys[x] >> 16) < (keys[y] >> 16);
    });
  }

  // The record's order: survivors in rank order, then the rejected in
  // arrival order.
  rec.candidates.reserve(n);
  out.ranked.reserve(survivors.size());
  for (size_t rank = 0; rank < order.size(); ++rank) {
    CandidateVerdict& v = rec.candidates.emplace_back(arrival[survivors[order[rank]]]);
    v.verdict = rank == 0 ? Verdict::kChosen : Verdict::kOutranked;
    out.ranked.push_back(v.impl);
  }
  for (const CandidateVerdict& v : arrival) {
    if (v.stage != Stage::kRanking) rec.candidates.push_back(v);
  }
  return out;
}

bool Decision::FirstFallbackFrom(size_t index) const {
  if (index >= 64) return true;
  const uint64_t bit = uint64_t{1} << index;
  return (fallbacks_announced_->fetch_or(bit, std::memory_order_relaxed) & bit) == 0;
}

}  // namespace teplug::core
