#include <dlfcn.h>

#include "core/registry/implementation.h"

namespace teplug::core {

PluginLibrary::~PluginLibrary() {
  // dlclose can only fail for an invalid handle; there is nobody to tell at
  // destruction time, and the handle came from a successful dlopen.
  if (handle_ != nullptr) dlclose(handle_);
}

}  // namespace teplug::core
