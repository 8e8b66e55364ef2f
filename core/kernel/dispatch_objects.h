// The objects Kernel::QueryInterface returns: each implements one interface's
// function table by selecting an implementation per call through
// KernelCore::Dispatch. They hold the kernel core alive, so they may outlive
// the Kernel handle.
#ifndef TEPLUG_CORE_KERNEL_DISPATCH_OBJECTS_H_
#define TEPLUG_CORE_KERNEL_DISPATCH_OBJECTS_H_

#include <memory>

#include "core/kernel/kernel_core.h"
#include "core/registry/interface_kind.h"
#include "teplug/teplug.h"

namespace teplug::core {

// A new dispatching object for `kind` with one reference.
TeplugObject* MakeDispatchObject(std::shared_ptr<const KernelCore> core, InterfaceKind kind);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_KERNEL_DISPATCH_OBJECTS_H_
