// Test support: opencl:0 opened through the provider's own IDevice, with
// device memory filled from and read back into host bytes, for the kernel
// tests of this package.
#ifndef TEPLUG_PLUGINS_OPENCL_QUANTIZE_OPENCL_TEST_DEVICE_H_
#define TEPLUG_PLUGINS_OPENCL_QUANTIZE_OPENCL_TEST_DEVICE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "plugins/opencl/provider/opencl_device.h"
#include "teplug/sdk/device_context.hpp"

namespace teplug::opencl::quantize {

class OpenClTestDevice {
 public:
  OpenClTestDevice();
  ~OpenClTestDevice();
  OpenClTestDevice(const OpenClTestDevice&) = delete;
  OpenClTestDevice& operator=(const OpenClTestDevice&) = delete;

  // "" when opencl:0 is open, else why not (no device, or the open failed).
  const std::string& unavailable() const { return unavailable_; }
  // The TeplugDevice tensors on opencl:0 point at.
  const TeplugDevice* device() const { return &device_; }
  // Device memory holding `bytes` (at least one byte is allocated), freed
  // with the object.
  void* Upload(const std::vector<uint8_t>& bytes);
  // `bytes` of device memory filled with 0xA5 (so unwritten bytes show).
  void* Allocate(size_t bytes);
  std::vector<uint8_t> Download(const void* p, size_t bytes);
  // The context's cl handles.
  provider::OpenClContextHandles Handles();

 private:
  TeplugDeviceV1* api_ = nullptr;
  TeplugDevice device_{};
  std::unique_ptr<sdk::DeviceContext> ctx_;
  std::vector<void*> allocations_;
  std::string unavailable_;
};

}  // namespace teplug::opencl::quantize

#endif  // TEPLUG_PLUGINS_OPENCL_QUANTIZE_OPENCL_TEST_DEVICE_H_
