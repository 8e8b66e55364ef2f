// Selection per op: filter every registered implementation of the interface
// by device, static capability, the dynamic `supports` hook and config rules,
// then rank the survivors. The result never depends on load order: ties are
// broken by provider name, then implementation name.
#ifndef TEPLUG_CORE_SELECT_SELECTOR_H_
#define TEPLUG_CORE_SELECT_SELECTOR_H_

#include <memory>
#include <string>
#include <vector>

#include "core/config/config_snapshot.h"
#include "core/registry/implementation.h"
#include "core/select/decision_record.h"
#include "core/select/op_description.h"

namespace teplug::core {

struct Decision {
  DecisionRecord record;
  // Survivors in rank order: [0] is chosen, the rest are the call-time
  // fallbacks in order. Empty when nothing can serve the op.
  std::vector<std::shared_ptr<const Implementation>> ranked;
};

struct SelectRequest {
  const OpDescription* op = nullptr;
  // Every implementation of op->kind, in any order.
  const std::vector<std::shared_ptr<const Implementation>>* candidates = nullptr;
  const config::ConfigSnapshot* config = nullptr;
  // Restrict to this provider (it must still accept the op); "" = any.
  std::string provider;
  // Strict because the API says so, regardless of config.
  bool api_strict = false;
};

Decision Decide(const SelectRequest& request);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_SELECT_SELECTOR_H_
