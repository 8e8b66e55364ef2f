#include "plugins/reference/provider/status_bridge.h"

namespace teplug::reference::provider {

TeplugCode TeplugCodeFor(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk: return TEPLUG_OK;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange: return TEPLUG_INVALID_ARGUMENT;
    case absl::StatusCode::kUnimplemented: return TEPLUG_UNSUPPORTED;
    case absl::StatusCode::kUnavailable: return TEPLUG_UNAVAILABLE;
    case absl::StatusCode::kResourceExhausted: return TEPLUG_OUT_OF_MEMORY;
    case absl::StatusCode::kNotFound: return TEPLUG_NOT_FOUND;
    case absl::StatusCode::kDeadlineExceeded: return TEPLUG_DEADLINE_EXCEEDED;
    case absl::StatusCode::kFailedPrecondition: return TEPLUG_FAILED_PRECONDITION;
    default: return TEPLUG_INTERNAL;
  }
}

absl::StatusCode AbslCodeFor(int32_t teplug_code) {
  switch (teplug_code) {
    case TEPLUG_OK: return absl::StatusCode::kOk;
    case TEPLUG_INVALID_ARGUMENT: return absl::StatusCode::kInvalidArgument;
    case TEPLUG_UNSUPPORTED: return absl::StatusCode::kUnimplemented;
    case TEPLUG_UNAVAILABLE: return absl::StatusCode::kUnavailable;
    case TEPLUG_OUT_OF_MEMORY: return absl::StatusCode::kResourceExhausted;
    case TEPLUG_NOT_FOUND: return absl::StatusCode::kNotFound;
    case TEPLUG_DEADLINE_EXCEEDED: return absl::StatusCode::kDeadlineExceeded;
    case TEPLUG_FAILED_PRECONDITION: return absl::StatusCode::kFailedPrecondition;
    default: return absl::StatusCode::kInternal;
  }
}

void ThrowIfError(const absl::Status& status) {
  if (status.ok()) return;
  throw sdk::Exception(TeplugCodeFor(status.code()), std::string(status.message()));
}

}  // namespace teplug::reference::provider
