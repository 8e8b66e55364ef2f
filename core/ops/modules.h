// The interfaces this core serves: the one list the registry, selector,
// kernel, loader, config vocabulary and CLI loop over. Adding an interface
// is one module (core/ops/<name>.{h,cc}) and one line in modules.cc.
#ifndef TEPLUG_CORE_OPS_MODULES_H_
#define TEPLUG_CORE_OPS_MODULES_H_

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/ops/interface_module.h"
#include "teplug/teplug.h"

namespace teplug::core {

// The module serving `iid`, or nullptr.
const InterfaceModule* ModuleOfIid(const TeplugIID& iid);
// The module named `name` ("gemm"), or nullptr.
const InterfaceModule* ModuleNamed(absl::string_view name);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_MODULES_H_
