// The opencl:0 device of the conformance test plugins (plain C ABI): an
// IDevice whose memory is host memory behind opaque handles. A handle is the
// address XOR a mask that makes it a non-canonical address, so code that
// reads a handle as a host pointer crashes instead of computing on it; Host()
// turns a handle (or a handle plus an offset inside its allocation) back into
// the address. Included by exactly one source file of a plugin, which
// registers g_opaque_device with kOpaqueDeviceCaps.
#ifndef TEPLUG_TOOLS_TEPLUG_CONFORMANCE_PLUGINS_OPAQUE_DEVICE_H_
#define TEPLUG_TOOLS_TEPLUG_CONFORMANCE_PLUGINS_OPAQUE_DEVICE_H_

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "teplug/teplug.h"
#include "tools/teplug/conformance_plugins/plugin_parts.h"

struct TeplugDeviceContext {
  int open = 1;
};

namespace opaque_device {

using conformance_plugins::AddRef;
using conformance_plugins::Error;
using conformance_plugins::Release;

inline const TeplugIID kDeviceIid = TEPLUG_IID_DEVICE_V1_INIT;
constexpr uintptr_t kHandleMask = uintptr_t{0x5a5a} << 48;

inline void* Handle(void* host) {
  return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(host) ^ kHandleMask);
}
inline void* Host(const void* handle) {
  return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(handle) ^ kHandleMask);
}

// ---- IDevice: opencl:0 only ----

inline const char* UnservedDevice(const TeplugDevice* d) {
  if (d == nullptr) return "a device is required";
  if (d->kind != TEPLUG_DEVICE_OPENCL || d->ordinal != 0) return "only opencl:0 is served";
  return nullptr;
}

inline TeplugBool DeviceSupports(TeplugObject*, int32_t, const void* args, char* reason,
                                 size_t reason_size) {
  const auto* a = static_cast<const TeplugDeviceOpenArgs*>(args);
  return conformance_plugins::AnswerSupports(
      a == nullptr ? "open: args are required" : UnservedDevice(a->device), reason, reason_size);
}

inline TeplugError* Count(TeplugDeviceV1*, size_t* count) {
  *count = 1;
  return nullptr;
}

inline TeplugError* Info(TeplugDeviceV1*, size_t index, TeplugDeviceInfo* info) {
  return conformance_plugins::OneDeviceInfo(index, info, TEPLUG_DEVICE_OPENCL,
                                            "conformance opaque-memory device", false);
}

inline TeplugError* Open(TeplugDeviceV1*, const TeplugDeviceOpenArgs* a,
                         TeplugDeviceContext** out) {
  if (a == nullptr) return Error(TEPLUG_INVALID_ARGUMENT, "open: args are required");
  if (const char* why = UnservedDevice(a->device)) return Error(TEPLUG_UNSUPPORTED, why);
  *out = new TeplugDeviceContext;
  return nullptr;
}

inline TeplugError* Close(TeplugDeviceV1*, TeplugDeviceContext* c) {
  if (c == nullptr) return Error(TEPLUG_INVALID_ARGUMENT, "close: NULL context");
  delete c;
  return nullptr;
}

inline TeplugError* Allocate(TeplugDeviceV1*, const TeplugAllocateArgs* a, void** out) {
  if (a == nullptr || a->context == nullptr)
    return Error(TEPLUG_INVALID_ARGUMENT, "allocate: NULL context");
  if (a->bytes == 0) return Error(TEPLUG_INVALID_ARGUMENT, "allocate: 0 bytes");
  if (a->alignment != 0 && (a->alignment & (a->alignment - 1)) != 0)
    return Error(TEPLUG_INVALID_ARGUMENT, "allocate: alignment is not a power of two");
  void* p = std::malloc(a->bytes);
  if (p == nullptr) return Error(TEPLUG_OUT_OF_MEMORY, "allocate: out of memory");
  *out = Handle(p);
  return nullptr;
}

inline TeplugError* Deallocate(TeplugDeviceV1*, TeplugDeviceContext*, void* p) {
  if (p != nullptr) std::free(Host(p));
  return nullptr;
}

inline TeplugError* Copy(TeplugDeviceV1*, const TeplugCopyArgs* a) {
  if (a == nullptr || a->context == nullptr)
    return Error(TEPLUG_INVALID_ARGUMENT, "copy: NULL context");
  const bool dst_device =
      a->kind == TEPLUG_COPY_HOST_TO_DEVICE || a->kind == TEPLUG_COPY_DEVICE_TO_DEVICE;
  const bool src_device =
      a->kind == TEPLUG_COPY_DEVICE_TO_HOST || a->kind == TEPLUG_COPY_DEVICE_TO_DEVICE;
  if (a->bytes > 0)
    std::memcpy(dst_device ? Host(a->dst) : a->dst, src_device ? Host(a->src) : a->src, a->bytes);
  return nullptr;
}

inline const TeplugDeviceV1Vtbl kDeviceVtbl = {
    {sizeof(TeplugDeviceV1Vtbl), &conformance_plugins::QueryOne<&kDeviceIid>, &AddRef, &Release},
    &DeviceSupports,
    &Count,
    &Info,
    &Open,
    &Close,
    &Allocate,
    &Deallocate,
    &Copy,
    &conformance_plugins::TokenStreamCreate,  // every copy completes before it returns
    &conformance_plugins::TokenStreamSynchronize,
    &conformance_plugins::TokenStreamDestroy};
inline TeplugDeviceV1 g_opaque_device = {&kDeviceVtbl};

inline const TeplugDeviceSupport kOpencl[] = {
    {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_OPENCL, TEPLUG_VENDOR_ANY, 0, 0}};
inline const TeplugDeviceCaps kOpaqueDeviceCaps = {sizeof(TeplugDeviceCaps), kOpencl, 1};

// Whether `t` is an fp32 tensor in opencl:0 memory.
inline bool OnDevice(const TeplugTensor* t) {
  return t != nullptr && t->dtype == TEPLUG_DTYPE_FP32 && t->device != nullptr &&
         UnservedDevice(t->device) == nullptr;
}

}  // namespace opaque_device

#endif  // TEPLUG_TOOLS_TEPLUG_CONFORMANCE_PLUGINS_OPAQUE_DEVICE_H_
