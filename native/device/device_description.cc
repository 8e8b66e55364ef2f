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

CudaArchProbe ProbeCudaArchs(CudaRuntimeApi& runtime) {
  CudaArchProbe probe;
  int count = 0;
  const int e = runtime.GetDeviceCount(&count);
  if (e != kCudaSuccess) {
    probe.missing_reason = "no CUDA device: " + CudaCallFailure(runtime, "cudaGetDeviceCount", e);
    return probe;
  }
  if (count <= 0) {
    probe.missing_reason = "no CUDA device: cudaGetDeviceCount reported 0 devices";
    return probe;
  }
  for (int i = 0; i < count; ++i) {
    CudaDeviceFacts facts;
    const int f = runtime.GetDeviceFacts(i, &facts);
    if (f != kCudaSuccess) {
      probe.archs.clear();
      probe.missing_reason =
          "no CUDA device: " + CudaCallFailure(runtime, absl::StrCat("cudaGetDeviceProperties(", i, ")"), f);
      return probe;
    }
    probe.archs.push_back(ArchOfComputeCapability(facts.major, facts.minor));
  }
  return probe;
}

}  // namespace teplug::native
