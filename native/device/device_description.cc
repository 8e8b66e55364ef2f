#include "native/device/device_description.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace teplug::native {

int32_t ArchOfComputeCapability(int major, int minor) { return major * 10 + minor; }

void DescribeCudaDevice(const CudaDeviceFacts& facts, int ordinal, TeplugDeviceInfo* info) {
  info->kind = TEPLUG_DEVICE_CUDA;
  info->vendor_id = TEPLUG_VENDOR_NVIDIA;
  info->ordinal = ordinal;
  info->arch = ArchOfComputeCapability(facts.major, facts.minor);
  const size_t n = std::min(facts.name.size(), sizeof info->name - 1);
  std::memcpy(info->name, facts.name.data(), n);
  info->name[n] = '\0';
  info->memory_bytes = facts.total_memory;
  info->host_pointers_usable = 0;
  info->reserved0 = 0;
}

std::string CudaCallFailure(CudaRuntimeApi& runtime, const std::string& call, int code) {
  return absl::StrCat(call, " returned ", runtime.ErrorName(code), " (", runtime.ErrorText(code), ")");
}

}  // namespace teplug::native
