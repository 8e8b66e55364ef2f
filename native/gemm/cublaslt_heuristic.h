// The one way native asks cuBLASLt's heuristic for an algorithm, shared by
// the IGemm and the benchmark that compares it with a direct call (so both
// ask with the same preference and get the same algorithm): a preference
// with the workspace limit and the pointers' alignment classes as
// MIN_ALIGNMENT_*_BYTES, one algorithm requested.
#ifndef TEPLUG_NATIVE_GEMM_CUBLASLT_HEURISTIC_H_
#define TEPLUG_NATIVE_GEMM_CUBLASLT_HEURISTIC_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "native/gemm/cublaslt_api.h"
#include "native/gemm/cublaslt_matmul_description.h"

namespace teplug::native {

// The heuristic's first algorithm and the workspace it needs.
struct ChosenAlgorithm {
  cublasLtMatmulAlgo_t algo{};
  size_t workspace = 0;
};

// `alignments`: the alignment classes of cuBLASLt's A, B, C and D pointers.
// Unimplemented naming cuda:<ordinal> when the heuristic finds no algorithm;
// a failed call as CublasError.
absl::StatusOr<ChosenAlgorithm> AskCublasLtHeuristic(CublasLtApi& lt, cublasLtHandle_t handle,
                                                     const CublasLtMatmulDescription& description,
                                                     const uint32_t alignments[4],
                                                     uint64_t max_workspace, int ordinal);

}  // namespace teplug::native

#endif  // TEPLUG_NATIVE_GEMM_CUBLASLT_HEURISTIC_H_
