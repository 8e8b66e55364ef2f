#include "plugins/opencl/quantize/opencl_test_device.h"

#include <stdexcept>

#include "plugins/opencl/provider/device_address_space.h"
#include "plugins/opencl/provider/device_table.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::opencl::quantize {

OpenClTestDevice::OpenClTestDevice() {
  api_ = sdk::MakeDevice(provider::NewOpenClDevice());
  if (provider::ClDevices().empty()) {
    unavailable_ = "the OpenCL ICD loader reports no device";
    return;
  }
  device_ = sdk::Versioned<TeplugDevice>();
  device_.kind = TEPLUG_DEVICE_OPENCL;
  sdk::OwnedError e = sdk::DeviceContext::Open(api_, device_, &ctx_);
  if (e) unavailable_ = "opening opencl:0 failed: " + std::string(e.message());
}

OpenClTestDevice::~OpenClTestDevice() {
  if (ctx_ != nullptr) {
    for (void* p : allocations_) ctx_->Deallocate(p);
    ctx_->Close();
  }
  ctx_.reset();
  api_->vtbl->base.release(reinterpret_cast<TeplugObject*>(api_));
}

void* OpenClTestDevice::Allocate(size_t bytes) {
  void* p = nullptr;
  if (sdk::OwnedError e = ctx_->Allocate(bytes == 0 ? 1 : bytes, 0, &p))
    throw std::runtime_error("allocate: " + std::string(e.message()));
  allocations_.push_back(p);
  if (bytes > 0) {
    const std::vector<uint8_t> fill(bytes, 0xA5);
    if (sdk::OwnedError e = ctx_->Copy(TEPLUG_COPY_HOST_TO_DEVICE, p, fill.data(), bytes))
      throw std::runtime_error("copy: " + std::string(e.message()));
  }
  return p;
}

void* OpenClTestDevice::Upload(const std::vector<uint8_t>& bytes) {
  void* p = Allocate(bytes.size());
  if (!bytes.empty()) {
    if (sdk::OwnedError e = ctx_->Copy(TEPLUG_COPY_HOST_TO_DEVICE, p, bytes.data(), bytes.size()))
      throw std::runtime_error("copy: " + std::string(e.message()));
  }
  return p;
}

std::vector<uint8_t> OpenClTestDevice::Download(const void* p, size_t bytes) {
  std::vector<uint8_t> out(bytes);
  if (bytes == 0) return out;
  if (sdk::OwnedError e =
          ctx_->Copy(TEPLUG_COPY_DEVICE_TO_HOST, out.data(), const_cast<void*>(p), bytes))
    throw std::runtime_error("copy: " + std::string(e.message()));
  return out;
}

provider::OpenClContextHandles OpenClTestDevice::Handles() {
  void* p = Allocate(4);
  provider::ResolvedAddress r;
  if (!provider::DeviceAddressSpace::Instance().Resolve(p, 4, &r))
    throw std::runtime_error("an allocation did not resolve");
  return provider::HandlesOfOwner(r.owner);
}

}  // namespace teplug::opencl::quantize
