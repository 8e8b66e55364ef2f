#include "native/collective/device_buffer.h"

#include <optional>

#include "absl/strings/str_format.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native::collective {

DeviceBuffer ReadDeviceBuffer(const TeplugTensor* tensor, const std::string& name) {
  if (tensor == nullptr) throw sdk::InvalidArgument(name + " is NULL");
  TeplugTensor t;
  if (!sdk::ReadVersioned(tensor, &t, TEPLUG_STRUCT_SIZE(TeplugTensor, quant))) {
    throw sdk::InvalidArgument(name + ".struct_size is too small");
  }
  if (t.device == nullptr || t.device->kind != TEPLUG_DEVICE_CUDA) {
    throw sdk::Unsupported(absl::StrFormat(
        "%s.device: %s; NCCL reads and writes CUDA device memory only", name,
        t.device == nullptr ? "host memory (NULL)" : absl::StrFormat("kind %d", t.device->kind)));
  }
  const std::optional<NcclDtype> dtype = FindNcclDtype(t.dtype);
  if (!dtype.has_value()) {
    throw sdk::Unsupported(absl::StrFormat("%s: dtype %s is not served (%s)", name,
                                           sdk::DTypeName(t.dtype), ServedDtypeNames()));
  }
  if (t.quant != nullptr) throw sdk::Unsupported(name + ": quantization metadata is not served");
  if (t.rank < 0 || t.rank > TEPLUG_MAX_RANK) {
    throw sdk::InvalidArgument(
        absl::StrFormat("%s.rank %d is not in 0..%d", name, t.rank, TEPLUG_MAX_RANK));
  }
  size_t count = 1;
  bool any_stride = false, all_stride = true;
  for (int d = 0; d < t.rank; ++d) {
    if (t.shape[d] < 0) {
      throw sdk::InvalidArgument(absl::StrFormat("%s.shape[%d] is %d", name, d, t.shape[d]));
    }
    count *= static_cast<size_t>(t.shape[d]);
    any_stride |= t.strides[d] != 0;
    all_stride &= t.strides[d] != 0;
  }
  if (any_stride && !all_stride) {
    throw sdk::InvalidArgument(name + ": strides mix zero and non-zero entries");
  }
  int64_t expected = 1;
  for (int d = t.rank - 1; any_stride && d >= 0; --d) {
    if (t.shape[d] > 1 && t.strides[d] != expected) {
      throw sdk::Unsupported(absl::StrFormat(
          "%s.strides[%d] is %d, not %d: NCCL buffers must be row-major contiguous", name, d,
          t.strides[d], expected));
    }
    expected *= t.shape[d];
  }
  if (count > 0 && t.data == nullptr) {
    throw sdk::InvalidArgument(absl::StrFormat("%s.data is NULL for %d elements", name, count));
  }
  return DeviceBuffer{t.data, *dtype, count, t.device->ordinal};
}

}  // namespace teplug::native::collective
