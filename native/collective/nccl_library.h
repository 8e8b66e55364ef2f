// libnccl behind the NcclApi seam, loaded at run time: dlopen of
// libnccl.so.<NCCL_MAJOR> and dlsym of exactly the functions NcclApi has. A
// missing library or symbol is an error carrying dlopen's / dlsym's own text
// for every place tried, which the ICollective reports as the reason it
// cannot serve.
#ifndef TEPLUG_NATIVE_COLLECTIVE_NCCL_LIBRARY_H_
#define TEPLUG_NATIVE_COLLECTIVE_NCCL_LIBRARY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "native/collective/nccl_api.h"

namespace teplug::native::collective {

// Where LoadNccl looks, in order: the soname alone (the loader's search), then
// <dir>/lib64/<soname> for $CUDA_PATH (when set) and /usr/local/cuda.
std::vector<std::string> NcclCandidatePaths();

// Loads the first of `paths` that dlopen accepts and resolves every function;
// NotFound naming each path's dlopen error when none loads, or the missing
// symbol with dlsym's error. The library stays mapped (RTLD_NODELETE): NCCL
// keeps process-wide threads and state that must not be unmapped under them.
absl::StatusOr<std::unique_ptr<NcclApi>> LoadNccl(const std::vector<std::string>& paths);

}  // namespace teplug::native::collective

#endif  // TEPLUG_NATIVE_COLLECTIVE_NCCL_LIBRARY_H_
