// teplug/sdk/device_context.hpp — the host side of IDevice: one opened
// device, with its memory, copies and streams, for tools and tests that run
// ops on a device without its vendor's API.
//
//   std::unique_ptr<teplug::sdk::DeviceContext> ctx;
//   if (OwnedError e = DeviceContext::Open(dev, device, &ctx)) ...;
//   void* p; ctx->Allocate(bytes, 0, &p); ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, p, host, bytes);
#ifndef TEPLUG_SDK_DEVICE_CONTEXT_HPP_
#define TEPLUG_SDK_DEVICE_CONTEXT_HPP_

#include <memory>

#include "teplug/device.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::sdk {

class DeviceContext {
 public:
  // Opens `device` through `dev` (borrowed: it must outlive the context).
  static OwnedError Open(TeplugDeviceV1* dev, const TeplugDevice& device, std::unique_ptr<DeviceContext>* out) {
    TeplugDeviceOpenArgs a = Versioned<TeplugDeviceOpenArgs>();
    a.device = &device;
    TeplugDeviceContext* ctx = nullptr;
    OwnedError e(dev->vtbl->open(dev, &a, &ctx));
    if (!e) out->reset(new DeviceContext(dev, ctx));
    return e;
  }
  // Closes the context if Close() was not called; that close's error, if
  // any, is lost: call Close() to see it.
  ~DeviceContext() {
    if (ctx_ != nullptr) OwnedError(dev_->vtbl->close(dev_, ctx_));
  }
  DeviceContext(const DeviceContext&) = delete;
  DeviceContext& operator=(const DeviceContext&) = delete;

  OwnedError Close() {
    TeplugDeviceContext* c = ctx_;
    ctx_ = nullptr;
    return OwnedError(dev_->vtbl->close(dev_, c));
  }
  // alignment 0: the implementation's default (at least 256).
  OwnedError Allocate(size_t bytes, size_t alignment, void** out) {
    TeplugAllocateArgs a = Versioned<TeplugAllocateArgs>();
    a.context = ctx_;
    a.bytes = bytes;
    a.alignment = alignment;
    return OwnedError(dev_->vtbl->allocate(dev_, &a, out));
  }
  OwnedError Deallocate(void* p) { return OwnedError(dev_->vtbl->deallocate(dev_, ctx_, p)); }
  // kind is a TeplugCopyKind; stream NULL: complete on return.
  OwnedError Copy(int32_t kind, void* dst, const void* src, size_t bytes, TeplugStream stream = nullptr) {
    TeplugCopyArgs c = Versioned<TeplugCopyArgs>();
    c.context = ctx_;
    c.kind = kind;
    c.dst = dst;
    c.src = src;
    c.bytes = bytes;
    c.stream = stream;
    return OwnedError(dev_->vtbl->copy(dev_, &c));
  }
  OwnedError CreateStream(TeplugStream* out) { return OwnedError(dev_->vtbl->stream_create(dev_, ctx_, out)); }
  OwnedError SynchronizeStream(TeplugStream s) { return OwnedError(dev_->vtbl->stream_synchronize(dev_, ctx_, s)); }
  OwnedError DestroyStream(TeplugStream s) { return OwnedError(dev_->vtbl->stream_destroy(dev_, ctx_, s)); }

  TeplugDeviceContext* get() const { return ctx_; }
  TeplugDeviceV1* device() const { return dev_; }

 private:
  DeviceContext(TeplugDeviceV1* dev, TeplugDeviceContext* ctx) : dev_(dev), ctx_(ctx) {}
  TeplugDeviceV1* dev_;
  TeplugDeviceContext* ctx_;
};

}  // namespace teplug::sdk

#endif  // TEPLUG_SDK_DEVICE_CONTEXT_HPP_
