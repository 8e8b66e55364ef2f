#include "plugins/reference/provider/tensor_view.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::reference::provider {

int64_t TensorView::rows() const {
  int64_t r = 1;
  for (size_t i = 0; i + 1 < shape.size(); ++i) r *= shape[i];
  return r;
}

int64_t TensorView::cols() const { return shape.empty() ? 1 : shape.back(); }

int64_t TensorView::OffsetOf(int64_t logical_index) const {
  int64_t offset = 0;
  for (size_t i = shape.size(); i-- > 0;) {
    const int64_t extent = shape[i];
    offset += (logical_index % extent) * strides[i];
    logical_index /= extent;
  }
  return offset;
}

bool TensorView::IsContiguous() const {
  int64_t expected = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1 && strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

absl::StatusOr<TensorView> ViewTensor(const TeplugTensor* tensor, absl::string_view name,
                                      NullData null_data) {
  if (tensor == nullptr) return absl::InvalidArgumentError(absl::StrCat(name, " is NULL"));
  TeplugTensor t;
  if (!sdk::ReadVersioned(tensor, &t, TEPLUG_STRUCT_SIZE(TeplugTensor, quant))) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.struct_size %d is smaller than the v1 TeplugTensor (%d)", name,
                        tensor->struct_size, TEPLUG_STRUCT_SIZE(TeplugTensor, quant)));
  }
  if (absl::Status host = RequireHostDevice(
          t.device, name, ", but the reference provider serves host memory only (device NULL or cpu)");
      !host.ok()) {
    return host;
  }
  if (t.rank < 0 || t.rank > TEPLUG_MAX_RANK) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.rank %d is outside 0..%d", name, t.rank, TEPLUG_MAX_RANK));
  }
  if (sdk::DTypeBits(t.dtype) == 0) {
    return absl::InvalidArgumentError(absl::StrFormat("%s.dtype %d is not a TeplugDType", name, t.dtype));
  }
  TensorView view;
  view.name = std::string(name);
  view.data = t.data;
  view.dtype = t.dtype;
  view.quant = t.quant;
  view.shape.assign(t.shape, t.shape + t.rank);
  bool all_zero = true, any_zero = false;
  for (int i = 0; i < t.rank; ++i) {
    if (t.shape[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s.shape[%d] is %d; extents must be >= 0", name, i, t.shape[i]));
    }
    if (t.strides[i] != 0) all_zero = false;
    if (t.strides[i] == 0) any_zero = true;
    if (view.element_count > 0 && t.shape[i] > std::numeric_limits<int64_t>::max() / view.element_count) {
      return absl::InvalidArgumentError(absl::StrCat(name, ".shape ", ShapeString(view.shape),
                                                     " overflows int64 elements"));
    }
    view.element_count *= t.shape[i];
  }
  view.strides.assign(t.strides, t.strides + t.rank);
  if (any_zero && !all_zero) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.strides %s mix zero and non-zero entries (shape %s): give every stride, or all "
        "zero for row-major contiguous",
        name, ShapeString(view.strides), ShapeString(view.shape)));
  }
  if (all_zero) {
    int64_t s = 1;
    for (int i = t.rank; i-- > 0;) {
      view.strides[i] = s;
      s *= t.shape[i];
    }
  }
  if (null_data == NullData::kRefuse && view.element_count > 0 && view.data == nullptr) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.data is NULL but the tensor has %d elements", name, view.element_count));
  }
  if (view.dtype == TEPLUG_DTYPE_FP4_E2M1) {
    if (view.element_count % 2 != 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: fp4_e2m1 tensors hold two elements per byte, but shape %s has an odd count %d",
          name, ShapeString(view.shape), view.element_count));
    }
    if (t.rank > 0 && view.strides.back() != 1) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s.strides[%d] is %d; fp4_e2m1 needs an innermost stride of 1", name, t.rank - 1,
          view.strides.back()));
    }
  }
  return view;
}

absl::StatusOr<std::optional<TensorView>> ViewOptionalTensor(const TeplugTensor* tensor,
                                                             absl::string_view name) {
  if (tensor == nullptr) return std::optional<TensorView>();
  absl::StatusOr<TensorView> view = ViewTensor(tensor, name);
  if (!view.ok()) return view.status();
  return std::optional<TensorView>(*std::move(view));
}

absl::Status RequireShape(const TensorView& t, const std::vector<int64_t>& expected,
                          absl::string_view what) {
  if (t.shape == expected) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(t.name, ": shape ", ShapeString(t.shape), " but ",
                                                 what, " ", ShapeString(expected)));
}

absl::Status RequireDType(const TensorView& t, uint64_t allowed, absl::string_view what) {
  if ((TEPLUG_DTYPE_BIT(t.dtype) & allowed) != 0) return absl::OkStatus();
  std::vector<std::string> names;
  for (int32_t d = 1; d < TEPLUG_DTYPE_COUNT_; ++d) {
    if ((TEPLUG_DTYPE_BIT(d) & allowed) != 0) names.push_back(sdk::DTypeName(d));
  }
  return absl::InvalidArgumentError(absl::StrCat(t.name, ": dtype ", sdk::DTypeName(t.dtype), " but ",
                                                 what, " (", absl::StrJoin(names, ", "), ")"));
}

absl::Status RequireHostDevice(const TeplugDevice* device, absl::string_view name,
                               absl::string_view refusal) {
  if (device == nullptr) return absl::OkStatus();
  TeplugDevice d;
  if (!sdk::ReadVersioned(device, &d, TEPLUG_STRUCT_SIZE(TeplugDevice, kind))) {
    return absl::InvalidArgumentError(absl::StrCat(name, ".device.struct_size is too small"));
  }
  if (d.kind == TEPLUG_DEVICE_CPU) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrFormat("%s.device: kind %s (ordinal %d)%s", name,
                                                  sdk::DeviceKindName(d.kind), d.ordinal, refusal));
}

absl::StatusOr<TeplugQuantization> ReadQuantization(const TeplugQuantization* quant,
                                                    absl::string_view name) {
  TeplugQuantization q;
  if (quant == nullptr) return absl::InvalidArgumentError(absl::StrCat(name, " is NULL"));
  if (!sdk::ReadVersioned(quant, &q, TEPLUG_STRUCT_SIZE(TeplugQuantization, columnwise_scale_inv))) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.struct_size %d is smaller than the v1 TeplugQuantization", name, quant->struct_size));
  }
  return q;
}

}  // namespace teplug::reference::provider
