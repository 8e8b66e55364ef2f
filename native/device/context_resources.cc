#include "native/device/context_resources.h"

namespace teplug::native {

void ContextResources::AddAllocation(void* address, void* base, size_t bytes) {
  allocations_[reinterpret_cast<uintptr_t>(address)] = Allocation{base, bytes};
}

void* ContextResources::TakeAllocation(void* address) {
  auto it = allocations_.find(reinterpret_cast<uintptr_t>(address));
  if (it == allocations_.end()) return nullptr;
  void* base = it->second.base;
  allocations_.erase(it);
  return base;
}

bool ContextResources::IsInside(const void* p, size_t bytes) const {
  if (bytes == 0) return false;
  const auto a = reinterpret_cast<uintptr_t>(p);
  auto it = allocations_.upper_bound(a);
  if (it == allocations_.begin()) return false;
  --it;
  const size_t size = it->second.bytes;
  // a >= start; written without a + bytes so that it cannot overflow.
  return bytes <= size && a - it->first <= size - bytes;
}

void ContextResources::AddStream(void* stream) { streams_.insert(stream); }

bool ContextResources::HasStream(void* stream) const { return streams_.count(stream) != 0; }

bool ContextResources::TakeStream(void* stream) { return streams_.erase(stream) != 0; }

std::vector<void*> ContextResources::TakeAllBases() {
  std::vector<void*> bases;
  bases.reserve(allocations_.size());
  for (const auto& [address, allocation] : allocations_) bases.push_back(allocation.base);
  allocations_.clear();
  return bases;
}

std::vector<void*> ContextResources::TakeAllStreams() {
  std::vector<void*> streams(streams_.begin(), streams_.end());
  streams_.clear();
  return streams;
}

}  // namespace teplug::native
