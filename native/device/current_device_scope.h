// Makes a GPU the calling thread's current CUDA device for the length of one
// call and gives the caller its own back afterwards. The current device is
// per thread and frameworks allocate and launch on it, so an op that ran on
// cuda:1 must not leave a framework's thread on cuda:1 when it had been on
// cuda:0.
#ifndef TEPLUG_NATIVE_DEVICE_CURRENT_DEVICE_SCOPE_H_
#define TEPLUG_NATIVE_DEVICE_CURRENT_DEVICE_SCOPE_H_

#include "native/device/cuda_runtime_api.h"

namespace teplug::native {

class CurrentDeviceScope {
 public:
  // Sets `ordinal` current (always: cudaSetDevice on the current device costs
  // almost nothing and reports a device that has gone bad); error() is its
  // status. The previous device is restored only when it differed.
  CurrentDeviceScope(CudaRuntimeApi& runtime, int ordinal) : runtime_(runtime) {
    int previous = -1;
    const bool known = runtime.GetDevice(&previous) == kCudaSuccess;
    error_ = runtime.SetDevice(ordinal);
    if (known && error_ == kCudaSuccess && previous != ordinal) previous_ = previous;
  }
  // A failure to restore cannot be reported from a destructor; the next
  // runtime call on the thread reports a device that has gone bad.
  ~CurrentDeviceScope() {
    if (previous_ >= 0) (void)runtime_.SetDevice(previous_);
  }
  CurrentDeviceScope(const CurrentDeviceScope&) = delete;
  CurrentDeviceScope& operator=(const CurrentDeviceScope&) = delete;

  // The cudaSetDevice status (kCudaSuccess or the runtime's error code).
  int error() const { return error_; }

 private:
  CudaRuntimeApi& runtime_;
  int error_ = kCudaSuccess;
  int previous_ = -1;
};

}  // namespace teplug::native

#endif  // TEPLUG_NATIVE_DEVICE_CURRENT_DEVICE_SCOPE_H_
