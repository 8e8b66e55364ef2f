// What the loader requires of an interface's function table before it
// accepts an object: the v1 size, and every mandatory function present.
#ifndef TEPLUG_CORE_LOADER_INTERFACE_TABLE_H_
#define TEPLUG_CORE_LOADER_INTERFACE_TABLE_H_

#include <optional>
#include <string>

#include "core/registry/interface_kind.h"
#include "teplug/teplug.h"

namespace teplug::core {

// Checks `object`'s table for interface `kind`: non-NULL, struct_size at
// least the v1 table, base functions and the interface's mandatory functions
// non-NULL (`supports` may be NULL). Returns a message naming the table and
// field, or nullopt when the table is usable.
std::optional<std::string> CheckInterfaceTable(InterfaceKind kind, const TeplugObject* object);

// The table's `supports` hook (NULL allowed). Only after CheckInterfaceTable.
TeplugSupportsFn SupportsHook(InterfaceKind kind, const TeplugObject* object);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_LOADER_INTERFACE_TABLE_H_
