// The seam between the native IGemm and cuBLASLt: exactly the cuBLASLt calls
// the GEMM makes, as a C++ interface with cuBLASLt's own types (the toolkit's
// headers are there at build time; the library need not be). The real one
// (cublaslt_library.h) is libcublasLt loaded at run time with dlopen, because
// the toolkit ships no static cuBLASLt and linking the shared one would stop a
// CUDA build of teplug from starting where CUDA is not installed; host tests
// use a fake (testing/fake_cublaslt.h) that records every call.
//
// Every method is the cuBLASLt function of the same name without the
// "cublasLt" prefix, with the same arguments and result.
#ifndef TEPLUG_NATIVE_GEMM_CUBLASLT_API_H_
#define TEPLUG_NATIVE_GEMM_CUBLASLT_API_H_

#include <cublasLt.h>

#include <cstddef>
#include <cstdint>

namespace teplug::native {

class CublasLtApi {
 public:
  virtual ~CublasLtApi() = default;
  // cublasLtGetVersion(): major * 10000 + minor * 100 + patch.
  virtual size_t GetVersion() = 0;
  virtual cublasStatus_t Create(cublasLtHandle_t* handle) = 0;
  virtual cublasStatus_t Destroy(cublasLtHandle_t handle) = 0;
  virtual cublasStatus_t MatmulDescCreate(cublasLtMatmulDesc_t* desc,
                                          cublasComputeType_t compute_type,
                                          cudaDataType_t scale_type) = 0;
  virtual cublasStatus_t MatmulDescDestroy(cublasLtMatmulDesc_t desc) = 0;
  virtual cublasStatus_t MatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                                                cublasLtMatmulDescAttributes_t attr,
                                                const void* buf, size_t size) = 0;
  virtual cublasStatus_t MatrixLayoutCreate(cublasLtMatrixLayout_t* layout, cudaDataType_t type,
                                            uint64_t rows, uint64_t cols, int64_t ld) = 0;
  virtual cublasStatus_t MatrixLayoutDestroy(cublasLtMatrixLayout_t layout) = 0;
  virtual cublasStatus_t MatmulPreferenceCreate(cublasLtMatmulPreference_t* pref) = 0;
  virtual cublasStatus_t MatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) = 0;
  virtual cublasStatus_t MatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                      cublasLtMatmulPreferenceAttributes_t attr,
                                                      const void* buf, size_t size) = 0;
  virtual cublasStatus_t MatmulAlgoGetHeuristic(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                                                cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                                cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
                                                cublasLtMatmulPreference_t pref, int requested,
                                                cublasLtMatmulHeuristicResult_t results[],
                                                int* returned) = 0;
  virtual cublasStatus_t Matmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                                const void* alpha, const void* a, cublasLtMatrixLayout_t a_layout,
                                const void* b, cublasLtMatrixLayout_t b_layout, const void* beta,
                                const void* c, cublasLtMatrixLayout_t c_layout, void* d,
                                cublasLtMatrixLayout_t d_layout, const cublasLtMatmulAlgo_t* algo,
                                void* workspace, size_t workspace_bytes, cudaStream_t stream) = 0;
};

}  // namespace teplug::native

#endif  // TEPLUG_NATIVE_GEMM_CUBLASLT_API_H_
