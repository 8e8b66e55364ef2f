// Opening a CUDA library at run time (dlopen), as the native provider loads
// cuBLASLt, NCCL and cuDNN: only once a GPU needs them, so the CLI starts on
// machines without them. One search order and one error wording for all.
#ifndef TEPLUG_NATIVE_DEVICE_LIBRARY_LOADER_H_
#define TEPLUG_NATIVE_DEVICE_LIBRARY_LOADER_H_

#include <dlfcn.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace teplug::native {

// Where a CUDA library is looked for: its soname (the loader's own search),
// $CUDA_PATH/lib64/SONAME when CUDA_PATH is set, /usr/local/cuda/lib64/SONAME.
std::vector<std::string> CudaLibraryPaths(const std::string& soname);

// dlerror's text, or "(no dlerror text)".
std::string DlError();

struct OpenedLibrary {
  void* handle = nullptr;
  std::string path;  // the entry of `paths` that opened
};

// The first of `paths` that dlopen(RTLD_NOW | RTLD_NODELETE | `flags`) opens.
// RTLD_NODELETE: these libraries keep process-wide state (their own C++
// runtime's allocations among them) that must not be unmapped under anything
// still pointing into it. NotFound "WHAT not loadable: <each dlerror>" when
// none opens.
absl::StatusOr<OpenedLibrary> OpenFirstLibrary(const std::vector<std::string>& paths, int flags,
                                               absl::string_view what);

// Resolves `name` in `library` into `*fn` unless an earlier symbol already
// failed; on failure `*missing` becomes "NAME: <dlerror>".
template <class Fn>
void ResolveSymbol(void* library, const char* name, Fn* fn, std::string* missing) {
  if (!missing->empty()) return;
  dlerror();
  *fn = reinterpret_cast<Fn>(dlsym(library, name));
  if (*fn == nullptr) *missing = absl::StrCat(name, ": ", DlError());
}

}  // namespace teplug::native

#endif  // TEPLUG_NATIVE_DEVICE_LIBRARY_LOADER_H_
