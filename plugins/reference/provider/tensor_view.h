// A checked, self-describing view of one ABI tensor (TeplugTensor) in host
// memory: the fields after the struct_size check, contiguous strides filled in
// for all-zero strides, and the name the caller knows it by
// ("TeplugGemmArgs.b"), so every later error can say which tensor and which
// field was wrong.
#ifndef TEPLUG_PLUGINS_REFERENCE_PROVIDER_TENSOR_VIEW_H_
#define TEPLUG_PLUGINS_REFERENCE_PROVIDER_TENSOR_VIEW_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "teplug/types.h"

namespace teplug::reference::provider {

struct TensorView {
  std::string name;  // e.g. "TeplugGemmArgs.a", used in every message
  void* data = nullptr;
  int32_t dtype = TEPLUG_DTYPE_INVALID;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // in elements; row-major contiguous if the caller gave zeros
  const TeplugQuantization* quant = nullptr;
  int64_t element_count = 1;

  // The tensor seen as [rows, cols] = [prod(shape[:-1]), shape[-1]] (rank 0:
  // [1, 1]); the geometry scaling modes and quantize use.
  int64_t rows() const;
  int64_t cols() const;
  // Element offset (in elements, from data) of the row-major logical index.
  int64_t OffsetOf(int64_t logical_index) const;
  // True when the strides are the row-major contiguous ones.
  bool IsContiguous() const;
};

// "[4, 5]".
std::string ShapeString(const std::vector<int64_t>& shape);

// Whether ViewTensor refuses a non-empty tensor whose data is NULL.
enum class NullData {
  kRefuse,  // the usual case: the caller reads or writes the data
  kAllow,   // only the shape, dtype and quant are used (quantize's output
            // when only the column-wise codes are written); the caller
            // checks data itself before touching it
};

// Checks and views `tensor`. Errors (InvalidArgument unless noted) name
// `name` and the field: NULL tensor, struct_size too small (abi mismatch is
// reported as InvalidArgument here: the SDK checks only args structs), a
// device other than the host (Unimplemented: "TeplugGemmArgs.a.device: kind
// cuda ... the reference provider serves host memory only"), rank outside
// 0..8, negative extents, unknown dtype, strides that mix zero and non-zero
// entries (all zero means row-major contiguous; a mix is malformed), NULL
// data for a non-empty tensor
// (unless null_data is kAllow), fp4 with an inner stride other than 1 or an
// odd element count.
absl::StatusOr<TensorView> ViewTensor(const TeplugTensor* tensor, absl::string_view name,
                                      NullData null_data = NullData::kRefuse);

// Same, for an optional tensor: std::nullopt for NULL.
absl::StatusOr<std::optional<TensorView>> ViewOptionalTensor(const TeplugTensor* tensor,
                                                             absl::string_view name);

// InvalidArgument "<name>: shape [..] but <what> [..]" unless t.shape == expected.
absl::Status RequireShape(const TensorView& t, const std::vector<int64_t>& expected,
                          absl::string_view what);

// InvalidArgument "<name>: dtype fp8_e4m3 but <what>" unless t.dtype is in `allowed`
// (a TEPLUG_DTYPE_BIT mask).
absl::Status RequireDType(const TensorView& t, uint64_t allowed, absl::string_view what);

// Checks that `device` (NULL = host) is the host. Errors name `name`:
// InvalidArgument "<name>.device.struct_size is too small"; Unimplemented
// "<name>.device: kind cuda (ordinal 0)<refusal>", where `refusal` says what
// serves host memory only (" but the reference provider ...").
absl::Status RequireHostDevice(const TeplugDevice* device, absl::string_view name,
                               absl::string_view refusal);

// Reads a copy of a TeplugQuantization (struct_size-checked); `name` names its owner.
absl::StatusOr<TeplugQuantization> ReadQuantization(const TeplugQuantization* quant,
                                                    absl::string_view name);

}  // namespace teplug::reference::provider

#endif  // TEPLUG_PLUGINS_REFERENCE_PROVIDER_TENSOR_VIEW_H_
