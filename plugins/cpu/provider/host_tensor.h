// Reading an ABI tensor that the cpu provider's ops take from host memory:
// the checks every op makes before its own (NULL, struct_size, device, rank,
// dtype code, extents, strides), with errors naming the tensor and the value.
#ifndef TEPLUG_PLUGINS_CPU_PROVIDER_HOST_TENSOR_H_
#define TEPLUG_PLUGINS_CPU_PROVIDER_HOST_TENSOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "teplug/types.h"

namespace teplug::cpu::provider {

// A tensor after ReadHostTensor: its v1 fields and its strides filled in.
struct HostTensor {
  TeplugTensor fields{};         // a copy of the caller's v1 fields
  std::vector<int64_t> shape;    // fields.rank extents
  std::vector<int64_t> strides;  // given, or row-major when all were zero
  int64_t elements = 1;          // product of the extents
};

// InvalidArgument for NULL, a v1 struct_size too small, a rank outside
// 0..8, an unknown dtype code, a negative extent, or zero and non-zero
// strides mixed; Unimplemented for a device other than the CPU. The data
// pointer is not checked (NULL is valid when the host only asks supports).
absl::StatusOr<HostTensor> ReadHostTensor(const TeplugTensor* tensor, absl::string_view name);

// "[a, b, ...]"
std::string DimsString(const std::vector<int64_t>& dims);

}  // namespace teplug::cpu::provider

#endif  // TEPLUG_PLUGINS_CPU_PROVIDER_HOST_TENSOR_H_
