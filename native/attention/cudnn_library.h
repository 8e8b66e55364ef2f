// libcudnn loaded at run time: the toolkit has no static cuDNN, and linking
// the shared one would stop teplug from starting where CUDA is absent (the
// same reason the GEMM opens cuBLASLt with dlopen). The cuDNN frontend runs
// in dynamic-loading mode and calls libcudnn through the handle opened here;
// its shim also opens libcudart.so.<major> by soname for device queries, so
// the runtime next to the cuDNN that loaded is opened first, by path.
#ifndef TEPLUG_NATIVE_ATTENTION_CUDNN_LIBRARY_H_
#define TEPLUG_NATIVE_ATTENTION_CUDNN_LIBRARY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace teplug::native::attention {

struct CudnnLibrary {
  void* handle = nullptr;     // dlopen's handle (RTLD_NODELETE: never unmapped)
  int32_t version = 0;        // cudnnGetVersion()
  std::string path;           // where it was found
};

// Where LoadCudnn looks, in order: libcudnn.so.9 alone (the loader's
// search), then in <dir>/lib64 for $CUDA_PATH (when set) and
// /usr/local/cuda, then /usr/lib/x86_64-linux-gnu.
std::vector<std::string> CudnnCandidatePaths();

// Opens the first of `paths` dlopen accepts and asks its version; NotFound
// naming each path with dlopen's words when none loads.
absl::StatusOr<CudnnLibrary> LoadCudnn(const std::vector<std::string>& paths);

}  // namespace teplug::native::attention

#endif  // TEPLUG_NATIVE_ATTENTION_CUDNN_LIBRARY_H_
