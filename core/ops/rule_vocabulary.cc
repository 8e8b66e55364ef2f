// The config's rule vocabulary (core/config/rule_vocabulary.h), built from
// every interface module's field tables: the config code asks for it and so
// knows no interface itself.
#include "core/config/rule_vocabulary.h"

#include "core/ops/modules.h"

namespace teplug::config {

const Vocabulary& RuleVocabulary() {
  static const auto* const kVocabulary = [] {
    auto* v = new Vocabulary;
    for (const core::InterfaceModule* m : core::InterfaceModules()) v->push_back(m->Vocabulary());
    return v;
  }();
  return *kVocabulary;
}

}  // namespace teplug::config
