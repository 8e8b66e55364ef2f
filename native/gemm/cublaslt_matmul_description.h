// One GEMM as cuBLASLt objects: the matmul descriptor and the four matrix
// layouts a CublasLtGemmPlan describes, with every attribute the plan calls
// for (transposes, epilogue, bias and aux pointers and types, fp8 fast
// accumulation, scale modes and scale pointers, D scale and amax), made
// through the CublasLtApi seam and destroyed with this object.
#ifndef TEPLUG_NATIVE_GEMM_CUBLASLT_MATMUL_DESCRIPTION_H_
#define TEPLUG_NATIVE_GEMM_CUBLASLT_MATMUL_DESCRIPTION_H_

#include <string>

#include "absl/status/status.h"
#include "native/gemm/cublaslt_api.h"
#include "native/gemm/cublaslt_gemm_plan.h"
#include "teplug/gemm.h"

namespace teplug::native {

// The device pointers of cuBLASLt's A, B, C and D for `plan` (the swap: its A
// is teplug's B), and of the epilogue's bias and GELU aux output. When the
// plan reads no C (beta 0), C is D, or NULL for an fp8 D, whose C layout has
// another type (as TransformerEngine passes it).
struct LtOperandPointers {
  const void* a = nullptr;
  const void* b = nullptr;
  const void* c = nullptr;
  void* d = nullptr;
  const void* bias = nullptr;
  const void* aux = nullptr;
};
LtOperandPointers OperandPointers(const CublasLtGemmPlan& plan, const TeplugGemmArgs& args);

// cuBLASLt's A and B scale pointers where they are not the tensors' own
// scale_inv data; NULL: the tensor's.
struct LtScalePointers {
  const void* a = nullptr;
  const void* b = nullptr;
};

class CublasLtMatmulDescription {
 public:
  explicit CublasLtMatmulDescription(CublasLtApi& lt) : lt_(lt) {}
  ~CublasLtMatmulDescription();
  CublasLtMatmulDescription(const CublasLtMatmulDescription&) = delete;
  CublasLtMatmulDescription& operator=(const CublasLtMatmulDescription&) = delete;

  // Creates the descriptor and layouts for `plan`, taking the pointers the
  // attributes need (bias, pre_gelu_out, scale_inv, D's scale and amax) from
  // `args` (NULL data is passed on as NULL: the heuristic reads none of them).
  // `scales`, where non-NULL, replaces cuBLASLt's A or B scale pointer (the
  // tiled copy of MXFP8 scales). An error (CublasError) names the cuBLASLt
  // call and attribute that failed.
  absl::Status Build(const CublasLtGemmPlan& plan, const TeplugGemmArgs& args,
                     const LtScalePointers& scales = {});

  cublasLtMatmulDesc_t desc() const { return desc_; }
  cublasLtMatrixLayout_t a() const { return layouts_[0]; }
  cublasLtMatrixLayout_t b() const { return layouts_[1]; }
  cublasLtMatrixLayout_t c() const { return layouts_[2]; }
  cublasLtMatrixLayout_t d() const { return layouts_[3]; }

 private:
  CublasLtApi& lt_;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t layouts_[4] = {nullptr, nullptr, nullptr, nullptr};
};

// A cuBLASLt failure as an absl::Status: "native gemm: " + CublasCallFailure's
// text, with the absl code that TeplugCodeOf turns back into
// TeplugCodeOfCublas(status).
absl::Status CublasError(const std::string& call, cublasStatus_t status);

// The teplug code of an absl status of this package: InvalidArgument ->
// INVALID_ARGUMENT, Unimplemented (what cuBLASLt or this GPU cannot do) ->
// UNSUPPORTED, Unavailable and NotFound (no library, driver or GPU) ->
// UNAVAILABLE, ResourceExhausted -> OUT_OF_MEMORY, anything else -> INTERNAL.
TeplugCode TeplugCodeOf(const absl::Status& status);

}  // namespace teplug::native

#endif  // TEPLUG_NATIVE_GEMM_CUBLASLT_MATMUL_DESCRIPTION_H_
