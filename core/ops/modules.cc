#include "core/ops/modules.h"

#include <array>

#include "core/ops/attention.h"
#include "core/ops/collective.h"
#include "core/ops/device.h"
#include "core/ops/gemm.h"
#include "core/ops/norm.h"
#include "core/ops/quantizer.h"
#include "teplug/sdk/iids.hpp"

namespace teplug::core {

absl::Span<const InterfaceModule* const> InterfaceModules() {
  static const auto* const kModules = [] {
    auto* list = new std::array<const InterfaceModule*, 6>{&AttentionModule(),  &GemmModule(), &QuantizerModule(),
                                                           &CollectiveModule(), &NormModule(), &DeviceModule()};
    for (size_t i = 0; i < list->size(); ++i) (*list)[i]->index_ = static_cast<int>(i);
    return list;
  }();
  return *kModules;
}

const InterfaceModule* ModuleOfIid(const TeplugIID& iid) {
  for (const InterfaceModule* m : InterfaceModules()) {
    if (sdk::SameIid(m->iid(), iid)) return m;
  }
  return nullptr;
}

const InterfaceModule* ModuleNamed(absl::string_view name) {
  for (const InterfaceModule* m : InterfaceModules()) {
    if (name == m->name()) return m;
  }
  return nullptr;
}

}  // namespace teplug::core
