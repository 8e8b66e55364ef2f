// Random OpFacts for the config tests: many ops drawn from the rule
// vocabulary (plus facts with unknown values and a vendor-defined device
// kind), with integers chosen near the range bounds used by the test configs.
#ifndef TEPLUG_CORE_CONFIG_RANDOM_OP_FACTS_H_
#define TEPLUG_CORE_CONFIG_RANDOM_OP_FACTS_H_

#include <cstdint>
#include <random>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/config/op_facts.h"
#include "core/config/rule_vocabulary.h"

namespace teplug::config::testing {

class RandomOpFacts {
 public:
  explicit RandomOpFacts(uint32_t seed) : engine_(seed) {}

  // The returned views point at the vocabulary and static storage.
  OpFacts Next() {
    const Vocabulary& vocabulary = RuleVocabulary();
    const InterfaceVocabulary& entry = vocabulary[Index(vocabulary.size())];
    OpFacts facts;
    facts.interface_name = entry.name;
    facts.op = entry.ops[Index(entry.ops.size())];
    facts.device_kind = Pick(DeviceKinds());
    facts.vendor = Pick(Vendors());
    for (const FactSpec& spec : entry.facts) {
      if (spec.kind == FactKind::kInteger) {
        facts.AddInteger(spec.name, PickInt({-1, 0, 1, 32, 63, 64, 100, 128, 129, 256, 1023, 1024,
                                             4095, 4096, 4097, 131072, int64_t{1} << 40}));
      } else if (Chance(0.85) && !spec.values.empty()) {
        facts.AddName(spec.name, spec.values[Index(spec.values.size())]);
      } else {
        facts.AddName(spec.name, absl::string_view());  // unknown value
      }
    }
    return facts;
  }

 private:
  static const std::vector<absl::string_view>& DeviceKinds() {
    static const auto* kinds = new std::vector<absl::string_view>{
        "cpu", "cuda", "opencl", "acme_npu", ""};
    return *kinds;
  }
  static const std::vector<absl::string_view>& Vendors() {
    static const auto* vendors = new std::vector<absl::string_view>{
        "NVIDIA", "nvidia", "AMD", "acme", ""};
    return *vendors;
  }

  bool Chance(double p) { return std::bernoulli_distribution(p)(engine_); }

  size_t Index(size_t size) { return std::uniform_int_distribution<size_t>(0, size - 1)(engine_); }

  absl::string_view Pick(const std::vector<absl::string_view>& names) {
    return names[Index(names.size())];
  }

  int64_t PickInt(std::initializer_list<int64_t> values) {
    return *(values.begin() + Index(values.size()));
  }

  std::mt19937 engine_;
};

}  // namespace teplug::config::testing

#endif  // TEPLUG_CORE_CONFIG_RANDOM_OP_FACTS_H_
