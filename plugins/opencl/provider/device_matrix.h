// A GEMM operand on an OpenCL device as OpenCL calls need it: the cl_mem, the
// element offset of its first element, its leading dimension, its shape and
// the context that owns it, resolved from a TeplugTensor through the memory
// convention (device_address_space.h). Errors name the tensor and the value.
#ifndef TEPLUG_PLUGINS_OPENCL_PROVIDER_DEVICE_MATRIX_H_
#define TEPLUG_PLUGINS_OPENCL_PROVIDER_DEVICE_MATRIX_H_

#include <CL/cl.h>

#include <cstddef>
#include <cstdint>

#include "teplug/types.h"

namespace teplug::opencl::provider {

struct DeviceMatrix {
  cl_mem buffer = nullptr;
  size_t offset = 0;  // elements
  size_t ld = 0;      // elements between rows (for a vector: between elements)
  int64_t rows = 0;
  int64_t cols = 0;
  const void* owner = nullptr;
};

// `t` (named `name` in errors) as a row-major matrix, rank 2 (rank 1 when
// `vector`: one row, ld = its stride) with unit inner stride, of `dtype`, on an
// OpenCL device, in memory of this provider. Throws sdk::Exception:
// INVALID_ARGUMENT for malformed or foreign tensors, UNSUPPORTED for a layout
// or device the GEMM does not serve.
// A tensor without data (as `supports` may be asked) resolves with a NULL
// buffer: RequireData refuses that when the op runs.
DeviceMatrix ResolveMatrix(const TeplugTensor& t, const char* name, int32_t dtype,
                           bool vector = false);

// Throws INVALID_ARGUMENT naming `name` when a non-empty `m` has no data.
void RequireData(const DeviceMatrix& m, const char* name);

}  // namespace teplug::opencl::provider

#endif  // TEPLUG_PLUGINS_OPENCL_PROVIDER_DEVICE_MATRIX_H_
