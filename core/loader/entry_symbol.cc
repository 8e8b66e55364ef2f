#include "core/loader/entry_symbol.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace teplug::core {
namespace {

std::string LastDlError() {
  const char* e = dlerror();
  return e != nullptr ? e : "no dlerror message";
}

std::string SymbolTypeName(unsigned type) {
  switch (type) {
    case STT_NOTYPE: return "STT_NOTYPE (untyped)";
    case STT_OBJECT: return "STT_OBJECT (a data object)";
    case STT_SECTION: return "STT_SECTION";
    case STT_FILE: return "STT_FILE";
    case STT_COMMON: return "STT_COMMON (a common data object)";
    case STT_TLS: return "STT_TLS (thread-local data)";
    default: return absl::StrCat("type ", type);
  }
}

// Whether `address` lies in a loaded segment mapped executable (PF_X).
bool InExecutableSegment(const void* address) {
  struct Search {
    uintptr_t address;
    bool executable = false;
  } search{reinterpret_cast<uintptr_t>(address)};
  dl_iterate_phdr(
      [](dl_phdr_info* object, size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        for (ElfW(Half) i = 0; i < object->dlpi_phnum; ++i) {
          const ElfW(Phdr)& p = object->dlpi_phdr[i];
          const uintptr_t start = object->dlpi_addr + p.p_vaddr;
          if (p.p_type == PT_LOAD && s->address >= start && s->address - start < p.p_memsz) {
            s->executable = (p.p_flags & PF_X) != 0;
            return 1;
          }
        }
        return 0;
      },
      &search);
  return search.executable;
}

}  // namespace

absl::StatusOr<TeplugPluginEntryFn> FindPluginEntry(void* handle) {
  dlerror();
  void* symbol = dlsym(handle, TEPLUG_PLUGIN_ENTRY_SYMBOL);
  if (symbol == nullptr) {
    return absl::NotFoundError(absl::StrCat("the library does not export ", TEPLUG_PLUGIN_ENTRY_SYMBOL, " (",
                                            LastDlError(), ")"));
  }
  Dl_info info;
  ElfW(Sym)* entry = nullptr;  // dladdr1's out-parameter is void**
  const bool described = dladdr1(symbol, &info, reinterpret_cast<void**>(&entry), RTLD_DL_SYMENT) != 0 &&
                         entry != nullptr && info.dli_sname != nullptr &&
                         std::strcmp(info.dli_sname, TEPLUG_PLUGIN_ENTRY_SYMBOL) == 0;
  if (!described) {
    // An STT_GNU_IFUNC entry resolves to its implementation, which may have
    // no exported symbol of its own: then the code must at least lie in an
    // executable segment.
    if (InExecutableSegment(symbol)) return reinterpret_cast<TeplugPluginEntryFn>(symbol);
    return absl::InvalidArgumentError(absl::StrCat(TEPLUG_PLUGIN_ENTRY_SYMBOL,
                                                   " resolves to an address outside any executable "
                                                   "segment; it is not called"));
  }
  const unsigned type = sizeof(void*) == 8 ? ELF64_ST_TYPE(entry->st_info) : ELF32_ST_TYPE(entry->st_info);
  if (type != STT_FUNC && type != STT_GNU_IFUNC) {
    return absl::InvalidArgumentError(absl::StrCat(TEPLUG_PLUGIN_ENTRY_SYMBOL, " is exported as ",
                                                   SymbolTypeName(type),
                                                   ", not a function (STT_FUNC or STT_GNU_IFUNC); it is "
                                                   "not called"));
  }
  return reinterpret_cast<TeplugPluginEntryFn>(symbol);
}

}  // namespace teplug::core
