#include "native/collective/nccl_status.h"

namespace teplug::native::collective {

std::string NcclResultName(ncclResult_t result) {
  switch (result) {
    case ncclSuccess:
      return "ncclSuccess";
    case ncclUnhandledCudaError:
      return "ncclUnhandledCudaError";
    case ncclSystemError:
      return "ncclSystemError";
    case ncclInternalError:
      return "ncclInternalError";
    case ncclInvalidArgument:
      return "ncclInvalidArgument";
    case ncclInvalidUsage:
      return "ncclInvalidUsage";
    case ncclRemoteError:
      return "ncclRemoteError";
    case ncclInProgress:
      return "ncclInProgress";
    default:
      return "ncclResult_t " + std::to_string(static_cast<int>(result));
  }
}

TeplugCode NcclResultCode(ncclResult_t result) {
  switch (result) {
    case ncclSuccess:
      return TEPLUG_OK;
    case ncclSystemError:
    case ncclRemoteError:
      return TEPLUG_UNAVAILABLE;
    case ncclInvalidArgument:
      return TEPLUG_INVALID_ARGUMENT;
    case ncclInvalidUsage:
      return TEPLUG_FAILED_PRECONDITION;
    default:
      return TEPLUG_INTERNAL;
  }
}

}  // namespace teplug::native::collective
