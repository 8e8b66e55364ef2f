#include "plugins/opencl/provider/device_address_space.h"

#include <sys/mman.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "teplug/sdk/error.hpp"

namespace teplug::opencl::provider {

DeviceAddressSpace& DeviceAddressSpace::Instance() {
  static DeviceAddressSpace* space = new DeviceAddressSpace;  // never destroyed: used at exit
  return *space;
}

void* DeviceAddressSpace::Map(cl_mem buffer, size_t bytes, size_t alignment, const void* owner) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t extra = alignment > page ? alignment : 0;
  if (bytes > SIZE_MAX - extra - page) {
    throw sdk::Exception(TEPLUG_OUT_OF_MEMORY,
                         absl::StrCat("cannot reserve addresses for ", bytes, " bytes"));
  }
  const size_t reserved = (bytes + page - 1) / page * page + extra;
  void* r = mmap(nullptr, reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (r == MAP_FAILED) {
    throw sdk::Exception(TEPLUG_OUT_OF_MEMORY, absl::StrCat("mmap could not reserve ", reserved,
                                                            " bytes of device addresses"));
  }
  const uintptr_t base = reinterpret_cast<uintptr_t>(r);
  const uintptr_t aligned = extra == 0 ? base : (base + alignment - 1) / alignment * alignment;
  clRetainMemObject(buffer);
  std::lock_guard<std::mutex> lock(mu_);
  ranges_[aligned] = Range{r, reserved, bytes, buffer, owner};
  return reinterpret_cast<void*>(aligned);
}

bool DeviceAddressSpace::Unmap(void* address, const void* owner) {
  Range range;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = ranges_.find(reinterpret_cast<uintptr_t>(address));
    if (it == ranges_.end() || it->second.owner != owner) return false;
    range = it->second;
    ranges_.erase(it);
  }
  clReleaseMemObject(range.buffer);
  munmap(range.reservation, range.reserved_bytes);
  return true;
}

bool DeviceAddressSpace::Resolve(const void* address, size_t bytes, ResolvedAddress* out) const {
  const auto a = reinterpret_cast<uintptr_t>(address);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ranges_.upper_bound(a);
  if (it == ranges_.begin()) return false;
  --it;
  const Range& r = it->second;
  const size_t offset = a - it->first;
  if (offset > r.bytes || bytes > r.bytes - offset) return false;
  *out = ResolvedAddress{r.buffer, offset, r.bytes, r.owner};
  return true;
}

}  // namespace teplug::opencl::provider
