#include "native/gemm/cublaslt_library.h"

#include <dlfcn.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "native/device/library_loader.h"

namespace teplug::native {
namespace {

// The cuBLASLt functions CublasLtApi forwards to: X(name) for each.
#define TEPLUG_CUBLASLT_FUNCTIONS(X)      \
  X(cublasLtGetVersion)                   \
  X(cublasLtCreate)                       \
  X(cublasLtDestroy)                      \
  X(cublasLtMatmulDescCreate)             \
  X(cublasLtMatmulDescDestroy)            \
  X(cublasLtMatmulDescSetAttribute)       \
  X(cublasLtMatrixLayoutCreate)           \
  X(cublasLtMatrixLayoutDestroy)          \
  X(cublasLtMatmulPreferenceCreate)       \
  X(cublasLtMatmulPreferenceDestroy)      \
  X(cublasLtMatmulPreferenceSetAttribute) \
  X(cublasLtMatmulAlgoGetHeuristic)       \
  X(cublasLtMatmul)

// One pointer per function, typed by the header's declaration.
struct Functions {
#define TEPLUG_DECLARE_POINTER(name) decltype(&::name) name = nullptr;
  TEPLUG_CUBLASLT_FUNCTIONS(TEPLUG_DECLARE_POINTER)
#undef TEPLUG_DECLARE_POINTER
};

class LoadedCublasLt final : public CublasLtApi {
 public:
  LoadedCublasLt(void* library, const Functions& f) : library_(library), f_(f) {}
  ~LoadedCublasLt() override { dlclose(library_); }

  size_t GetVersion() override { return f_.cublasLtGetVersion(); }
  cublasStatus_t Create(cublasLtHandle_t* h) override { return f_.cublasLtCreate(h); }
  cublasStatus_t Destroy(cublasLtHandle_t h) override { return f_.cublasLtDestroy(h); }
  cublasStatus_t MatmulDescCreate(cublasLtMatmulDesc_t* d, cublasComputeType_t c,
                                  cudaDataType_t s) override {
    return f_.cublasLtMatmulDescCreate(d, c, s);
  }
  cublasStatus_t MatmulDescDestroy(cublasLtMatmulDesc_t d) override {
    return f_.cublasLtMatmulDescDestroy(d);
  }
  cublasStatus_t MatmulDescSetAttribute(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t a,
                                        const void* buf, size_t size) override {
    return f_.cublasLtMatmulDescSetAttribute(d, a, buf, size);
  }
  cublasStatus_t MatrixLayoutCreate(cublasLtMatrixLayout_t* l, cudaDataType_t t, uint64_t rows,
                                    uint64_t cols, int64_t ld) override {
    return f_.cublasLtMatrixLayoutCreate(l, t, rows, cols, ld);
  }
  cublasStatus_t MatrixLayoutDestroy(cublasLtMatrixLayout_t l) override {
    return f_.cublasLtMatrixLayoutDestroy(l);
  }
  cublasStatus_t MatmulPreferenceCreate(cublasLtMatmulPreference_t* p) override {
    return f_.cublasLtMatmulPreferenceCreate(p);
  }
  cublasStatus_t MatmulPreferenceDestroy(cublasLtMatmulPreference_t p) override {
    return f_.cublasLtMatmulPreferenceDestroy(p);
  }
  cublasStatus_t MatmulPreferenceSetAttribute(cublasLtMatmulPreference_t p,
                                              cublasLtMatmulPreferenceAttributes_t a,
                                              const void* buf, size_t size) override {
    return f_.cublasLtMatmulPreferenceSetAttribute(p, a, buf, size);
  }
  cublasStatus_t MatmulAlgoGetHeuristic(cublasLtHandle_t h, cublasLtMatmulDesc_t d,
                                        cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                        cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t dl,
                                        cublasLtMatmulPreference_t p, int requested,
                                        cublasLtMatmulHeuristicResult_t results[],
                                        int* returned) override {
    return f_.cublasLtMatmulAlgoGetHeuristic(h, d, a, b, c, dl, p, requested, results, returned);
  }
  cublasStatus_t Matmul(cublasLtHandle_t h, cublasLtMatmulDesc_t desc, const void* alpha,
                        const void* a, cublasLtMatrixLayout_t al, const void* b,
                        cublasLtMatrixLayout_t bl, const void* beta, const void* c,
                        cublasLtMatrixLayout_t cl, void* d, cublasLtMatrixLayout_t dl,
                        const cublasLtMatmulAlgo_t* algo, void* workspace, size_t workspace_bytes,
                        cudaStream_t stream) override {
    return f_.cublasLtMatmul(h, desc, alpha, a, al, b, bl, beta, c, cl, d, dl, algo, workspace,
                             workspace_bytes, stream);
  }

 private:
  void* library_;
  Functions f_;
};

}  // namespace

std::vector<std::string> CublasLtCandidatePaths() {
  return CudaLibraryPaths(absl::StrCat("libcublasLt.so.", CUBLAS_VER_MAJOR));
}

absl::StatusOr<std::unique_ptr<CublasLtApi>> LoadCublasLt(const std::vector<std::string>& paths) {
  absl::StatusOr<OpenedLibrary> opened = OpenFirstLibrary(paths, RTLD_LOCAL, "cuBLASLt");
  if (!opened.ok()) return opened.status();
  void* library = opened->handle;
  Functions f;
  std::string missing;
#define TEPLUG_RESOLVE(name) ResolveSymbol(library, #name, &f.name, &missing);
  TEPLUG_CUBLASLT_FUNCTIONS(TEPLUG_RESOLVE)
#undef TEPLUG_RESOLVE
  if (!missing.empty()) {
    dlclose(library);
    return absl::NotFoundError(absl::StrCat("cuBLASLt lacks a function the GEMM calls: ", missing));
  }
  return std::unique_ptr<CublasLtApi>(new LoadedCublasLt(library, f));
}

}  // namespace teplug::native
