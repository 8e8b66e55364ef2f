// A CudaRuntimeApi in host memory for tests without a GPU: "device" memory is
// malloc'd and tracked (so a test sees leaks and double frees), streams are
// tokens, copies are memcpy, and any call can be made to fail with a chosen
// cudaError_t code. Error names and texts are those of the real runtime for
// the codes the tests use.
#ifndef TEPLUG_NATIVE_DEVICE_TESTING_FAKE_CUDA_RUNTIME_H_
#define TEPLUG_NATIVE_DEVICE_TESTING_FAKE_CUDA_RUNTIME_H_

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "native/device/cuda_runtime_api.h"

namespace teplug::native::testing {

// cudaError_t values the tests script.
inline constexpr int kCudaErrorInvalidValue = 1;
inline constexpr int kCudaErrorStubLibrary = 34;
inline constexpr int kCudaErrorInsufficientDriver = 35;
inline constexpr int kCudaErrorNoDevice = 100;

class FakeCudaRuntime final : public CudaRuntimeApi {
 public:
  // `devices`: what cudaGetDeviceCount/cudaGetDeviceProperties report.
  explicit FakeCudaRuntime(std::vector<CudaDeviceFacts> devices = {});
  ~FakeCudaRuntime() override;

  // Scripted failures: the named call ("GetDeviceCount", "GetDeviceFacts",
  // "SetDevice", "GetDevice", "Malloc", "Free", "CopySync", "CopyAsync", "StreamCreate",
  // "StreamSynchronize", "StreamDestroy") returns `code` from now on.
  void Fail(const std::string& call, int code);

  int GetDeviceCount(int* count) override;
  int GetDeviceFacts(int ordinal, CudaDeviceFacts* facts) override;
  int SetDevice(int ordinal) override;
  int GetDevice(int* ordinal) override;
  int Malloc(void** out, size_t bytes) override;
  int Free(void* p) override;
  int CopySync(void* dst, const void* src, size_t bytes, CudaCopyDirection direction) override;
  int CopyAsync(void* dst, const void* src, size_t bytes, CudaCopyDirection direction, void* stream) override;
  int StreamCreate(void** out) override;
  int StreamSynchronize(void* stream) override;
  int StreamDestroy(void* stream) override;
  std::string ErrorName(int code) override;
  std::string ErrorText(int code) override;

  // Observations.
  size_t live_allocations() const;
  size_t live_streams() const;
  int calls(const std::string& call) const;
  int current_device() const;
  // Makes `ordinal` current, as a framework's thread would have it.
  void set_current_device(int ordinal);
  // The stream of every CopyAsync, in order.
  std::vector<void*> async_copy_streams() const;
  // Bytes requested by every Malloc, in order.
  std::vector<size_t> malloc_sizes() const;
  // The current device at every Malloc, in order.
  std::vector<int> malloc_devices() const;

 private:
  // Counts the call and returns its scripted failure, or 0.
  int Enter(const std::string& call);

  mutable std::mutex mu_;
  std::vector<CudaDeviceFacts> devices_;
  std::map<std::string, int> failures_;
  std::map<std::string, int> calls_;
  std::set<void*> allocations_;
  std::set<void*> streams_;
  std::vector<void*> async_copy_streams_;
  std::vector<size_t> malloc_sizes_;
  std::vector<int> malloc_devices_;
  int current_device_ = 0;
};

}  // namespace teplug::native::testing

#endif  // TEPLUG_NATIVE_DEVICE_TESTING_FAKE_CUDA_RUNTIME_H_
