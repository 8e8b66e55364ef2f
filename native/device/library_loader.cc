#include "native/device/library_loader.h"

#include <cstdlib>

#include "absl/status/status.h"

namespace teplug::native {

std::vector<std::string> CudaLibraryPaths(const std::string& soname) {
  std::vector<std::string> paths = {soname};
  if (const char* cuda_path = std::getenv("CUDA_PATH");
      cuda_path != nullptr && *cuda_path != '\0') {
    paths.push_back(absl::StrCat(cuda_path, "/lib64/", soname));
  }
  paths.push_back("/usr/local/cuda/lib64/" + soname);
  return paths;
}

std::string DlError() {
  const char* e = dlerror();
  return e == nullptr ? "(no dlerror text)" : e;
}

absl::StatusOr<OpenedLibrary> OpenFirstLibrary(const std::vector<std::string>& paths, int flags,
                                               absl::string_view what) {
  std::string tried;
  for (const std::string& path : paths) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NODELETE | flags);
    if (handle != nullptr) return OpenedLibrary{handle, path};
    absl::StrAppend(&tried, tried.empty() ? "" : "; ", DlError());
  }
  return absl::NotFoundError(
      absl::StrCat(what, " not loadable: ", tried.empty() ? "no path to try" : tried));
}

}  // namespace teplug::native
