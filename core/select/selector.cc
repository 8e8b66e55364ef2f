#include "core/select/selector.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "core/select/capability_check.h"

namespace teplug::core {
namespace {

struct Survivor {
  std::shared_ptr<const Implementation> impl;
  int32_t priority;
  std::optional<int> prefer_rank;
  std::string prefer_rule;
  std::string priority_source;  // "default" or "config"
};

bool Before(const Survivor& a, const Survivor& b) {
  if (a.prefer_rank.has_value() != b.prefer_rank.has_value()) return a.prefer_rank.has_value();
  if (a.prefer_rank && *a.prefer_rank != *b.prefer_rank) return *a.prefer_rank < *b.prefer_rank;
  if (a.priority != b.priority) return a.priority > b.priority;
  if (a.impl->provider->name != b.impl->provider->name) return a.impl->provider->name < b.impl->provider->name;
  return a.impl->name < b.impl->name;
}

std::string WhyFirst(const Survivor& s) {
  if (s.prefer_rank) return absl::StrCat("preferred (#", *s.prefer_rank + 1, ") by ", s.prefer_rule);
  return absl::StrCat("priority ", s.priority, s.priority_source == "config" ? " (config override)" : "");
}

std::string WhyOutranked(const Survivor& loser, const Survivor& winner) {
  std::string by = absl::StrCat("outranked by ", winner.impl->QualifiedName(), " (");
  if (winner.prefer_rank && !loser.prefer_rank) return absl::StrCat(by, "preferred by ", winner.prefer_rule, ")");
  if (winner.prefer_rank && loser.prefer_rank && *winner.prefer_rank != *loser.prefer_rank) {
    return absl::StrCat(by, "earlier in the prefer list of ", winner.prefer_rule, ")");
  }
  if (winner.priority != loser.priority) {
    return absl::StrCat(by, "priority ", winner.priority, " > ", loser.priority, ")");
  }
  return absl::StrCat(by, "same priority ", winner.priority, ", name order)");
}

}  // namespace

Decision Decide(const SelectRequest& req) {
  const OpDescription& op = *req.op;
  const config::ConfigSnapshot& cfg = *req.config;
  Decision out;
  DecisionRecord& rec = out.record;
  rec.interface_name = InterfaceDisplayName(op.kind);
  rec.op_summary = op.summary;
  rec.requested_provider = req.provider;
  rec.config_generation = cfg.generation();

  config::OpFacts facts = op.Facts();
  const config::RuleVerdicts verdicts = cfg.Evaluate(facts);
  const char* iface = InterfaceName(op.kind);

  if (req.api_strict) {
    rec.strict = true;
    rec.strict_source = "API option";
  } else if (std::optional<bool> rule_strict = verdicts.RuleStrict()) {
    rec.strict = *rule_strict;
    for (const config::CompiledRule* r : verdicts.matched()) {
      if (r->strict.has_value()) {
        rec.strict_source = r->Describe();
        break;
      }
    }
  } else if (cfg.IsStrict(verdicts, iface)) {
    rec.strict = true;
    rec.strict_source = absl::StrCat("config ", cfg.source_name());
  }

  std::vector<CandidateVerdict> rejected;
  std::vector<Survivor> survivors;
  std::vector<std::shared_ptr<const Implementation>> sorted = *req.candidates;
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a->provider->name != b->provider->name ? a->provider->name < b->provider->name : a->name < b->name;
  });

  for (const auto& impl : sorted) {
    const std::string& pname = impl->provider->name;
    std::optional<int> override_priority = cfg.PriorityOverride(pname, iface);
    CandidateVerdict v;
    v.implementation = impl->QualifiedName();
    v.provider = pname;
    v.priority = override_priority.value_or(impl->default_priority);
    auto reject = [&](const char* stage, std::string reason, std::string rule = "") {
      v.verdict = Verdict::kRejected;
      v.stage = stage;
      v.reason = std::move(reason);
      v.rule = std::move(rule);
      rejected.push_back(v);
    };
    if (!req.provider.empty() && pname != req.provider) {
      reject("request", absl::StrCat("not the requested provider \"", req.provider, "\""));
      continue;
    }
    if (!cfg.ProviderEnabled(pname)) {
      reject("config", absl::StrCat("provider disabled in config ", cfg.source_name()));
      continue;
    }
    if (std::optional<std::string> why = CheckDevice(impl->capability.devices, op.device)) {
      reject("device", *why);
      continue;
    }
    if (std::optional<std::string> why = CheckCapability(impl->capability, op)) {
      reject("capability", *why);
      continue;
    }
    if (impl->supports != nullptr && op.op != kOpCommCreate) {
      char reason[256] = {0};
      if (!impl->supports(impl->object.get(), op.op, op.args, reason, sizeof reason)) {
        reason[sizeof reason - 1] = '\0';
        reject("supports", reason[0] != '\0' ? reason : "declined by supports() without a reason");
        continue;
      }
    }
    if (const config::CompiledRule* r = verdicts.DeniedBy(pname)) {
      reject("config", "denied", r->Describe());
      continue;
    }
    if (const config::CompiledRule* r = verdicts.NotAllowedBy(pname)) {
      reject("config", "not in the allow list", r->Describe());
      continue;
    }
    Survivor s{impl, v.priority, verdicts.PreferenceRank(pname), "", override_priority ? "config" : "default"};
    if (s.prefer_rank) {
      for (const config::CompiledRule* r : verdicts.matched()) {
        if (!r->prefer.empty()) {
          s.prefer_rule = r->Describe();
          break;
        }
      }
    }
    survivors.push_back(std::move(s));
  }

  std::sort(survivors.begin(), survivors.end(), Before);
  for (size_t i = 0; i < survivors.size(); ++i) {
    const Survivor& s = survivors[i];
    CandidateVerdict v;
    v.implementation = s.impl->QualifiedName();
    v.provider = s.impl->provider->name;
    v.priority = s.priority;
    v.stage = "ranking";
    if (i == 0) {
      v.verdict = Verdict::kChosen;
      v.reason = WhyFirst(s);
      if (survivors.size() == 1) v.reason += " (the only candidate that accepts the op)";
      v.rule = s.prefer_rank ? s.prefer_rule : "";
    } else {
      v.verdict = Verdict::kOutranked;
      v.reason = WhyOutranked(s, survivors[0]);
    }
    rec.candidates.push_back(std::move(v));
    out.ranked.push_back(s.impl);
  }
  for (CandidateVerdict& v : rejected) rec.candidates.push_back(std::move(v));
  return out;
}

}  // namespace teplug::core
