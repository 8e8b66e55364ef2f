// A CPU device plugin (plain C ABI) built once per lie, each right about
// everything else:
//   LIE_SHORT_COPY  device-to-device copies leave the last byte out
//                   (conformance must fail calls=memory)
//   LIE_ORDINAL     open accepts any cpu ordinal, so a device it does not
//                   serve is opened without a reason (calls=refusals)
#include <cstdlib>
#include <cstring>

#include "teplug/teplug.h"
#include "tools/teplug/conformance_plugins/plugin_parts.h"

struct TeplugDeviceContext {
  int open = 1;
};

namespace {

using conformance_plugins::AddRef;
using conformance_plugins::Error;
using conformance_plugins::Release;

const TeplugIID kDeviceIid = TEPLUG_IID_DEVICE_V1_INIT;

const char* Unserved(const TeplugDeviceOpenArgs* a) {
  if (a == nullptr || a->device == nullptr) return "open: args and device are required";
#ifdef LIE_ORDINAL
  if (a->device->kind != TEPLUG_DEVICE_CPU) return "only cpu:0 is served";
#else
  if (a->device->kind != TEPLUG_DEVICE_CPU || a->device->ordinal != 0)
    return "only cpu:0 is served";
#endif
  return nullptr;
}

TeplugBool Supports(TeplugObject*, int32_t, const void* args, char* reason, size_t reason_size) {
  return conformance_plugins::AnswerSupports(
      Unserved(static_cast<const TeplugDeviceOpenArgs*>(args)), reason, reason_size);
}

TeplugError* Count(TeplugDeviceV1*, size_t* count) {
  *count = 1;
  return nullptr;
}

TeplugError* Info(TeplugDeviceV1*, size_t index, TeplugDeviceInfo* info) {
  return conformance_plugins::OneDeviceInfo(index, info, TEPLUG_DEVICE_CPU, "conformance test cpu",
                                            true);
}

TeplugError* Open(TeplugDeviceV1*, const TeplugDeviceOpenArgs* a, TeplugDeviceContext** out) {
  if (const char* why = Unserved(a)) return Error(TEPLUG_UNSUPPORTED, why);
  *out = new TeplugDeviceContext;
  return nullptr;
}

TeplugError* Close(TeplugDeviceV1*, TeplugDeviceContext* c) {
  if (c == nullptr) return Error(TEPLUG_INVALID_ARGUMENT, "close: NULL context");
  delete c;
  return nullptr;
}

TeplugError* Allocate(TeplugDeviceV1*, const TeplugAllocateArgs* a, void** out) {
  if (a == nullptr || a->context == nullptr)
    return Error(TEPLUG_INVALID_ARGUMENT, "allocate: NULL context");
  if (a->bytes == 0) return Error(TEPLUG_INVALID_ARGUMENT, "allocate: 0 bytes");
  if (a->alignment != 0 && (a->alignment & (a->alignment - 1)) != 0)
    return Error(TEPLUG_INVALID_ARGUMENT, "allocate: alignment is not a power of two");
  *out = std::malloc(a->bytes);
  return *out == nullptr ? Error(TEPLUG_OUT_OF_MEMORY, "allocate: out of memory") : nullptr;
}

TeplugError* Deallocate(TeplugDeviceV1*, TeplugDeviceContext*, void* p) {
  std::free(p);
  return nullptr;
}

TeplugError* Copy(TeplugDeviceV1*, const TeplugCopyArgs* a) {
  if (a == nullptr || a->context == nullptr)
    return Error(TEPLUG_INVALID_ARGUMENT, "copy: NULL context");
  size_t bytes = a->bytes;
#ifdef LIE_SHORT_COPY
  if (a->kind == TEPLUG_COPY_DEVICE_TO_DEVICE && bytes > 0) --bytes;
#endif
  if (bytes > 0) std::memcpy(a->dst, a->src, bytes);
  return nullptr;
}

const TeplugDeviceV1Vtbl kVtbl = {
    {sizeof(TeplugDeviceV1Vtbl), &conformance_plugins::QueryOne<&kDeviceIid>, &AddRef, &Release},
    &Supports,
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
TeplugDeviceV1 g_device = {&kVtbl};

const TeplugDeviceSupport kCpu[] = {
    {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CPU, TEPLUG_VENDOR_ANY, 0, 0}};
const TeplugDeviceCaps kCaps = {sizeof(TeplugDeviceCaps), kCpu, 1};

}  // namespace

extern "C" TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(const TeplugHostApi* host,
                                                                 TeplugPluginInfo* info) {
  return conformance_plugins::RegisterOne(host, info, PLUGIN_PROVIDER_NAME, kDeviceIid,
                                          reinterpret_cast<TeplugObject*>(&g_device), &kCaps,
                                          "cpu");
}
