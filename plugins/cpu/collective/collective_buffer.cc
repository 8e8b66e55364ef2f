#include "plugins/cpu/collective/collective_buffer.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "plugins/cpu/collective/gloo_communicator.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::cpu::collective {

std::string BufferName::Text() const {
  return absl::StrCat("ICollective ", op, ": TeplugCollectiveArgs.", field);
}

CollectiveBuffer ReadCollectiveBuffer(const TeplugTensor* tensor, const BufferName& buffer) {
  if (tensor == nullptr) throw sdk::InvalidArgument(buffer.Text() + " is NULL");
  TeplugTensor t;
  if (!sdk::ReadVersioned(tensor, &t, TEPLUG_STRUCT_SIZE(TeplugTensor, quant))) {
    throw sdk::InvalidArgument(buffer.Text() + ".struct_size is too small");
  }
  if (t.device != nullptr && t.device->kind != TEPLUG_DEVICE_CPU) {
    throw sdk::Unsupported(
        absl::StrFormat("%s.device: kind %d; the Gloo collectives read host (cpu) memory only",
                        buffer.Text(), t.device->kind));
  }
  if (!IsServedDType(t.dtype)) {
    throw sdk::Unsupported(
        absl::StrFormat("%s: dtype %s is not served (fp32, fp16, bf16, int8, int32, int64, uint8)",
                        buffer.Text(), sdk::DTypeName(t.dtype)));
  }
  if (t.quant != nullptr) throw sdk::Unsupported(buffer.Text() + ": quantization metadata is not served");
  if (t.rank < 0 || t.rank > TEPLUG_MAX_RANK) {
    throw sdk::InvalidArgument(
        absl::StrFormat("%s.rank %d is not in 0..%d", buffer.Text(), t.rank, TEPLUG_MAX_RANK));
  }
  size_t count = 1;
  bool any_stride = false, all_stride = true;
  for (int d = 0; d < t.rank; ++d) {
    if (t.shape[d] < 0) {
      throw sdk::InvalidArgument(absl::StrFormat("%s.shape[%d] is %d", buffer.Text(), d, t.shape[d]));
    }
    count *= static_cast<size_t>(t.shape[d]);
    any_stride |= t.strides[d] != 0;
    all_stride &= t.strides[d] != 0;
  }
  if (any_stride) {
    if (!all_stride) {
      throw sdk::InvalidArgument(buffer.Text() + ": strides mix zero and non-zero entries");
    }
    int64_t expected = 1;
    for (int d = t.rank - 1; d >= 0; --d) {
      if (t.shape[d] > 1 && t.strides[d] != expected) {
        throw sdk::Unsupported(absl::StrFormat(
            "%s.strides[%d] is %d, not %d: collective buffers must be row-major contiguous", buffer.Text(),
            d, t.strides[d], expected));
      }
      expected *= t.shape[d];
    }
  }
  if (count > 0 && t.data == nullptr) {
    throw sdk::InvalidArgument(absl::StrFormat("%s.data is NULL for %d elements", buffer.Text(), count));
  }
  return CollectiveBuffer{t.data, t.dtype, count};
}

}  // namespace teplug::cpu::collective
