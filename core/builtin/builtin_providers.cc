#include "core/builtin/builtin_providers.h"

#include <algorithm>
#include <mutex>

namespace teplug::core {
namespace {

// Function-local statics: safe to use from other translation units' static
// initializers regardless of initialization order.
std::mutex& RegistryMutex() {
  static std::mutex m;
  return m;
}
std::vector<BuiltinProvider>& Registered() {
  static std::vector<BuiltinProvider> v;
  return v;
}

}  // namespace

bool RegisterBuiltinProvider(const char* label, TeplugPluginEntryFn entry) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  Registered().push_back({label, entry});
  return true;
}

std::vector<BuiltinProvider> BuiltinProviders() {
  std::vector<BuiltinProvider> out;
  {
    std::lock_guard<std::mutex> lock(RegistryMutex());
    out = Registered();
  }
  std::sort(out.begin(), out.end(),
            [](const BuiltinProvider& a, const BuiltinProvider& b) { return a.label < b.label; });
  return out;
}

}  // namespace teplug::core
