// The rule vocabulary as Markdown tables, for core/config/README.md: which
// ops and which facts a rule on each interface may name. fact_table_test
// checks that the README holds exactly this text, so the documentation
// follows the vocabulary.
#ifndef TEPLUG_CORE_CONFIG_FACT_TABLE_H_
#define TEPLUG_CORE_CONFIG_FACT_TABLE_H_

#include <string>

#include "core/config/op_facts.h"

namespace teplug::config {

// Two tables: each interface's ops (and those decided elsewhere, with the
// vocabulary's note), then each interface's facts with how they are matched
// (values or a range), their values and what they are.
std::string FactTableMarkdown(const Vocabulary& vocabulary);

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_FACT_TABLE_H_
