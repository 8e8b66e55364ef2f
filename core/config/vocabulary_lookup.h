// Questions about a rule Vocabulary (op_facts.h): which interface has an op
// or a fact, what a group name stands for. The config code asks these
// instead of keeping tables of its own.
#ifndef TEPLUG_CORE_CONFIG_VOCABULARY_LOOKUP_H_
#define TEPLUG_CORE_CONFIG_VOCABULARY_LOOKUP_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/config/op_facts.h"

namespace teplug::config {

// The interface spelled `name`, or nullptr.
const InterfaceVocabulary* FindInterface(const Vocabulary& vocabulary, absl::string_view name);

// The fact called `name` of `interface_vocabulary`, or nullptr.
const FactSpec* FindFact(const InterfaceVocabulary& interface_vocabulary, absl::string_view name);

// Whether `op` is one of the interface's ops.
bool HasOp(const InterfaceVocabulary& interface_vocabulary, absl::string_view op);

// Why `op` is not decided per call (and what to write instead), or nullptr
// when it is.
const std::string* UndecidedOpNote(const InterfaceVocabulary& interface_vocabulary,
                                   absl::string_view op);

// Interface names, every op of every interface, every fact name (each once),
// in vocabulary order: the candidates of "did you mean" and "expected one of".
std::vector<absl::string_view> InterfaceNames(const Vocabulary& vocabulary);
std::vector<absl::string_view> AllOpNames(const Vocabulary& vocabulary);
std::vector<absl::string_view> AllFactNames(const Vocabulary& vocabulary);

// The fact names of one interface: "dtype, a_dtype, ..., k" ("none" when
// it has none).
std::string JoinFactNames(const InterfaceVocabulary& interface_vocabulary);

// The values `value` stands for as a value of fact `fact`: the members of the
// group of that name in any interface, else `value` itself.
std::vector<std::string> ExpandFactValue(const Vocabulary& vocabulary, absl::string_view fact,
                                         const std::string& value);

// Views of `names` (valid while `names` is).
std::vector<absl::string_view> ViewsOf(const std::vector<std::string>& names);

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_VOCABULARY_LOOKUP_H_
