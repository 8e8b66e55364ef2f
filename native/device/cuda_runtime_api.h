// The seam between the native IDevice and the CUDA runtime: the few runtime
// calls the device needs, as a C++ interface with no CUDA types in it, so the
// device's logic (argument checks, allocation tracking, error reporting) is
// tested on a host without a GPU against a fake (testing/fake_cuda_runtime.h),
// and the real runtime (cuda_runtime_real.h) is one thin file of cudart calls.
//
// Every call returns a cudaError_t value as an int: 0 is success. ErrorName and
// ErrorText turn a nonzero code into the runtime's own words.
#ifndef TEPLUG_NATIVE_DEVICE_CUDA_RUNTIME_API_H_
#define TEPLUG_NATIVE_DEVICE_CUDA_RUNTIME_API_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace teplug::native {

// cudaSuccess and cudaErrorMemoryAllocation, the two codes the device's logic
// treats specially (the values are fixed by the CUDA runtime API).
inline constexpr int kCudaSuccess = 0;
inline constexpr int kCudaErrorMemoryAllocation = 2;

// What the device reports of one GPU: the fields of cudaDeviceProp it uses.
struct CudaDeviceFacts {
  std::string name;               // cudaDeviceProp::name
  int major = 0;                  // compute capability
  int minor = 0;
  uint64_t total_memory = 0;      // cudaDeviceProp::totalGlobalMem, bytes
};

// Which way a copy goes, as the runtime's cudaMemcpyKind distinguishes them.
enum class CudaCopyDirection { kHostToDevice, kDeviceToHost, kDeviceToDevice };

class CudaRuntimeApi {
 public:
  virtual ~CudaRuntimeApi() = default;
  virtual int GetDeviceCount(int* count) = 0;
  virtual int GetDeviceFacts(int ordinal, CudaDeviceFacts* facts) = 0;
  // Makes `ordinal` the calling thread's current device (cudaSetDevice).
  virtual int SetDevice(int ordinal) = 0;
  // The calling thread's current device (cudaGetDevice).
  virtual int GetDevice(int* ordinal) = 0;
  virtual int Malloc(void** out, size_t bytes) = 0;
  virtual int Free(void* p) = 0;
  // Returns when the copy has completed (also for host-to-device and
  // device-to-device copies, which cudaMemcpy alone may leave in flight).
  virtual int CopySync(void* dst, const void* src, size_t bytes, CudaCopyDirection direction) = 0;
  // Orders the copy on `stream` (a cudaStream_t) and returns.
  virtual int CopyAsync(void* dst, const void* src, size_t bytes, CudaCopyDirection direction,
                        void* stream) = 0;
  virtual int StreamCreate(void** out) = 0;
  virtual int StreamSynchronize(void* stream) = 0;
  virtual int StreamDestroy(void* stream) = 0;
  // cudaGetErrorName / cudaGetErrorString of `code`.
  virtual std::string ErrorName(int code) = 0;
  virtual std::string ErrorText(int code) = 0;
};

}  // namespace teplug::native

#endif  // TEPLUG_NATIVE_DEVICE_CUDA_RUNTIME_API_H_
