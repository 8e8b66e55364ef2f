#include "native/gemm/cublaslt_status.h"

#include "absl/strings/str_cat.h"

namespace teplug::native {
namespace {

struct StatusWords {
  cublasStatus_t status;
  const char* name;
  const char* meaning;
};

// Every cublasStatus_t of cublas_api.h.
constexpr StatusWords kStatuses[] = {
    {CUBLAS_STATUS_SUCCESS, "CUBLAS_STATUS_SUCCESS", "success"},
    {CUBLAS_STATUS_NOT_INITIALIZED, "CUBLAS_STATUS_NOT_INITIALIZED",
     "cuBLASLt could not initialise: no usable CUDA driver or GPU"},
    {CUBLAS_STATUS_ALLOC_FAILED, "CUBLAS_STATUS_ALLOC_FAILED",
     "a host or device allocation inside cuBLASLt failed"},
    {CUBLAS_STATUS_INVALID_VALUE, "CUBLAS_STATUS_INVALID_VALUE",
     "an argument or attribute value is invalid (a pointer's alignment, a size, a workspace)"},
    {CUBLAS_STATUS_ARCH_MISMATCH, "CUBLAS_STATUS_ARCH_MISMATCH",
     "the operation cannot run on this GPU's architecture"},
    {CUBLAS_STATUS_MAPPING_ERROR, "CUBLAS_STATUS_MAPPING_ERROR", "accessing GPU memory failed"},
    {CUBLAS_STATUS_EXECUTION_FAILED, "CUBLAS_STATUS_EXECUTION_FAILED",
     "the GPU program failed to execute"},
    {CUBLAS_STATUS_INTERNAL_ERROR, "CUBLAS_STATUS_INTERNAL_ERROR",
     "an internal cuBLASLt operation failed"},
    {CUBLAS_STATUS_NOT_SUPPORTED, "CUBLAS_STATUS_NOT_SUPPORTED",
     "the operation is not supported for these arguments on this GPU"},
    {CUBLAS_STATUS_LICENSE_ERROR, "CUBLAS_STATUS_LICENSE_ERROR", "a licence check failed"},
};

const StatusWords* Find(cublasStatus_t status) {
  for (const StatusWords& s : kStatuses) {
    if (s.status == status) return &s;
  }
  return nullptr;
}

}  // namespace

std::string CublasStatusName(cublasStatus_t status) {
  const StatusWords* s = Find(status);
  return s != nullptr ? s->name : absl::StrCat("cublasStatus_t ", static_cast<int>(status));
}

std::string CublasStatusMeaning(cublasStatus_t status) {
  const StatusWords* s = Find(status);
  return s != nullptr ? s->meaning : "a status this build's cuBLASLt headers do not define";
}

TeplugCode TeplugCodeOfCublas(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_ALLOC_FAILED:
      return TEPLUG_OUT_OF_MEMORY;
    case CUBLAS_STATUS_NOT_SUPPORTED:
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return TEPLUG_UNSUPPORTED;
    case CUBLAS_STATUS_INVALID_VALUE:
      return TEPLUG_INVALID_ARGUMENT;
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return TEPLUG_UNAVAILABLE;
    default:
      return TEPLUG_INTERNAL;
  }
}

std::string CublasCallFailure(const std::string& call, cublasStatus_t status) {
  return absl::StrCat(call, " returned ", CublasStatusName(status), " (",
                      CublasStatusMeaning(status), ")");
}

}  // namespace teplug::native
