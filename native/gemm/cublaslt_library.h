// libcublasLt behind the CublasLtApi seam, loaded at run time: dlopen of the
// soname the toolkit's headers name (libcublasLt.so.<major>) and dlsym of
// exactly the functions CublasLtApi has. A missing library or symbol is an
// error carrying dlopen's / dlsym's own text for every place tried, which the
// IGemm reports as the reason it cannot serve.
#ifndef TEPLUG_NATIVE_GEMM_CUBLASLT_LIBRARY_H_
#define TEPLUG_NATIVE_GEMM_CUBLASLT_LIBRARY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "native/gemm/cublaslt_api.h"

namespace teplug::native {

// Where LoadCublasLt looks, in order: the soname alone (the loader's search:
// LD_LIBRARY_PATH, the ld.so cache), then <dir>/lib64/<soname> for $CUDA_PATH
// (when set) and /usr/local/cuda.
std::vector<std::string> CublasLtCandidatePaths();

// Loads the first of `paths` that dlopen accepts and resolves every function;
// NotFound naming each path with dlopen's error when none loads, or the
// missing symbol with dlsym's error. The library stays loaded while the
// returned object lives, and stays mapped after (RTLD_NODELETE).
absl::StatusOr<std::unique_ptr<CublasLtApi>> LoadCublasLt(const std::vector<std::string>& paths);

}  // namespace teplug::native

#endif  // TEPLUG_NATIVE_GEMM_CUBLASLT_LIBRARY_H_
