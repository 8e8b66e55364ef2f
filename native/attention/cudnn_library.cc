#include "native/attention/cudnn_library.h"

#include <dlfcn.h>

#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "native/device/library_loader.h"

namespace teplug::native::attention {
namespace {

constexpr char kSoname[] = "libcudnn.so.9";
// The CUDA runtime the frontend's shim asks for (cudaGetDeviceProperties).
constexpr char kCudartSoname[] = "libcudart.so.13";

std::string Dir(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

// Opens libcudart next to `cudnn_path` (or by soname), so that the shim's
// dlopen("libcudart.so.13") finds it loaded; failure is left to the shim to
// report when it needs the runtime.
void PreloadCudart(const std::string& cudnn_path) {
  const std::string dir = Dir(cudnn_path);
  if (!dir.empty() && dlopen((dir + "/" + kCudartSoname).c_str(), RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE)) return;
  for (const char* d : {static_cast<const char*>(std::getenv("CUDA_PATH")), "/usr/local/cuda"}) {
    if (d == nullptr) continue;
    if (dlopen(absl::StrCat(d, "/lib64/", kCudartSoname).c_str(), RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE)) return;
  }
  dlopen(kCudartSoname, RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
}

}  // namespace

std::vector<std::string> CudnnCandidatePaths() {
  std::vector<std::string> paths = CudaLibraryPaths(kSoname);
  paths.push_back(absl::StrCat("/usr/lib/x86_64-linux-gnu/", kSoname));
  return paths;
}

absl::StatusOr<CudnnLibrary> LoadCudnn(const std::vector<std::string>& paths) {
  absl::StatusOr<OpenedLibrary> opened = OpenFirstLibrary(paths, RTLD_GLOBAL, "cuDNN");
  if (!opened.ok()) return opened.status();
  void* handle = opened->handle;
  const std::string& path = opened->path;
  size_t (*get_version)() = nullptr;
  std::string missing;
  ResolveSymbol(handle, "cudnnGetVersion", &get_version, &missing);
  if (!missing.empty()) return absl::NotFoundError(absl::StrCat("cuDNN at ", path, " lacks ", missing));
  char resolved[4096];
  std::string where = path;
  if (dlinfo(handle, RTLD_DI_ORIGIN, resolved) == 0) where = absl::StrCat(resolved, "/", kSoname);
  PreloadCudart(where);
  CudnnLibrary lib;
  lib.handle = handle;
  lib.version = static_cast<int32_t>(get_version());
  lib.path = where;
  return lib;
}

}  // namespace teplug::native::attention
