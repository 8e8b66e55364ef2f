// IDevice/1 in the core: the open op's field table, the capability
// descriptor, the enumeration `teplug list` shows, and the dispatching
// object. As with communicators, the implementation is chosen when a device
// is opened and the context binds every later call to it: memory and streams
// belong to the implementation that made them.
#include "core/ops/device.h"

#include <cstddef>
#include <cstring>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/boundary/plugin_call.h"
#include "core/kernel/dispatch_objects.h"
#include "core/log/untrusted_text.h"
#include "core/ops/capability_reader.h"
#include "core/ops/table_describe.h"
#include "core/registry/implementation.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/names.hpp"

namespace teplug::core {
namespace {

using Open = TeplugDeviceOpenArgs;
using Caps = TeplugDeviceCaps;
using Object = TeplugDeviceV1;
using Vtbl = TeplugDeviceV1Vtbl;

constexpr Field kOpenFields[] = {
    PerCallField("device", offsetof(Open, device)),
};
constexpr size_t kOpenV1 = TEPLUG_STRUCT_SIZE(Open, device);
constexpr size_t kDeviceV1 = TEPLUG_STRUCT_SIZE(TeplugDevice, arch);
constexpr size_t kInfoMin = TEPLUG_STRUCT_SIZE(TeplugDeviceInfo, struct_size);

// The device to open is the op's device; it is required and names a kind.
absl::StatusOr<OpDescription> DescribeOpen(const InterfaceModule& module, const OpSpec& spec, const void* raw,
                                           const DeviceSpelling& spelling) {
  OpDescription d;
  absl::Status s = DescribeFromTable(module, spec, kOpenV1, raw, spelling, &d);
  if (!s.ok()) return s;
  const TeplugDevice* device = static_cast<const Open*>(raw)->device;
  if (device == nullptr) return absl::InvalidArgumentError("TeplugDeviceOpenArgs.device is NULL");
  if (device->struct_size < kDeviceV1) {
    return absl::InvalidArgumentError(
        absl::StrCat("TeplugDeviceOpenArgs.device.struct_size ", device->struct_size, " < ", kDeviceV1));
  }
  if (device->kind == TEPLUG_DEVICE_ANY) {
    return absl::InvalidArgumentError("TeplugDeviceOpenArgs.device.kind is TEPLUG_DEVICE_ANY; name a device");
  }
  d.device = *device;
  d.device.struct_size = sizeof d.device;
  d.device_kind = spelling.KindSpelling(d.device.kind);
  d.vendor = spelling.VendorSpelling(d.device.vendor_id);
  FinishDescription("", spelling, &d);
  return d;
}

// Nothing beyond the device list (checked by the selector) to check.
std::optional<Refusal> CheckOpen(const Capability&, const OpDescription&) { return std::nullopt; }

// Opening is decided once per context, never per call: no cache key.
bool NoKey(const void*, OpSignature*) { return false; }

constexpr OpSpec kOpenOp{TEPLUG_DEVICE_OP_OPEN, "open", "TeplugDeviceOpenArgs", kOpenFields,
                         &DescribeOpen,         &NoKey, &CheckOpen};
constexpr const OpSpec* kOps[] = {&kOpenOp};

absl::Status Validate(const Caps&) { return absl::OkStatus(); }

Object* ImplObject(const Implementation& impl) { return reinterpret_cast<Object*>(impl.object.get()); }

TeplugError* Error(TeplugCode code, const std::string& message) {
  return teplug_error_create(code, message.c_str());
}

// The devices `impl` serves, through its device_count and device_info.
absl::Status Enumerate(const Implementation& impl, std::vector<ServedDevice>* out) {
  Object* o = ImplObject(impl);
  size_t count = 0;
  if (sdk::OwnedError e{CallPlugin({impl.QualifiedName(), "device_count"},
                                   [&] { return o->vtbl->device_count(o, &count); })}) {
    return absl::Status(absl::StatusCode::kUnavailable, e.message());
  }
  constexpr size_t kMaxDevices = 4096;  // a count past this is a broken implementation, not a machine
  if (count > kMaxDevices) {
    return absl::FailedPreconditionError(
        absl::StrCat(impl.QualifiedName(), " device_count says ", count, " devices (more than ", kMaxDevices, ")"));
  }
  for (size_t i = 0; i < count; ++i) {
    TeplugDeviceInfo info{};
    info.struct_size = sizeof info;
    if (sdk::OwnedError e{CallPlugin({impl.QualifiedName(), "device_info"},
                                     [&] { return o->vtbl->device_info(o, i, &info); })}) {
      return absl::Status(absl::StatusCode::kUnavailable, e.message());
    }
    ServedDevice s;
    s.implementation = impl.QualifiedName();
    s.device.struct_size = sizeof s.device;
    s.device.kind = info.kind;
    s.device.vendor_id = info.vendor_id;
    s.device.ordinal = info.ordinal;
    s.device.arch = info.arch;
    s.name = EscapeUntrustedText(absl::string_view(info.name, strnlen(info.name, sizeof info.name)));
    s.memory_bytes = info.memory_bytes;
    s.host_pointers_usable = info.host_pointers_usable != 0;
    out->push_back(std::move(s));
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------- dispatcher
// The kernel's context handle: which implementation opened the device, and
// that implementation's own context.
struct BoundContext {
  std::shared_ptr<const Implementation> impl;
  TeplugDeviceContext* inner = nullptr;
};

// The handles open now, so that a foreign, stale or closed handle is an
// error naming the call instead of a read of freed memory.
class LiveContexts {
 public:
  void Add(const BoundContext* c) {
    absl::MutexLock l(&mu_);
    live_.insert(c);
  }
  bool Contains(const BoundContext* c) const {
    absl::MutexLock l(&mu_);
    return live_.contains(c);
  }
  bool Remove(const BoundContext* c) {
    absl::MutexLock l(&mu_);
    return live_.erase(c) == 1;
  }

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_set<const BoundContext*> live_ ABSL_GUARDED_BY(mu_);
};
LiveContexts& Live() {
  static auto* live = new LiveContexts;  // never destroyed: contexts may outlive static destruction
  return *live;
}

TeplugError* NotAContext(TeplugDeviceContext* c, const char* call) {
  return Error(TEPLUG_INVALID_ARGUMENT,
               absl::StrCat(call, ": ", c == nullptr ? "context is NULL"
                                                     : "not a context opened by this dispatcher (or closed)"));
}

BoundContext* Bound(TeplugDeviceContext* c, const char* call, TeplugError** err) {
  auto* b = reinterpret_cast<BoundContext*>(c);
  if (b == nullptr || !Live().Contains(b)) {
    *err = NotAContext(c, call);
    return nullptr;
  }
  return b;
}

// The registered IDevice implementations of the current state.
template <class Fn>
TeplugError* ForEachImplementation(Object* self, Fn&& fn) {
  const KernelCore& core = dispatch::Core(self);
  auto guard = core.state().Read();
  for (const auto& impl : *guard->impls[static_cast<size_t>(DeviceModule().index())]) {
    if (TeplugError* e = fn(*impl)) return e;
  }
  return nullptr;
}

TeplugError* DeviceCount(Object* self, size_t* count) {
  if (count == nullptr) return Error(TEPLUG_INVALID_ARGUMENT, "device_count: count is NULL");
  size_t total = 0;
  TeplugError* e = ForEachImplementation(self, [&](const Implementation& impl) -> TeplugError* {
    size_t n = 0;
    Object* o = ImplObject(impl);
    if (TeplugError* err = CallPlugin({impl.QualifiedName(), "device_count"}, [&] { return o->vtbl->device_count(o, &n); })) {
      return err;
    }
    total += n;
    return nullptr;
  });
  if (e == nullptr) *count = total;
  return e;
}

// Index `index` counts through the implementations in registry order
// (provider, then name): stable while the registry is.
TeplugError* DeviceInfo(Object* self, size_t index, TeplugDeviceInfo* info) {
  if (info == nullptr || info->struct_size < kInfoMin) {
    return Error(TEPLUG_INVALID_ARGUMENT, "device_info: info is NULL or its struct_size is 0");
  }
  bool found = false;
  size_t left = index;
  TeplugError* e = ForEachImplementation(self, [&](const Implementation& impl) -> TeplugError* {
    if (found) return nullptr;
    size_t n = 0;
    Object* o = ImplObject(impl);
    if (TeplugError* err = CallPlugin({impl.QualifiedName(), "device_count"}, [&] { return o->vtbl->device_count(o, &n); })) {
      return err;
    }
    if (left >= n) {
      left -= n;
      return nullptr;
    }
    found = true;
    return CallPlugin({impl.QualifiedName(), "device_info"}, [&] { return o->vtbl->device_info(o, left, info); });
  });
  if (e == nullptr && !found) {
    return Error(TEPLUG_INVALID_ARGUMENT, absl::StrCat("device_info: index ", index, " >= device_count"));
  }
  return e;
}

TeplugError* OpenDevice(Object* self, const Open* args, TeplugDeviceContext** out) {
  if (out == nullptr) return Error(TEPLUG_INVALID_ARGUMENT, "open: out is NULL");
  const KernelCore& core = dispatch::Core(self);
  auto guard = core.state().Read();
  absl::StatusOr<Decision> d = core.DecideNow(*guard, DeviceModule(), kOpenOp, args, "");
  if (!d.ok()) return Error(TEPLUG_INVALID_ARGUMENT, std::string(d.status().message()));
  if (d->ranked.empty()) {
    return Error(TEPLUG_UNSUPPORTED,
                 absl::StrCat("teplug: no device provider for ", d->op_summary(), "\n", d->record().Format()));
  }
  core.LogServedOnce(*d);
  // As a dispatched op: UNSUPPORTED, UNAVAILABLE or an exception from the
  // first choice falls back to the next, unless strict.
  for (size_t i = 0; i < d->ranked.size(); ++i) {
    auto bound = std::make_unique<BoundContext>();
    bound->impl = d->Shared(i);
    Object* impl = ImplObject(*bound->impl);
    bool threw = false;
    TeplugError* e = CallPlugin({bound->impl->QualifiedName(), "open"},
                                [&] { return impl->vtbl->open(impl, args, &bound->inner); }, &threw);
    if (e == nullptr) {
      if (bound->inner == nullptr) {
        return Error(TEPLUG_INTERNAL, absl::StrCat(bound->impl->QualifiedName(),
                                                   " returned success from open but wrote no context (*out is NULL)"));
      }
      Live().Add(bound.get());
      *out = reinterpret_cast<TeplugDeviceContext*>(bound.release());
      return nullptr;
    }
    const bool fall_back = (threw || e->code == TEPLUG_UNSUPPORTED || e->code == TEPLUG_UNAVAILABLE) &&
                           !d->strict() && i + 1 < d->ranked.size();
    if (!fall_back) return e;
    core.logger().LogOnce(absl::StrCat("device-open-fallback:", d->op_summary(), ":", bound->impl->QualifiedName()),
                          LogLevel::kWarn,
                          absl::StrCat(bound->impl->QualifiedName(), " could not open ", d->op_summary(), ": ",
                                       e->message != nullptr ? e->message : "", "; trying ",
                                       d->ranked[i + 1]->QualifiedName()));
    e->destroy(e);
  }
  return Error(TEPLUG_INTERNAL, "open: no candidate left");  // unreachable: the last candidate's error returns
}

TeplugError* CloseDevice(Object*, TeplugDeviceContext* context) {
  auto* b = reinterpret_cast<BoundContext*>(context);
  if (b == nullptr || !Live().Remove(b)) return NotAContext(context, "close");
  std::unique_ptr<BoundContext> bound(b);
  Object* impl = ImplObject(*bound->impl);
  return CallPlugin({bound->impl->QualifiedName(), "close"}, [&] { return impl->vtbl->close(impl, bound->inner); });
}

// Calls `method` of the implementation bound to `context` with its own context.
template <class Call>
TeplugError* OnBound(TeplugDeviceContext* context, const char* call, Call&& method) {
  TeplugError* err = nullptr;
  BoundContext* bound = Bound(context, call, &err);
  if (bound == nullptr) return err;
  Object* impl = ImplObject(*bound->impl);
  return CallPlugin({bound->impl->QualifiedName(), call}, [&] { return method(impl, bound->inner); });
}

TeplugError* Allocate(Object*, const TeplugAllocateArgs* args, void** out) {
  if (args == nullptr || args->struct_size < TEPLUG_STRUCT_SIZE(TeplugAllocateArgs, alignment)) {
    return Error(TEPLUG_INVALID_ARGUMENT, "TeplugAllocateArgs is NULL or too small");
  }
  if (out == nullptr) return Error(TEPLUG_INVALID_ARGUMENT, "allocate: out is NULL");
  return OnBound(args->context, "allocate", [&](Object* impl, TeplugDeviceContext* inner) {
    TeplugAllocateArgs a = *args;
    a.struct_size = sizeof a;
    a.context = inner;
    return impl->vtbl->allocate(impl, &a, out);
  });
}

TeplugError* Deallocate(Object*, TeplugDeviceContext* context, void* ptr) {
  return OnBound(context, "deallocate",
                 [&](Object* impl, TeplugDeviceContext* inner) { return impl->vtbl->deallocate(impl, inner, ptr); });
}

TeplugError* Copy(Object*, const TeplugCopyArgs* args) {
  if (args == nullptr || args->struct_size < TEPLUG_STRUCT_SIZE(TeplugCopyArgs, stream)) {
    return Error(TEPLUG_INVALID_ARGUMENT, "TeplugCopyArgs is NULL or too small");
  }
  return OnBound(args->context, "copy", [&](Object* impl, TeplugDeviceContext* inner) {
    TeplugCopyArgs a = *args;
    a.struct_size = sizeof a;
    a.context = inner;
    return impl->vtbl->copy(impl, &a);
  });
}

TeplugError* StreamCreate(Object*, TeplugDeviceContext* context, TeplugStream* out) {
  if (out == nullptr) return Error(TEPLUG_INVALID_ARGUMENT, "stream_create: out is NULL");
  return OnBound(context, "stream_create",
                 [&](Object* impl, TeplugDeviceContext* inner) { return impl->vtbl->stream_create(impl, inner, out); });
}

TeplugError* StreamSynchronize(Object*, TeplugDeviceContext* context, TeplugStream stream) {
  return OnBound(context, "stream_synchronize", [&](Object* impl, TeplugDeviceContext* inner) {
    return impl->vtbl->stream_synchronize(impl, inner, stream);
  });
}

TeplugError* StreamDestroy(Object*, TeplugDeviceContext* context, TeplugStream stream) {
  return OnBound(context, "stream_destroy", [&](Object* impl, TeplugDeviceContext* inner) {
    return impl->vtbl->stream_destroy(impl, inner, stream);
  });
}

const Vtbl kDispatchTable = {dispatch::Base(sizeof(Vtbl)), &dispatch::Supports, &DeviceCount, &DeviceInfo,
                             &OpenDevice, &CloseDevice, &Allocate, &Deallocate, &Copy, &StreamCreate,
                             &StreamSynchronize, &StreamDestroy};

class Device final : public InterfaceModule {
 public:
  const char* name() const override { return "device"; }
  const char* display_name() const override { return "IDevice/1"; }
  const TeplugIID& iid() const override { return sdk::kIidDeviceV1; }
  absl::Span<const OpSpec* const> ops() const override { return kOps; }
  absl::StatusOr<Capability> ReadCapability(const void* raw) const override {
    return ReadCaps<Caps>(*this, "TeplugDeviceCaps", raw, TEPLUG_STRUCT_SIZE(Caps, num_devices), Validate);
  }
  std::string SummarizeCapability(const Capability&) const override { return "memory, copies and streams"; }
  // The descriptor has nothing after its device list (checked here, as
  // CoversDescriptor does for the others).
  absl::Span<const CapsField> CapabilityFieldTable() const override {
    static_assert(sizeof(Caps) == offsetof(Caps, num_devices) + sizeof(size_t),
                  "TeplugDeviceCaps grew a field: list it in a CapsField table");
    return {};
  }
  std::optional<std::string> CheckTable(const TeplugObject* object) const override {
    return CheckFunctionTable("TeplugDeviceV1Vtbl", object, TEPLUG_STRUCT_SIZE(Vtbl, stream_destroy),
                              {{"device_count", offsetof(Vtbl, device_count)},
                               {"device_info", offsetof(Vtbl, device_info)},
                               {"open", offsetof(Vtbl, open)},
                               {"close", offsetof(Vtbl, close)},
                               {"allocate", offsetof(Vtbl, allocate)},
                               {"deallocate", offsetof(Vtbl, deallocate)},
                               {"copy", offsetof(Vtbl, copy)},
                               {"stream_create", offsetof(Vtbl, stream_create)},
                               {"stream_synchronize", offsetof(Vtbl, stream_synchronize)},
                               {"stream_destroy", offsetof(Vtbl, stream_destroy)}});
  }
  TeplugSupportsFn SupportsHook(const TeplugObject* object) const override {
    return reinterpret_cast<const Vtbl*>(object->vtbl)->supports;
  }
  const void* DispatchTable() const override { return &kDispatchTable; }
  absl::Status ListDevices(const Implementation& impl, std::vector<ServedDevice>* out) const override {
    return Enumerate(impl, out);
  }
  absl::StatusOr<std::vector<ExampleParam>> ExampleParams(const OpSpec& op) const override {
    return DeviceExampleParams(*this, op);
  }
  void BuildExample(const OpSpec& op, const ExampleValues& values, ExampleOp* out) const override {
    BuildDeviceExample(op, values, out);
  }
};

}  // namespace

const InterfaceModule& DeviceModule() {
  static const Device kModule;
  return kModule;
}

}  // namespace teplug::core
