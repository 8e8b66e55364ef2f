#include "native/device/testing/fake_cuda_runtime.h"

#include <cstdlib>
#include <cstring>

namespace teplug::native::testing {

FakeCudaRuntime::FakeCudaRuntime(std::vector<CudaDeviceFacts> devices) : devices_(std::move(devices)) {}

FakeCudaRuntime::~FakeCudaRuntime() {
  for (void* p : allocations_) std::free(p);
  for (void* s : streams_) delete static_cast<char*>(s);
}

void FakeCudaRuntime::Fail(const std::string& call, int code) {
  std::lock_guard<std::mutex> lock(mu_);
  failures_[call] = code;
}

int FakeCudaRuntime::Enter(const std::string& call) {
  ++calls_[call];
  auto it = failures_.find(call);
  return it == failures_.end() ? 0 : it->second;
}

int FakeCudaRuntime::GetDeviceCount(int* count) {
  std::lock_guard<std::mutex> lock(mu_);
  if (int e = Enter("GetDeviceCount")) return e;
  *count = static_cast<int>(devices_.size());
  return 0;
}

int FakeCudaRuntime::GetDeviceFacts(int ordinal, CudaDeviceFacts* facts) {
  std::lock_guard<std::mutex> lock(mu_);
  if (int e = Enter("GetDeviceFacts")) return e;
  if (ordinal < 0 || static_cast<size_t>(ordinal) >= devices_.size()) return kCudaErrorInvalidValue;
  *facts = devices_[static_cast<size_t>(ordinal)];
  return 0;
}

int FakeCudaRuntime::SetDevice(int ordinal) {
  std::lock_guard<std::mutex> lock(mu_);
  if (int e = Enter("SetDevice")) return e;
  current_device_ = ordinal;
  return 0;
}

int FakeCudaRuntime::GetDevice(int* ordinal) {
  std::lock_guard<std::mutex> lock(mu_);
  if (int e = Enter("GetDevice")) return e;
  *ordinal = current_device_;
  return 0;
}

void FakeCudaRuntime::set_current_device(int ordinal) {
  std::lock_guard<std::mutex> lock(mu_);
  current_device_ = ordinal;
}

int FakeCudaRuntime::Malloc(void** out, size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  malloc_sizes_.push_back(bytes);
  malloc_devices_.push_back(current_device_);
  if (int e = Enter("Malloc")) return e;
  // cudaMalloc's alignment (256), which the device relies on.
  void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (p == nullptr) return kCudaErrorMemoryAllocation;
  allocations_.insert(p);
  *out = p;
  return 0;
}

int FakeCudaRuntime::Free(void* p) {
  std::lock_guard<std::mutex> lock(mu_);
  if (int e = Enter("Free")) return e;
  if (allocations_.erase(p) == 0) return kCudaErrorInvalidValue;
  std::free(p);
  return 0;
}

int FakeCudaRuntime::CopySync(void* dst, const void* src, size_t bytes, CudaCopyDirection) {
  std::lock_guard<std::mutex> lock(mu_);
  if (int e = Enter("CopySync")) return e;
  std::memmove(dst, src, bytes);
  return 0;
}

int FakeCudaRuntime::CopyAsync(void* dst, const void* src, size_t bytes, CudaCopyDirection, void* stream) {
  std::lock_guard<std::mutex> lock(mu_);
  if (int e = Enter("CopyAsync")) return e;
  if (streams_.count(stream) == 0) return kCudaErrorInvalidValue;
  async_copy_streams_.push_back(stream);
  std::memmove(dst, src, bytes);
  return 0;
}

int FakeCudaRuntime::StreamCreate(void** out) {
  std::lock_guard<std::mutex> lock(mu_);
  if (int e = Enter("StreamCreate")) return e;
  auto* token = new char;
  streams_.insert(token);
  *out = token;
  return 0;
}

int FakeCudaRuntime::StreamSynchronize(void* stream) {
  std::lock_guard<std::mutex> lock(mu_);
  if (int e = Enter("StreamSynchronize")) return e;
  return streams_.count(stream) != 0 ? 0 : kCudaErrorInvalidValue;
}

int FakeCudaRuntime::StreamDestroy(void* stream) {
  std::lock_guard<std::mutex> lock(mu_);
  if (int e = Enter("StreamDestroy")) return e;
  if (streams_.erase(stream) == 0) return kCudaErrorInvalidValue;
  delete static_cast<char*>(stream);
  return 0;
}

std::string FakeCudaRuntime::ErrorName(int code) {
  switch (code) {
    case 0: return "cudaSuccess";
    case kCudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case kCudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case kCudaErrorStubLibrary: return "cudaErrorStubLibrary";
    case kCudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
    case kCudaErrorNoDevice: return "cudaErrorNoDevice";
    default: return "cudaErrorUnknown";
  }
}

std::string FakeCudaRuntime::ErrorText(int code) {
  switch (code) {
    case 0: return "no error";
    case kCudaErrorInvalidValue: return "invalid argument";
    case kCudaErrorMemoryAllocation: return "out of memory";
    case kCudaErrorStubLibrary: return "CUDA driver is a stub library";
    case kCudaErrorInsufficientDriver: return "CUDA driver version is insufficient for CUDA runtime version";
    case kCudaErrorNoDevice: return "no CUDA-capable device is detected";
    default: return "unknown error";
  }
}

size_t FakeCudaRuntime::live_allocations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return allocations_.size();
}

size_t FakeCudaRuntime::live_streams() const {
  std::lock_guard<std::mutex> lock(mu_);
  return streams_.size();
}

int FakeCudaRuntime::calls(const std::string& call) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = calls_.find(call);
  return it == calls_.end() ? 0 : it->second;
}

int FakeCudaRuntime::current_device() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_device_;
}

std::vector<void*> FakeCudaRuntime::async_copy_streams() const {
  std::lock_guard<std::mutex> lock(mu_);
  return async_copy_streams_;
}

std::vector<size_t> FakeCudaRuntime::malloc_sizes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return malloc_sizes_;
}

std::vector<int> FakeCudaRuntime::malloc_devices() const {
  std::lock_guard<std::mutex> lock(mu_);
  return malloc_devices_;
}

}  // namespace teplug::native::testing
