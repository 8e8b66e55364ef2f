// A contiguous tensor on an OpenCL device (a quantizer operand, a GEMM
// operand's scales) as kernels take it: the cl_mem and the byte offset of
// element 0, resolved from a TeplugTensor through the memory convention
// (device_address_space.h). Only contiguous tensors (all-zero strides, or the
// strides of the contiguous layout) resolve; anything else is refused with the
// tensor's name and strides.
#ifndef TEPLUG_PLUGINS_OPENCL_PROVIDER_DEVICE_TENSOR_H_
#define TEPLUG_PLUGINS_OPENCL_PROVIDER_DEVICE_TENSOR_H_

#include <CL/cl.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "teplug/types.h"

namespace teplug::opencl::provider {

struct DeviceTensor {
  cl_mem buffer = nullptr;  // NULL when the tensor has no data (a `supports` query)
  size_t offset = 0;        // bytes
  int64_t elements = 0;
  const void* owner = nullptr;  // the IDevice context that allocated it
};

// `t` (named `name`), whose dtype the caller checked, with `element_bits` bits
// per element. Throws sdk::Exception: UNSUPPORTED when it is not on an OpenCL
// device or not contiguous; INVALID_ARGUMENT for a negative extent, or data
// that is not this provider's device memory, or not aligned to its element.
DeviceTensor ResolveDeviceTensor(const TeplugTensor& t, const std::string& name, int element_bits);

// Throws INVALID_ARGUMENT naming `name` unless `t` has `shape` (rank and
// extents); `why` says what needs that shape.
void RequireShape(const TeplugTensor& t, const std::string& name, const std::vector<int64_t>& shape,
                  const std::string& why);

// "[a, b, ...]".
std::string ShapeText(const TeplugTensor& t);

}  // namespace teplug::opencl::provider

#endif  // TEPLUG_PLUGINS_OPENCL_PROVIDER_DEVICE_TENSOR_H_
