// How OpenCL memory crosses the ABI. A TeplugTensor's `data` (and every device
// pointer of IDevice) is an address this provider hands out for a cl_mem
// buffer: allocate reserves a range of the process's virtual address space
// (mmap PROT_NONE, so a host dereference faults instead of reading garbage and
// no two allocations, nor any host memory, share an address) and records
// range -> (cl_mem, context). Address arithmetic is ordinary byte arithmetic:
// `base + k` is byte k of the buffer, so element offsets, strides and
// sub-tensor views need nothing beyond the standard TeplugTensor rules, and an
// op resolves a pointer back to (cl_mem, byte offset) with Resolve. The range
// is page-aligned, so the address's alignment class is what the buffer's is.
// A pointer is valid with the provider (and context) that allocated it.
#ifndef TEPLUG_PLUGINS_OPENCL_PROVIDER_DEVICE_ADDRESS_SPACE_H_
#define TEPLUG_PLUGINS_OPENCL_PROVIDER_DEVICE_ADDRESS_SPACE_H_

#include <CL/cl.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

namespace teplug::opencl::provider {

// Where a device address points: the buffer, the byte offset into it, and the
// owner (the IDevice context that allocated it, opaque here).
struct ResolvedAddress {
  cl_mem buffer = nullptr;
  size_t offset = 0;
  size_t buffer_bytes = 0;
  const void* owner = nullptr;
};

// The process-wide table of device addresses (thread-safe).
class DeviceAddressSpace {
 public:
  static DeviceAddressSpace& Instance();

  // Reserves `bytes` (> 0) of address space aligned to `alignment` (a power of
  // two) for `buffer` (retained here until Release) and returns its address.
  // Throws sdk::Exception (TEPLUG_OUT_OF_MEMORY) when no address space is left.
  void* Map(cl_mem buffer, size_t bytes, size_t alignment, const void* owner);

  // Forgets the range starting at `address`, releases its buffer reference and
  // the reservation; false if `address` is not the start of a range of `owner`.
  bool Unmap(void* address, const void* owner);

  // The buffer and offset of [address, address + bytes); false unless the
  // whole range lies inside one mapped range.
  bool Resolve(const void* address, size_t bytes, ResolvedAddress* out) const;

 private:
  struct Range {
    void* reservation;  // what mmap returned (may precede the aligned address)
    size_t reserved_bytes;
    size_t bytes;
    cl_mem buffer;
    const void* owner;
  };
  mutable std::mutex mu_;
  std::map<uintptr_t, Range> ranges_;  // keyed by the address handed out
};

}  // namespace teplug::opencl::provider

#endif  // TEPLUG_PLUGINS_OPENCL_PROVIDER_DEVICE_ADDRESS_SPACE_H_
