// What config rules see of one op call (OpFacts), and what each interface
// offers them (the vocabulary). The interface modules (core/ops/) fill both:
// the vocabulary from their field tables, an op's facts from its args.
#ifndef TEPLUG_CORE_CONFIG_OP_FACTS_H_
#define TEPLUG_CORE_CONFIG_OP_FACTS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace teplug::config {

enum class FactKind : uint8_t { kName, kInteger };

// One fact an interface offers config rules (declared by the interface's core module).
struct FactSpec {
  std::string name;                 // "dtype", "layout", "m", "b_dtype", ...
  FactKind kind = FactKind::kName;
  std::string doc;                  // one line: what it is, for messages and `teplug validate`
  std::vector<std::string> values;  // kName: the allowed canonical values; empty = open set
  // kName: names that stand for several values (e.g. layout format "bshd" -> its layouts).
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
};

struct InterfaceVocabulary {
  std::string name;                 // "gemm": the one spelling of the interface in configs
  std::string display_name;         // "IGemm/1"
  std::vector<std::string> ops;     // the one spelling of each op: "gemm", "forward", ...
  std::vector<FactSpec> facts;      // what rules on this interface may match on
  // Ops that are decided somewhere other than per call (collectives: at
  // communicator creation), with what to write instead; rules naming such
  // ops are refused at validation with that note.
  std::vector<std::pair<std::string, std::string>> undecided_ops;
};
using Vocabulary = std::vector<InterfaceVocabulary>;

// An op's facts: the common four plus the interface's own, by name. No
// allocation; the views must outlive the facts' use (they point at static
// names or at the OpDescription that holds the facts).
struct OpFacts {
  absl::string_view interface_name, op, device_kind, vendor;
  struct Value {
    absl::string_view name;
    absl::string_view text;
    int64_t number = -1;
    bool known = false;
  };
  static constexpr int kMaxFacts = 16;
  Value facts[kMaxFacts];
  int num_facts = 0;

  void AddName(absl::string_view name, absl::string_view text) {
    if (num_facts < kMaxFacts) facts[num_facts++] = Value{name, text, -1, !text.empty()};
  }
  // `number` < 0: the op has the fact but its value is unknown.
  void AddInteger(absl::string_view name, int64_t number) {
    if (num_facts < kMaxFacts) facts[num_facts++] = Value{name, {}, number, number >= 0};
  }
  // nullptr when the op has no such fact.
  const Value* Find(absl::string_view name) const {
    for (int i = 0; i < num_facts; ++i) {
      if (facts[i].name == name) return &facts[i];
    }
    return nullptr;
  }
};

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_OP_FACTS_H_
