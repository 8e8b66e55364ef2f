#include "core/ops/interface_module.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/ops/refusal.h"
#include "teplug/sdk/names.hpp"

namespace teplug::core {

const OpSpec* InterfaceModule::FindOp(int32_t op) const {
  for (const OpSpec* spec : ops()) {
    if (spec->op == op) return spec;
  }
  return nullptr;
}

const OpSpec* InterfaceModule::FindOp(absl::string_view name) const {
  for (const OpSpec* spec : ops()) {
    if (name == spec->name) return spec;
  }
  return nullptr;
}

namespace {
std::vector<std::string> DTypeNames() {
  std::vector<std::string> names;
  for (int d = 1; d < TEPLUG_DTYPE_COUNT_; ++d) names.emplace_back(sdk::DTypeName(d));
  return names;
}
}  // namespace

void InterfaceModule::AddDTypeFact(config::InterfaceVocabulary* v, const std::string& name, const std::string& doc) {
  AddNameFact(v, name, doc, DTypeNames());
}

void InterfaceModule::AddIntegerFact(config::InterfaceVocabulary* v, const std::string& name,
                                     const std::string& doc) {
  config::FactSpec f;
  f.name = name;
  f.kind = config::FactKind::kInteger;
  f.doc = doc;
  v->facts.push_back(std::move(f));
}

void InterfaceModule::AddNameFact(config::InterfaceVocabulary* v, const std::string& name, const std::string& doc,
                                  std::vector<std::string> values) {
  config::FactSpec f;
  f.name = name;
  f.kind = config::FactKind::kName;
  f.doc = doc;
  f.values = std::move(values);
  v->facts.push_back(std::move(f));
}

config::InterfaceVocabulary InterfaceModule::Vocabulary() const {
  config::InterfaceVocabulary v;
  v.name = name();
  v.display_name = display_name();
  for (const OpSpec* spec : ops()) {
    v.ops.emplace_back(spec->name);
    for (const Field& f : spec->fields) {
      if (f.fact == nullptr) continue;
      auto known = std::find_if(v.facts.begin(), v.facts.end(), [&](const config::FactSpec& s) { return s.name == f.fact; });
      if (known != v.facts.end()) continue;
      config::FactSpec fact;
      fact.name = f.fact;
      fact.doc = f.fact_doc;
      if (f.role == FieldRole::kTensor) {
        fact.kind = config::FactKind::kName;
        fact.values = DTypeNames();
      } else if (f.enum_name != nullptr) {
        fact.kind = config::FactKind::kName;
        for (int32_t e = 0; e < f.enum_count; ++e) fact.values.emplace_back(f.enum_name(e));
      } else {
        fact.kind = config::FactKind::kInteger;
      }
      v.facts.push_back(std::move(fact));
    }
  }
  AddDerivedFacts(&v);
  // "dtype", the fact most rules name, comes first in messages and docs.
  std::stable_partition(v.facts.begin(), v.facts.end(), [](const config::FactSpec& f) { return f.name == "dtype"; });
  return v;
}

absl::StatusOr<OpDescription> DescribeOp(const InterfaceModule& module, int32_t op, const void* args,
                                         const DeviceSpelling& spelling) {
  const OpSpec* spec = module.FindOp(op);
  if (spec == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("op ", op, " is not an op of ", module.display_name()));
  }
  return spec->describe(module, *spec, args, spelling);
}

bool BuildSignature(const InterfaceModule& module, int32_t op, const void* args, OpSignature* sig) {
  const OpSpec* spec = module.FindOp(op);
  return spec != nullptr && spec->build_key(args, sig);
}

std::optional<Refusal> CheckCapability(const Capability& cap, const OpDescription& op) {
  if (std::optional<Refusal> r = CheckDevice(cap.devices, op.device)) return r;
  return op.spec->check(cap, op);
}

std::string SummarizeCapability(const Capability& cap) {
  std::string devices;
  for (const TeplugDeviceSupport& s : cap.devices) absl::StrAppend(&devices, devices.empty() ? "" : ", ", DeviceSupportLabel(s));
  return absl::StrCat("devices {", devices, "}; ", cap.module->SummarizeCapability(cap));
}

}  // namespace teplug::core
