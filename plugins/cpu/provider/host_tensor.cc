#include "plugins/cpu/provider/host_tensor.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::cpu::provider {

std::string DimsString(const std::vector<int64_t>& dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

absl::StatusOr<HostTensor> ReadHostTensor(const TeplugTensor* tensor, absl::string_view name) {
  if (tensor == nullptr) return absl::InvalidArgumentError(absl::StrCat(name, " is NULL"));
  HostTensor h;
  TeplugTensor& t = h.fields;
  if (!sdk::ReadVersioned(tensor, &t, TEPLUG_STRUCT_SIZE(TeplugTensor, quant))) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.struct_size %d is smaller than the v1 TeplugTensor (%d)", name,
                        tensor->struct_size, TEPLUG_STRUCT_SIZE(TeplugTensor, quant)));
  }
  if (t.device != nullptr) {
    TeplugDevice device;
    if (!sdk::ReadVersioned(t.device, &device, TEPLUG_STRUCT_SIZE(TeplugDevice, kind))) {
      return absl::InvalidArgumentError(absl::StrCat(name, ".device.struct_size is too small"));
    }
    if (device.kind != TEPLUG_DEVICE_CPU) {
      return absl::UnimplementedError(absl::StrFormat(
          "%s.device: kind %s (ordinal %d), but the cpu provider serves host memory only "
          "(device NULL or cpu)",
          name, sdk::DeviceKindName(device.kind), device.ordinal));
    }
  }
  if (t.rank < 0 || t.rank > TEPLUG_MAX_RANK) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.rank %d is outside 0..%d", name, t.rank, TEPLUG_MAX_RANK));
  }
  if (sdk::DTypeBits(t.dtype) == 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.dtype %d is not a TeplugDType", name, t.dtype));
  }
  h.shape.assign(t.shape, t.shape + t.rank);
  h.strides.assign(t.strides, t.strides + t.rank);
  bool any_zero = false, all_zero = true;
  for (int i = 0; i < t.rank; ++i) {
    if (t.shape[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s.shape[%d] is %d; extents must be >= 0", name, i, t.shape[i]));
    }
    if (t.strides[i] == 0) {
      any_zero = true;
    } else {
      all_zero = false;
    }
    h.elements *= t.shape[i];
  }
  if (any_zero && !all_zero) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.strides %s mix zero and non-zero entries (shape %s): give every stride, or all "
        "zero for row-major contiguous",
        name, DimsString(h.strides), DimsString(h.shape)));
  }
  if (all_zero) {
    int64_t s = 1;
    for (int i = t.rank; i-- > 0;) {
      h.strides[i] = s;
      s *= t.shape[i];
    }
  }
  return h;
}

}  // namespace teplug::cpu::provider
