// Random OpFacts for the config tests: many ops drawn from the canonical
// vocabulary (plus "not applicable" values and a vendor-defined device kind),
// with values chosen near the range bounds used by the test configs.
#ifndef TEPLUG_CORE_CONFIG_RANDOM_OP_FACTS_H_
#define TEPLUG_CORE_CONFIG_RANDOM_OP_FACTS_H_

#include <random>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/config/canonical_names.h"
#include "core/config/config_snapshot.h"

namespace teplug::config::testing {

class RandomOpFacts {
 public:
  explicit RandomOpFacts(uint32_t seed) : engine_(seed) {}

  // The returned views point at static storage.
  OpFacts Next() {
    OpFacts facts;
    facts.interface_name = Pick(CanonicalInterfaces());
    const auto& ops = CanonicalOps(facts.interface_name);
    facts.op = Chance(0.9) ? Pick(ops) : Pick(AllCanonicalOps());
    facts.device_kind = Pick(DeviceKinds());
    facts.vendor = Pick(Vendors());
    facts.dtype = Chance(0.9) ? Pick(CanonicalDtypes()) : absl::string_view();
    facts.layout = Chance(0.8) ? Pick(CanonicalLayouts()) : absl::string_view();
    facts.mask_type =
        Chance(0.8) ? Pick(CanonicalMaskTypes()) : absl::string_view();
    facts.head_dim = PickInt({-1, 0, 32, 63, 64, 100, 128, 129, 256});
    facts.seq_len = PickInt({-1, 0, 1, 4095, 4096, 4097, 131072});
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

  absl::string_view Pick(const std::vector<absl::string_view>& names) {
    return names[std::uniform_int_distribution<size_t>(0, names.size() - 1)(
        engine_)];
  }

  int PickInt(std::initializer_list<int> values) {
    const size_t index =
        std::uniform_int_distribution<size_t>(0, values.size() - 1)(engine_);
    return *(values.begin() + index);
  }

  std::mt19937 engine_;
};

}  // namespace teplug::config::testing

#endif  // TEPLUG_CORE_CONFIG_RANDOM_OP_FACTS_H_
