#include "native/device/cuda_runtime_real.h"

#include <cuda_runtime.h>

namespace teplug::native {
namespace {

cudaMemcpyKind KindOf(CudaCopyDirection direction) {
  switch (direction) {
    case CudaCopyDirection::kHostToDevice:
      return cudaMemcpyHostToDevice;
    case CudaCopyDirection::kDeviceToHost:
      return cudaMemcpyDeviceToHost;
    case CudaCopyDirection::kDeviceToDevice:
      return cudaMemcpyDeviceToDevice;
  }
  return cudaMemcpyDefault;
}

class RealRuntime final : public CudaRuntimeApi {
 public:
  int GetDeviceCount(int* count) override { return cudaGetDeviceCount(count); }

  int GetDeviceFacts(int ordinal, CudaDeviceFacts* facts) override {
    cudaDeviceProp prop{};
    const cudaError_t e = cudaGetDeviceProperties(&prop, ordinal);
    if (e != cudaSuccess) return e;
    facts->name = prop.name;
    facts->major = prop.major;
    facts->minor = prop.minor;
    facts->total_memory = prop.totalGlobalMem;
    return cudaSuccess;
  }

  int SetDevice(int ordinal) override { return cudaSetDevice(ordinal); }
  int GetDevice(int* ordinal) override { return cudaGetDevice(ordinal); }
  int Malloc(void** out, size_t bytes) override { return cudaMalloc(out, bytes); }
  int Free(void* p) override { return cudaFree(p); }

  int CopySync(void* dst, const void* src, size_t bytes, CudaCopyDirection direction) override {
    const cudaError_t e = cudaMemcpy(dst, src, bytes, KindOf(direction));
    if (e != cudaSuccess) return e;
    // cudaMemcpy may return before a host-to-device or device-to-device copy
    // has landed; the legacy default stream it used orders it before this.
    return direction == CudaCopyDirection::kDeviceToHost ? cudaSuccess : cudaStreamSynchronize(nullptr);
  }

  int CopyAsync(void* dst, const void* src, size_t bytes, CudaCopyDirection direction,
                void* stream) override {
    return cudaMemcpyAsync(dst, src, bytes, KindOf(direction), static_cast<cudaStream_t>(stream));
  }

  int StreamCreate(void** out) override {
    cudaStream_t s = nullptr;
    const cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    *out = s;
    return e;
  }
  int StreamSynchronize(void* stream) override { return cudaStreamSynchronize(static_cast<cudaStream_t>(stream)); }
  int StreamDestroy(void* stream) override { return cudaStreamDestroy(static_cast<cudaStream_t>(stream)); }

  std::string ErrorName(int code) override { return cudaGetErrorName(static_cast<cudaError_t>(code)); }
  std::string ErrorText(int code) override { return cudaGetErrorString(static_cast<cudaError_t>(code)); }
};

}  // namespace

CudaRuntimeApi& RealCudaRuntime() {
  // An object, not a leaked pointer: the plugin's copy goes with dlclose,
  // after the kernel has released every device object that refers to it.
  static RealRuntime runtime;
  return runtime;
}

}  // namespace teplug::native
