// What one opened CUDA device context owns: its allocations (the address the
// caller sees, the runtime's base address and the size) and its streams. The
// device checks every pointer and stream a caller passes against it, so a
// foreign, freed or out-of-range one is refused by name instead of reaching
// the runtime. Plain C++ (no CUDA): tested on any host. Not thread-safe; the
// device serialises access per context.
#ifndef TEPLUG_NATIVE_DEVICE_CONTEXT_RESOURCES_H_
#define TEPLUG_NATIVE_DEVICE_CONTEXT_RESOURCES_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace teplug::native {

class ContextResources {
 public:
  // One allocation: `base` is what the runtime returned (and must be freed),
  // the caller sees an address at or after it.
  struct Allocation {
    void* base = nullptr;
    size_t bytes = 0;
  };

  // Records an allocation of `bytes` seen by the caller at `address`.
  void AddAllocation(void* address, void* base, size_t bytes);
  // Removes the allocation the caller sees at `address` and returns its base;
  // nullptr when `address` is not the start of an allocation of this context.
  void* TakeAllocation(void* address);
  // True when [p, p + bytes) lies inside one allocation (bytes > 0).
  bool IsInside(const void* p, size_t bytes) const;

  void AddStream(void* stream);
  bool HasStream(void* stream) const;
  // Removes the stream; false when this context did not make it.
  bool TakeStream(void* stream);

  // Empties the context: every allocation base and stream, for close to release.
  std::vector<void*> TakeAllBases();
  std::vector<void*> TakeAllStreams();

  size_t allocation_count() const { return allocations_.size(); }
  size_t stream_count() const { return streams_.size(); }

 private:
  std::map<uintptr_t, Allocation> allocations_;  // by the caller's address
  std::set<void*> streams_;
};

}  // namespace teplug::native

#endif  // TEPLUG_NATIVE_DEVICE_CONTEXT_RESOURCES_H_
