// The vocabulary config rules are checked and compiled against: the
// interfaces, their ops and the facts each offers (op_facts.h).
//
// Declared here and defined by //core/ops:rule_vocabulary from the interface
// modules' field tables, so the config code knows no interface: everything in
// core/config that needs to know an interface, op or fact asks this function
// (or takes a Vocabulary parameter). A binary that links the config links
// that target too (the kernel does); without it the link fails.
#ifndef TEPLUG_CORE_CONFIG_RULE_VOCABULARY_H_
#define TEPLUG_CORE_CONFIG_RULE_VOCABULARY_H_

#include "core/config/op_facts.h"

namespace teplug::config {

// Every interface config rules may name, in a fixed order (the order of
// messages and of the fact table in core/config/README.md). Built once,
// never destroyed.
const Vocabulary& RuleVocabulary();

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_RULE_VOCABULARY_H_
