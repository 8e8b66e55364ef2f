#include "native/quantize/tensor_checks.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native::quantize {
namespace {

size_t ElementBytes(int32_t dtype) {
  switch (dtype) {
    case TEPLUG_DTYPE_FP32:
      return 4;
    case TEPLUG_DTYPE_FP16:
    case TEPLUG_DTYPE_BF16:
      return 2;
    default:
      return 1;
  }
}

}  // namespace

std::string ShapeText(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

absl::StatusOr<CheckedTensor> ReadCudaTensor(const TeplugTensor* p, const std::string& name,
                                             bool data_required) {
  CheckedTensor t;
  t.name = name;
  if (p == nullptr) return absl::InvalidArgumentError(absl::StrCat(name, " is NULL"));
  if (!sdk::ReadVersioned(p, &t.tensor, TEPLUG_STRUCT_SIZE(TeplugTensor, quant))) {
    return absl::InvalidArgumentError(absl::StrCat(name, ".struct_size ", p->struct_size,
                                                   " is smaller than v1.0's ",
                                                   TEPLUG_STRUCT_SIZE(TeplugTensor, quant)));
  }
  const TeplugTensor& x = t.tensor;
  if (x.rank < 0 || x.rank > TEPLUG_MAX_RANK) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ".rank ", x.rank, " is outside 0..", TEPLUG_MAX_RANK));
  }
  t.shape.assign(x.shape, x.shape + x.rank);
  t.elements = 1;
  for (int k = 0; k < x.rank; ++k) {
    if (x.shape[k] < 0)
      return absl::InvalidArgumentError(absl::StrCat(name, ".shape[", k, "] is ", x.shape[k]));
    t.elements *= x.shape[k];
  }
  t.cols = x.rank == 0 ? 1 : x.shape[x.rank - 1];
  t.rows = 1;
  for (int k = 0; k + 1 < x.rank; ++k) t.rows *= x.shape[k];
  // Strides: all zero (row-major) or all given; only row-major ones are served.
  int zero = 0;
  for (int k = 0; k < x.rank; ++k) zero += x.strides[k] == 0 ? 1 : 0;
  if (zero != 0 && zero != x.rank) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ".strides mix zero and non-zero entries: give all of them or none"));
  }
  if (zero == 0) {
    int64_t expected = 1;
    for (int k = x.rank - 1; k >= 0; --k) {
      if (x.shape[k] > 1 && x.strides[k] != expected) {
        return absl::UnimplementedError(absl::StrCat(
            name, ".strides[", k, "] is ", x.strides[k], " where row-major ", ShapeText(t.shape),
            " has ", expected, ": native quantizes contiguous row-major tensors only"));
      }
      expected *= x.shape[k];
    }
  }
  TeplugDevice device = sdk::Versioned<TeplugDevice>();
  if (x.device == nullptr) {
    return absl::UnimplementedError(absl::StrCat(
        name, " is in host memory (device NULL): native quantizes tensors in CUDA memory"));
  }
  if (!sdk::ReadVersioned(x.device, &device, TEPLUG_STRUCT_SIZE(TeplugDevice, arch))) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ".device.struct_size ", x.device->struct_size, " is smaller than v1.0's"));
  }
  if (device.kind != TEPLUG_DEVICE_CUDA) {
    return absl::UnimplementedError(
        absl::StrCat(name, " is on a ", sdk::DeviceKindName(device.kind),
                     " device: native quantizes tensors in CUDA memory"));
  }
  t.ordinal = device.ordinal;
  if (data_required && x.data == nullptr && t.elements > 0) {
    return absl::InvalidArgumentError(absl::StrCat(name, ".data is NULL"));
  }
  return t;
}

absl::Status RequireDType(const CheckedTensor& t, uint64_t allowed, const std::string& what) {
  const int32_t d = t.tensor.dtype;
  if (d > 0 && d < TEPLUG_DTYPE_COUNT_ && (allowed & TEPLUG_DTYPE_BIT(d)) != 0)
    return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(t.name, ".dtype is ", sdk::DTypeName(d), " (", d, "); ", what));
}

absl::Status RequireShape(const CheckedTensor& t, const std::vector<int64_t>& shape,
                          const std::string& why) {
  if (t.shape == shape) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(t.name, " has shape ", ShapeText(t.shape), " but ", why, " ", ShapeText(shape)));
}

absl::Status RequireSameDevice(const CheckedTensor& t, const CheckedTensor& first) {
  if (t.ordinal == first.ordinal) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(t.name, " is on cuda:", t.ordinal, " but ",
                                                 first.name, " is on cuda:", first.ordinal,
                                                 "; one call runs on one GPU"));
}

absl::Status RequireElementAlignment(const CheckedTensor& t) {
  const size_t bytes = ElementBytes(t.tensor.dtype);
  if (reinterpret_cast<uintptr_t>(t.tensor.data) % bytes == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(t.name, ".data is not aligned to its ", bytes,
                                                 "-byte ", sdk::DTypeName(t.tensor.dtype),
                                                 " elements"));
}

}  // namespace teplug::native::quantize
