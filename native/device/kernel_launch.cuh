// The one place native's kernels are launched: Launch(kernel, grid, block,
// stream, args...) is kernel<<<grid, block, 0, stream>>>(args...) followed by
// the launch's error. cudaGetLastError reports the last error of ANY runtime
// call on the thread, not only the launch: a cudaErrorNotReady left by a
// stream query, or an out-of-memory another call already returned, would be
// reported as this launch's failure although the kernel was enqueued. So the
// record is cleared first (every runtime call also returns its own error, so
// nothing is lost); a sticky error of the context still comes back.
//
// Compiled with TEPLUG_HOST_GRID defined, by a plain C++ compiler (the BUILD
// macro host_grid_library), the same kernels run on the host instead:
// testing/host_grid.h stands in for the CUDA runtime and provides Launch.
// That is how the tests without a GPU run them.
#ifndef TEPLUG_NATIVE_DEVICE_KERNEL_LAUNCH_CUH_
#define TEPLUG_NATIVE_DEVICE_KERNEL_LAUNCH_CUH_

#ifdef TEPLUG_HOST_GRID
#include "native/device/testing/host_grid.h"
// A vector access's address must be aligned to its size on a GPU; the host
// grid checks it, where x86 would quietly allow it.
#define TEPLUG_REQUIRE_ALIGNED(p, bytes) \
  ::teplug::native::host_grid::RequireAligned((p), (bytes), __FILE__, __LINE__)
#else
#define TEPLUG_REQUIRE_ALIGNED(p, bytes) ((void)0)
#include <cuda_runtime.h>

namespace teplug::native {

template <class... Params, class... Args>
cudaError_t Launch(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream,
                   Args... args) {
  (void)cudaGetLastError();
  // clang-format off (it would split CUDA's >>> into > > >)
  kernel<<<grid, block, 0, stream>>>(args...);
  // clang-format on
  return cudaGetLastError();
}

}  // namespace teplug::native
#endif

#endif  // TEPLUG_NATIVE_DEVICE_KERNEL_LAUNCH_CUH_
