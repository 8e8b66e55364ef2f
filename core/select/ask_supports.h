// Asking an implementation's dynamic `supports` hook about one op.
#ifndef TEPLUG_CORE_SELECT_ASK_SUPPORTS_H_
#define TEPLUG_CORE_SELECT_ASK_SUPPORTS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "core/registry/implementation.h"

namespace teplug::core {

// nullopt when the implementation will serve the op (or has no hook), else
// its reason. The plugin writes into a 256-byte buffer that is
// NUL-terminated here whatever the plugin did, and an empty reason becomes
// "declined by supports() without a reason". A C++ exception escaping the
// hook is a refusal whose reason is "C++ exception escaped <impl> supports:
// <what>"; `*threw` (when given) says so.
std::optional<std::string> AskSupports(const Implementation& impl, int32_t op, const void* args,
                                       bool* threw = nullptr);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_SELECT_ASK_SUPPORTS_H_
