// Where the adapter's absl::Status meets the SDK's exceptions: the pure C++
// pieces (numerics, kernels, collectives, tensor_io) report absl::Status, the
// SDK thunks turn a thrown teplug::sdk::Exception into the TeplugError* the
// ABI returns. These helpers are the one place that maps the codes, so every
// implementation reports the same TeplugCode for the same kind of failure.
#ifndef TEPLUG_PLUGINS_REFERENCE_PROVIDER_STATUS_BRIDGE_H_
#define TEPLUG_PLUGINS_REFERENCE_PROVIDER_STATUS_BRIDGE_H_

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "teplug/sdk/error.hpp"

// Returns the status from the enclosing function when it is not ok.
#define TEPLUG_REFERENCE_RETURN_IF_ERROR(expr)                      \
  do {                                                              \
    if (::absl::Status status_ = (expr); !status_.ok()) return status_; \
  } while (0)

namespace teplug::reference::provider {

// The TeplugCode for an absl code: InvalidArgument/OutOfRange -> invalid_argument,
// Unimplemented -> unsupported, Unavailable, ResourceExhausted -> out_of_memory,
// NotFound, DeadlineExceeded, FailedPrecondition keep their meaning; anything
// else is internal.
TeplugCode TeplugCodeFor(absl::StatusCode code);

// The absl code for a TeplugCode (the inverse of TeplugCodeFor on the codes
// it produces), for errors that come back from host callbacks.
absl::StatusCode AbslCodeFor(int32_t teplug_code);

// Throws sdk::Exception carrying the status' message when it is not ok.
void ThrowIfError(const absl::Status& status);

// Returns the value, or throws as ThrowIfError does.
template <class T>
T ValueOrThrow(absl::StatusOr<T> result) {
  ThrowIfError(result.status());
  return std::move(result).value();
}

}  // namespace teplug::reference::provider

#endif  // TEPLUG_PLUGINS_REFERENCE_PROVIDER_STATUS_BRIDGE_H_
