// cuBLASLt's status codes in words, and the teplug status each becomes, so a
// failed call is reported as "<call> returned CUBLAS_STATUS_NOT_SUPPORTED
// (...)" with the code a caller can act on. Its own table: it works when
// libcublasLt is not loaded (the fake in tests, a load that failed).
#ifndef TEPLUG_NATIVE_GEMM_CUBLASLT_STATUS_H_
#define TEPLUG_NATIVE_GEMM_CUBLASLT_STATUS_H_

#include <cublasLt.h>

#include <string>

#include "teplug/status.h"

namespace teplug::native {

// "CUBLAS_STATUS_NOT_SUPPORTED"; "cublasStatus_t <n>" for a code the headers
// do not define.
std::string CublasStatusName(cublasStatus_t status);

// What the status means, in a few words ("the operation is not supported for
// these arguments on this GPU").
std::string CublasStatusMeaning(cublasStatus_t status);

// The teplug status a failed call becomes: ALLOC_FAILED -> OUT_OF_MEMORY,
// NOT_SUPPORTED / ARCH_MISMATCH -> UNSUPPORTED, INVALID_VALUE ->
// INVALID_ARGUMENT, NOT_INITIALIZED -> UNAVAILABLE (no usable driver or GPU),
// the rest -> INTERNAL.
TeplugCode TeplugCodeOfCublas(cublasStatus_t status);

// "<call> returned <name> (<meaning>)".
std::string CublasCallFailure(const std::string& call, cublasStatus_t status);

}  // namespace teplug::native

#endif  // TEPLUG_NATIVE_GEMM_CUBLASLT_STATUS_H_
