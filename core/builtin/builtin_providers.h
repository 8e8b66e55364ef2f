// Built-in providers: linked into the host binary and loaded through the same
// transactional protocol as plugins, without dlopen.
//
// The core knows no provider. A built-in is wired in by a thin target that
// depends on the core and the provider (e.g. //plugins/reference:builtin,
// alwayslink) and registers the provider's entry function from a static
// initializer:
//
//   TEPLUG_REGISTER_BUILTIN_PROVIDER(reference, &teplug_reference_entry);
//
// Kernel creation then loads every registered built-in before discovery.
#ifndef TEPLUG_CORE_BUILTIN_BUILTIN_PROVIDERS_H_
#define TEPLUG_CORE_BUILTIN_BUILTIN_PROVIDERS_H_

#include <string>
#include <vector>

#include "teplug/plugin.h"

namespace teplug::core {

struct BuiltinProvider {
  std::string label;  // for messages before the entry names the provider
  TeplugPluginEntryFn entry;
};

// Adds a built-in; returns true so it can initialise a static. Thread-safe.
bool RegisterBuiltinProvider(const char* label, TeplugPluginEntryFn entry);
// Every registered built-in, in label order (deterministic across link orders).
std::vector<BuiltinProvider> BuiltinProviders();

}  // namespace teplug::core

#define TEPLUG_REGISTER_BUILTIN_PROVIDER(label, entry)                 \
  static const bool teplug_builtin_registered_##label [[maybe_unused]] = \
      ::teplug::core::RegisterBuiltinProvider(#label, entry)

#endif  // TEPLUG_CORE_BUILTIN_BUILTIN_PROVIDERS_H_
