#include "plugins/opencl/provider/device_matrix.h"

#include "absl/strings/str_cat.h"
#include "plugins/opencl/provider/device_address_space.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/names.hpp"

namespace teplug::opencl::provider {
namespace {

size_t ElementBytes(int32_t dtype) {
  switch (dtype) {
    case TEPLUG_DTYPE_FP16:
    case TEPLUG_DTYPE_BF16: return 2;
    case TEPLUG_DTYPE_FP8_E4M3:
    case TEPLUG_DTYPE_FP8_E5M2: return 1;
    default: return 4;
  }
}

}  // namespace

DeviceMatrix ResolveMatrix(const TeplugTensor& t, const char* name, int32_t dtype, bool vector) {
  if (t.device == nullptr || t.device->kind != TEPLUG_DEVICE_OPENCL) {
    throw sdk::Unsupported(
        absl::StrCat("TeplugGemmArgs.", name, " is not on an OpenCL device (kind ",
                     t.device == nullptr ? TEPLUG_DEVICE_CPU : t.device->kind, ")"));
  }
  if (t.quant != nullptr)
    throw sdk::Unsupported(absl::StrCat("TeplugGemmArgs.", name, " is quantized"));
  if (t.dtype != dtype) {
    throw sdk::Unsupported(absl::StrCat("TeplugGemmArgs.", name, " is ", sdk::DTypeName(t.dtype),
                                        ", expected ", sdk::DTypeName(dtype), " (D's dtype)"));
  }
  const int32_t rank = vector ? 1 : 2;
  if (t.rank != rank) {
    throw sdk::InvalidArgument(
        absl::StrCat("TeplugGemmArgs.", name, " has rank ", t.rank, ", expected ", rank));
  }
  DeviceMatrix m;
  m.rows = vector ? 1 : t.shape[0];
  m.cols = t.shape[rank - 1];
  if (m.rows < 0 || m.cols < 0) {
    throw sdk::InvalidArgument(absl::StrCat("TeplugGemmArgs.", name, " has a negative extent"));
  }
  const bool contiguous = t.strides[0] == 0 && (vector || t.strides[1] == 0);
  if (vector) {
    m.ld = contiguous ? 1 : static_cast<size_t>(t.strides[0]);
    if (!contiguous && t.strides[0] < 1) {
      throw sdk::Unsupported(
          absl::StrCat("TeplugGemmArgs.", name, " stride ", t.strides[0], " is not positive"));
    }
  } else if (contiguous) {
    m.ld = static_cast<size_t>(m.cols);
  } else {
    if (t.strides[0] == 0 || t.strides[1] == 0) {
      throw sdk::InvalidArgument(
          absl::StrCat("TeplugGemmArgs.", name, " mixes zero and non-zero strides"));
    }
    if (t.strides[1] != 1 || t.strides[0] < m.cols) {
      throw sdk::Unsupported(
          absl::StrCat("TeplugGemmArgs.", name, " strides [", t.strides[0], ", ", t.strides[1],
                       "]: the opencl GEMM needs rows of unit stride at least ", m.cols, " apart"));
    }
    m.ld = static_cast<size_t>(t.strides[0]);
  }
  if (m.rows == 0 || m.cols == 0) return m;
  if (t.data == nullptr)
    return m;  // `supports` may ask without data; RequireData refuses it in a call
  const size_t es = ElementBytes(dtype);
  const size_t span =
      vector ? ((static_cast<size_t>(m.cols) - 1) * m.ld + 1) * es
             : ((static_cast<size_t>(m.rows) - 1) * m.ld + static_cast<size_t>(m.cols)) * es;
  ResolvedAddress r;
  if (!DeviceAddressSpace::Instance().Resolve(t.data, span, &r)) {
    throw sdk::InvalidArgument(
        absl::StrCat("TeplugGemmArgs.", name, ": [data, +", span,
                     " bytes) is not inside memory allocated by the opencl IDevice"));
  }
  if (r.offset % es != 0) {
    throw sdk::InvalidArgument(
        absl::StrCat("TeplugGemmArgs.", name, ".data is ", r.offset,
                     " bytes into its buffer, not a multiple of the element size ", es));
  }
  m.buffer = r.buffer;
  m.offset = r.offset / es;
  m.owner = r.owner;
  return m;
}

void RequireData(const DeviceMatrix& m, const char* name) {
  if (m.buffer == nullptr && m.rows != 0 && m.cols != 0) {
    throw sdk::InvalidArgument(absl::StrCat("TeplugGemmArgs.", name, ".data is NULL"));
  }
}

}  // namespace teplug::opencl::provider
