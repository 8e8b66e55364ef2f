#include "plugins/reference/collective/data_type.h"

#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace teplug::reference::collective {

absl::string_view DataTypeName(DataType type) {
  switch (type) {
    case DataType::kFp32:
      return "fp32";
    case DataType::kFp16:
      return "fp16";
    case DataType::kBf16:
      return "bf16";
    case DataType::kFp8E4M3:
      return "fp8_e4m3";
    case DataType::kFp8E5M2:
      return "fp8_e5m2";
    case DataType::kE8M0:
      return "e8m0";
    case DataType::kFp4E2M1:
      return "fp4_e2m1";
    case DataType::kInt8:
      return "int8";
    case DataType::kInt32:
      return "int32";
    case DataType::kInt64:
      return "int64";
    case DataType::kUint8:
      return "uint8";
    case DataType::kFp64:
      return "fp64";
  }
  return "unknown";
}

absl::string_view ReduceOpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "sum";
    case ReduceOp::kProd:
      return "prod";
    case ReduceOp::kMin:
      return "min";
    case ReduceOp::kMax:
      return "max";
    case ReduceOp::kAvg:
      return "avg";
  }
  return "unknown";
}

int ElementBits(DataType type) {
  switch (type) {
    case DataType::kFp4E2M1:
      return 4;
    case DataType::kFp8E4M3:
    case DataType::kFp8E5M2:
    case DataType::kE8M0:
    case DataType::kInt8:
    case DataType::kUint8:
      return 8;
    case DataType::kFp16:
    case DataType::kBf16:
      return 16;
    case DataType::kFp32:
    case DataType::kInt32:
      return 32;
    case DataType::kInt64:
    case DataType::kFp64:
      return 64;
  }
  return 0;
}

absl::StatusOr<size_t> BufferBytes(DataType type, size_t count, absl::string_view what) {
  const int bits = ElementBits(type);
  if (bits == 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: unknown data type code %u", what, static_cast<uint32_t>(type)));
  }
  if (bits == 4) {
    if (count % 2 != 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: fp4_e2m1 packs two elements per byte, so the element count "
                          "must be even, got %u",
                          what, count));
    }
    return count / 2;
  }
  const size_t bytes_per_element = static_cast<size_t>(bits / 8);
  if (count > std::numeric_limits<size_t>::max() / bytes_per_element) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: %u elements of %s overflow the address space", what, count, DataTypeName(type)));
  }
  return count * bytes_per_element;
}

}  // namespace teplug::reference::collective
