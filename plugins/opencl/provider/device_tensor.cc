#include "plugins/opencl/provider/device_tensor.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "plugins/opencl/provider/device_address_space.h"
#include "teplug/sdk/error.hpp"

namespace teplug::opencl::provider {

std::string ShapeText(const TeplugTensor& t) {
  std::vector<int64_t> shape(t.shape, t.shape + (t.rank > 0 ? t.rank : 0));
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

DeviceTensor ResolveDeviceTensor(const TeplugTensor& t, const std::string& name, int element_bits) {
  if (t.device == nullptr || t.device->kind != TEPLUG_DEVICE_OPENCL) {
    throw sdk::Unsupported(absl::StrCat(name, " is not on an OpenCL device (kind ",
                                        t.device == nullptr ? TEPLUG_DEVICE_CPU : t.device->kind,
                                        "); the opencl provider serves OpenCL memory"));
  }
  if (t.rank < 0 || t.rank > TEPLUG_MAX_RANK)
    throw sdk::InvalidArgument(absl::StrCat(name, " has rank ", t.rank));
  DeviceTensor d;
  d.elements = 1;
  bool all_zero = true;
  for (int i = 0; i < t.rank; ++i) {
    if (t.shape[i] < 0)
      throw sdk::InvalidArgument(absl::StrCat(name, " has a negative extent: ", ShapeText(t)));
    d.elements *= t.shape[i];
    all_zero = all_zero && t.strides[i] == 0;
  }
  if (!all_zero) {
    int64_t expected = 1;
    for (int i = t.rank - 1; i >= 0; --i) {
      if (t.shape[i] > 1 && t.strides[i] != expected) {
        std::vector<int64_t> strides(t.strides, t.strides + t.rank);
        throw sdk::Unsupported(absl::StrCat(name, " strides [", absl::StrJoin(strides, ", "),
                                            "] of shape ", ShapeText(t),
                                            ": only contiguous tensors are served here"));
      }
      expected *= t.shape[i];
    }
  }
  if (d.elements == 0 || t.data == nullptr) return d;
  const size_t bytes = static_cast<size_t>((d.elements * element_bits + 7) / 8);
  ResolvedAddress r;
  if (!DeviceAddressSpace::Instance().Resolve(t.data, bytes, &r)) {
    throw sdk::InvalidArgument(absl::StrCat(
        name, ": [data, +", bytes, " bytes) is not inside memory allocated by the opencl IDevice"));
  }
  const size_t element_bytes = static_cast<size_t>(element_bits >= 8 ? element_bits / 8 : 1);
  if (r.offset % element_bytes != 0) {
    throw sdk::InvalidArgument(absl::StrCat(name, ".data is ", r.offset,
                                            " bytes into its buffer, not a multiple of the element "
                                            "size ",
                                            element_bytes));
  }
  d.buffer = r.buffer;
  d.offset = r.offset;
  d.owner = r.owner;
  return d;
}

void RequireShape(const TeplugTensor& t, const std::string& name, const std::vector<int64_t>& shape,
                  const std::string& why) {
  bool same = t.rank == static_cast<int32_t>(shape.size());
  for (size_t i = 0; same && i < shape.size(); ++i) same = t.shape[i] == shape[i];
  if (!same) {
    throw sdk::InvalidArgument(absl::StrCat(name, " is ", ShapeText(t), " but ", why, " [",
                                            absl::StrJoin(shape, ", "), "]"));
  }
}

}  // namespace teplug::opencl::provider
