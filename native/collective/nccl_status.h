// NCCL's results in words and as teplug codes.
//
//   ncclUnhandledCudaError, ncclInternalError -> INTERNAL
//   ncclSystemError, ncclRemoteError          -> UNAVAILABLE (a socket, a
//                                                peer process or a link failed)
//   ncclInvalidArgument                       -> INVALID_ARGUMENT
//   ncclInvalidUsage                          -> FAILED_PRECONDITION
//   anything else                             -> INTERNAL
#ifndef TEPLUG_NATIVE_COLLECTIVE_NCCL_STATUS_H_
#define TEPLUG_NATIVE_COLLECTIVE_NCCL_STATUS_H_

#include <nccl.h>

#include <string>

#include "teplug/status.h"

namespace teplug::native::collective {

// "ncclRemoteError", or "ncclResult_t <n>" for a value nccl.h does not name.
std::string NcclResultName(ncclResult_t result);

TeplugCode NcclResultCode(ncclResult_t result);

}  // namespace teplug::native::collective

#endif  // TEPLUG_NATIVE_COLLECTIVE_NCCL_STATUS_H_
