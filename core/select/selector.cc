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
  // Every verdict is built in place, in arrival order, and moved once, into
  // its final position (survivors in rank order, then the rejected).
  const size_t n = req.candidates->size();
  std::vector<CandidateVerdict> arrived(n);
  std::vector<uint32_t> survivors;  // positions in `arrived`
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
  for (const auto& impl : *req.candidates) {
    const std::string& pname = impl->provider->name;
    if (impl->provider.get() != last_provider) {
      last_provider = impl->provider.get();
      override_priority = cfg.PriorityOverride(pname, iface);
      provider_enabled = cfg.ProviderEnabled(pname);
      denied_by = verdicts.DeniedBy(pname);
      not_allowed_by = verdicts.NotAllowedBy(pname);
      prefer_rank = verdicts.PreferenceRank(pname);
    }
    const size_t index = static_cast<size_t>(&impl - req.candidates->data());
    CandidateVerdict& v = arrived[index];
    v.impl = impl.get();
    v.index = index;
    v.priority = override_priority.value_or(impl->default_priority);
    v.priority_from_config = override_priority.has_value();
    auto reject = [&](Stage stage, Why why, const config::CompiledRule* rule = nullptr) {
      v.verdict = Verdict::kRejected;
      v.stage = stage;
      v.why = why;
      v.rule = rule;
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
        v.explanation = *std::move(why);
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
    v.stage = Stage::kRanking;
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
    const CandidateVerdict& v = arrived[survivors[i]];
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
  rec.candidates.reserve(n);
  out.ranked.reserve(survivors.size());
  for (size_t i = 0; i < order.size(); ++i) {
    CandidateVerdict& v = arrived[survivors[order[i]]];
    v.verdict = i == 0 ? Verdict::kChosen : Verdict::kOutranked;
    out.ranked.push_back((*req.candidates)[v.index]);
    rec.candidates.push_back(std::move(v));
  }
  for (CandidateVerdict& v : arrived) {
    if (v.verdict == Verdict::kRejected) rec.candidates.push_back(std::move(v));
  }
  return out;
}

bool Decision::FirstFallbackFrom(size_t index) const {
  if (index >= 64) return true;
  const uint64_t bit = uint64_t{1} << index;
  return (fallbacks_announced_->fetch_or(bit, std::memory_order_relaxed) & bit) == 0;
}

}  // namespace teplug::core
