// Finds a plugin library's entry point and checks that it is code. A library
// may export `teplug_plugin_entry` as a data object (an array, a struct);
// calling it would jump into data and crash the host, so the loader (and the
// pre-flight probe) refuse such a symbol instead of calling it.
#ifndef TEPLUG_CORE_LOADER_ENTRY_SYMBOL_H_
#define TEPLUG_CORE_LOADER_ENTRY_SYMBOL_H_

#include "absl/status/statusor.h"
#include "teplug/plugin.h"

namespace teplug::core {

// dlsym(handle, "teplug_plugin_entry"), then the symbol's ELF type (through
// dladdr1 with RTLD_DL_SYMENT): STT_FUNC and STT_GNU_IFUNC are accepted.
// NOT_FOUND when the library does not export it (with dlerror's text);
// INVALID_ARGUMENT naming the symbol type when it is not a function.
absl::StatusOr<TeplugPluginEntryFn> FindPluginEntry(void* handle);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_LOADER_ENTRY_SYMBOL_H_
