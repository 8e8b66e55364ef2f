// The facts config rules match on, and the vocabulary that says which facts
// each interface offers.
//
// Leaf header (Abseil strings only): the interface modules that fill an op's
// facts and declare their vocabulary depend on it without depending on the
// config machinery (protobuf, loader, snapshot).
#ifndef TEPLUG_CORE_CONFIG_OP_FACTS_H_
#define TEPLUG_CORE_CONFIG_OP_FACTS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace teplug::config {

// How a fact is matched: by name (a rule lists values) or as an integer (a
// rule gives an inclusive range).
enum class FactKind : uint8_t { kName, kInteger };

// One fact an interface offers config rules (declared by the interface's
// core module).
struct FactSpec {
  std::string name;  // "dtype", "layout", "m", "b_dtype", ...
  FactKind kind = FactKind::kName;
  std::string doc;  // one line: what it is, for messages and `teplug validate`
  std::vector<std::string> values;  // kName: the allowed canonical values; empty = open set
  // kName: names that stand for several values (e.g. layout format "bshd" ->
  // its layouts). A rule may list a group name wherever it may list a value.
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
};

// What config rules may say about one interface.
struct InterfaceVocabulary {
  std::string name;               // "gemm": the one spelling of the interface in configs
  std::string display_name;       // "IGemm/1"
  std::vector<std::string> ops;   // the one spelling of each op: "gemm", "forward", ...
  std::vector<FactSpec> facts;    // what rules on this interface may match on
  // Ops that are decided somewhere other than per call (collectives: at
  // communicator creation) -> a note; rules naming such ops are refused at
  // validation with the note.
  std::vector<std::pair<std::string, std::string>> undecided_ops;  // op -> why/what to write instead
};

using Vocabulary = std::vector<InterfaceVocabulary>;

// An op's facts: the common four plus the interface's own, by name. Holds
// views only (no allocation): what they point at must outlive the rule
// evaluation. A fact the op does not have is absent (Find returns nullptr);
// a fact it has but whose value is not known for this call is present with
// known = false. A rule constraining either never matches.
struct OpFacts {
  absl::string_view interface_name;  // "gemm", "attention", ...
  absl::string_view op;              // "gemm", "forward", "comm_create", ...
  absl::string_view device_kind;     // "cpu", "cuda", "opencl", vendor-defined
  absl::string_view vendor;          // compared case-insensitively by rules

  struct Value {
    absl::string_view name;  // the fact's name, as in FactSpec::name
    absl::string_view text;  // kName facts: the canonical value
    int64_t number = -1;     // kInteger facts
    bool known = false;      // false: the op has the fact but not its value
  };
  static constexpr int kMaxFacts = 16;
  Value facts[kMaxFacts];
  int num_facts = 0;

  // Adds a name fact; an empty `text` means the value is unknown. Facts past
  // kMaxFacts are dropped (an interface declaring more is a bug its own
  // tests catch: rule_vocabulary_test checks every interface fits).
  void AddName(absl::string_view name, absl::string_view text) {
    if (num_facts == kMaxFacts) return;
    facts[num_facts++] = Value{name, text, -1, !text.empty()};
  }
  // Adds an integer fact; `number` < 0 means the value is unknown.
  void AddInteger(absl::string_view name, int64_t number) {
    if (num_facts == kMaxFacts) return;
    facts[num_facts++] = Value{name, absl::string_view(), number, number >= 0};
  }
  // The fact called `name`, or nullptr when the op has no such fact.
  const Value* Find(absl::string_view name) const {
    for (int i = 0; i < num_facts; ++i) {
      if (facts[i].name == name) return &facts[i];
    }
    return nullptr;
  }
};

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_OP_FACTS_H_
