#include "core/ops/example_params.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "teplug/sdk/names.hpp"

namespace teplug::core {
namespace {

const config::FactSpec* FindFact(const config::InterfaceVocabulary& v, absl::string_view fact) {
  for (const config::FactSpec& f : v.facts) {
    if (f.name == fact) return &f;
  }
  return nullptr;
}

}  // namespace

ExampleParam FactParam(const config::InterfaceVocabulary& vocabulary, absl::string_view fact,
                       std::string default_value) {
  ExampleParam p;
  p.name = std::string(fact);
  p.kind = ExampleParam::Kind::kName;
  p.default_value = std::move(default_value);
  p.facts = {p.name};
  if (const config::FactSpec* f = FindFact(vocabulary, fact)) {
    p.doc = f->doc;
    for (const auto& group : f->groups) p.values.push_back(group.first);
    p.values.insert(p.values.end(), f->values.begin(), f->values.end());
  }
  return p;
}

ExampleParam FactParam(const config::InterfaceVocabulary& vocabulary, absl::string_view fact,
                       std::string default_value, int64_t min, int64_t max) {
  ExampleParam p = IntegerParam(std::string(fact), "", 0, min, max);
  p.default_value = std::move(default_value);
  p.facts = {p.name};
  const config::FactSpec* f = FindFact(vocabulary, fact);
  if (f != nullptr && f->kind == config::FactKind::kInteger) {
    p.doc = f->doc;
  } else {
    p.kind = ExampleParam::Kind::kName;  // accepts nothing: not an integer fact of this interface
  }
  return p;
}

ExampleParam IntegerParam(std::string name, std::string doc, int64_t default_value, int64_t min,
                          int64_t max) {
  ExampleParam p;
  p.name = std::move(name);
  p.kind = ExampleParam::Kind::kInteger;
  p.doc = std::move(doc);
  p.default_value = absl::StrCat(default_value);
  p.min = min;
  p.max = max;
  return p;
}

ExampleParam RealParam(std::string name, std::string doc, double default_value, double min,
                       double max) {
  ExampleParam p;
  p.name = std::move(name);
  p.kind = ExampleParam::Kind::kReal;
  p.doc = std::move(doc);
  p.default_value = absl::StrCat(default_value);
  p.real_min = min;
  p.real_max = max;
  return p;
}

ExampleParam NameParam(std::string name, std::string doc, std::string default_value,
                       std::vector<std::string> values) {
  ExampleParam p;
  p.name = std::move(name);
  p.kind = ExampleParam::Kind::kName;
  p.doc = std::move(doc);
  p.default_value = std::move(default_value);
  p.values = std::move(values);
  return p;
}

ExampleParam SwitchParam(std::string name, std::string doc) {
  ExampleParam p;
  p.name = std::move(name);
  p.kind = ExampleParam::Kind::kSwitch;
  p.doc = std::move(doc);
  p.default_value = "false";
  return p;
}

ExampleParam Documented(ExampleParam p, std::string doc) {
  p.doc = std::move(doc);
  return p;
}

ExampleParam Following(ExampleParam p, std::string other) {
  p.follows = std::move(other);
  p.default_value.clear();
  return p;
}

ExampleParam ComputedDefault(ExampleParam p, std::string note) {
  p.default_note = std::move(note);
  p.default_value.clear();
  return p;
}

ExampleParam AlsoSets(ExampleParam p, std::string fact) {
  p.facts.push_back(std::move(fact));
  return p;
}

std::vector<std::string> ScalingModeNames() {
  std::vector<std::string> names;
  for (int32_t m = 0; m < TEPLUG_SCALING_COUNT_; ++m) names.emplace_back(sdk::ScalingName(m));
  return names;
}

int32_t DTypeValue(const ExampleValues& values, absl::string_view name) {
  int32_t d = TEPLUG_DTYPE_INVALID;
  sdk::ParseDType(values.Name(name), &d);
  return d;
}

int32_t ScalingModeValue(const ExampleValues& values, absl::string_view name) {
  int32_t m = TEPLUG_SCALING_NONE;
  sdk::ParseScaling(values.Name(name), &m);
  return m;
}

bool IsFp8(int32_t dtype) {
  return dtype == TEPLUG_DTYPE_FP8_E4M3 || dtype == TEPLUG_DTYPE_FP8_E5M2;
}

}  // namespace teplug::core
