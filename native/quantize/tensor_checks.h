// Reading and checking the ABI tensors a quantizer call names: versioned
// structs read safely, the [rows, cols] matrix view, contiguity, the device
// (CUDA, one ordinal for every tensor of a call), dtype and shape. Every
// failure names the tensor ("TeplugQuantizeArgs.output.quant.scale_inv") and
// the value, as absl::InvalidArgumentError (malformed) or
// absl::UnimplementedError (valid, but not served by the native quantizer).
#ifndef TEPLUG_NATIVE_QUANTIZE_TENSOR_CHECKS_H_
#define TEPLUG_NATIVE_QUANTIZE_TENSOR_CHECKS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "teplug/types.h"

namespace teplug::native::quantize {

// A tensor read from the caller's struct, with its name for messages.
struct CheckedTensor {
  std::string name;
  TeplugTensor tensor{};
  std::vector<int64_t> shape;
  int64_t elements = 0;
  int64_t rows = 0;  // prod(shape[:-1]); 1 for rank 0 and rank 1
  int64_t cols = 0;  // shape[-1]; 1 for rank 0
  int ordinal = 0;   // the CUDA device holding it
};

// Reads *p (NULL is an error naming `name`), checks rank, extents, strides
// (all zero or exactly row-major: other strides are not served) and that
// the data is in CUDA memory. `data_required`: a NULL data pointer is
// refused (it is allowed when only `supports` is asked).
absl::StatusOr<CheckedTensor> ReadCudaTensor(const TeplugTensor* p, const std::string& name,
                                             bool data_required);

// The tensor's dtype is one of `allowed` (TEPLUG_DTYPE_BIT set), else an error
// saying what `what` accepts.
absl::Status RequireDType(const CheckedTensor& t, uint64_t allowed, const std::string& what);

// Exactly this shape (rank and extents); `why` says who needs it.
absl::Status RequireShape(const CheckedTensor& t, const std::vector<int64_t>& shape,
                          const std::string& why);

// On the same CUDA device as `first`: one call runs on one GPU.
absl::Status RequireSameDevice(const CheckedTensor& t, const CheckedTensor& first);

// The data pointer is aligned to its element size (the kernels load whole
// elements).
absl::Status RequireElementAlignment(const CheckedTensor& t);

// "[2, 3]" for messages.
std::string ShapeText(const std::vector<int64_t>& shape);

}  // namespace teplug::native::quantize

#endif  // TEPLUG_NATIVE_QUANTIZE_TENSOR_CHECKS_H_
