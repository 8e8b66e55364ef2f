#include "native/gemm/cublaslt_heuristic.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "native/gemm/cublaslt_status.h"

namespace teplug::native {
namespace {

absl::StatusOr<ChosenAlgorithm> AskWith(CublasLtApi& lt, cublasLtHandle_t handle,
                                        const CublasLtMatmulDescription& description,
                                        cublasLtMatmulPreference_t pref,
                                        const uint32_t alignments[4], uint64_t max_workspace,
                                        int ordinal) {
  cublasStatus_t s = lt.MatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                     &max_workspace, sizeof(max_workspace));
  if (s != CUBLAS_STATUS_SUCCESS) {
    return CublasError("cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)", s);
  }
  const cublasLtMatmulPreferenceAttributes_t alignment_attrs[4] = {
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
  for (int i = 0; i < 4; ++i) {
    s = lt.MatmulPreferenceSetAttribute(pref, alignment_attrs[i], &alignments[i],
                                        sizeof(alignments[i]));
    if (s != CUBLAS_STATUS_SUCCESS) {
      return CublasError(absl::StrCat("cublasLtMatmulPreferenceSetAttribute(MIN_ALIGNMENT_",
                                      std::string(1, "ABCD"[i]), "_BYTES)"),
                         s);
    }
  }
  cublasLtMatmulHeuristicResult_t result{};
  int returned = 0;
  s = lt.MatmulAlgoGetHeuristic(handle, description.desc(), description.a(), description.b(),
                                description.c(), description.d(), pref, 1, &result, &returned);
  if (s != CUBLAS_STATUS_SUCCESS) return CublasError("cublasLtMatmulAlgoGetHeuristic", s);
  if (returned < 1 || result.state != CUBLAS_STATUS_SUCCESS) {
    return absl::UnimplementedError(absl::StrCat(
        "native gemm: cublasLtMatmulAlgoGetHeuristic found no algorithm for this GEMM on cuda:",
        ordinal, returned < 1 ? "" : " (" + CublasStatusName(result.state) + ")"));
  }
  return ChosenAlgorithm{result.algo, result.workspaceSize};
}

}  // namespace

absl::StatusOr<ChosenAlgorithm> AskCublasLtHeuristic(CublasLtApi& lt, cublasLtHandle_t handle,
                                                     const CublasLtMatmulDescription& description,
                                                     const uint32_t alignments[4],
                                                     uint64_t max_workspace, int ordinal) {
  cublasLtMatmulPreference_t pref = nullptr;
  const cublasStatus_t s = lt.MatmulPreferenceCreate(&pref);
  if (s != CUBLAS_STATUS_SUCCESS) return CublasError("cublasLtMatmulPreferenceCreate", s);
  absl::StatusOr<ChosenAlgorithm> chosen =
      AskWith(lt, handle, description, pref, alignments, max_workspace, ordinal);
  lt.MatmulPreferenceDestroy(pref);
  return chosen;
}

}  // namespace teplug::native
