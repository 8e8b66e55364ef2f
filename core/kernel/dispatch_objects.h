// The dispatching objects QueryInterface returns: one C object per
// interface, whose function table is its module's (InterfaceModule::
// DispatchTable), built from the generic thunks below. Each op selects an
// implementation per call (decision cached per signature) and falls back on
// UNSUPPORTED/UNAVAILABLE unless strict.
#ifndef TEPLUG_CORE_KERNEL_DISPATCH_OBJECTS_H_
#define TEPLUG_CORE_KERNEL_DISPATCH_OBJECTS_H_

#include <atomic>
#include <memory>

#include "core/kernel/kernel_core.h"
#include "core/ops/interface_module.h"
#include "teplug/teplug.h"

namespace teplug::core {

// The C object: `vtbl` first (the caller sees a TeplugXxxV1*).
struct DispatchObject {
  const void* vtbl;
  std::atomic<uint32_t> refs;
  const InterfaceModule* module;
  std::shared_ptr<const KernelCore> core;
  // Set on an object prepared for one op (Kernel::Prepare): calls of that
  // op use its decision; the other ops dispatch by key.
  std::unique_ptr<const PreparedOp> prepared;
};

// A new dispatching object for `module` with one reference.
TeplugObject* MakeDispatchObject(std::shared_ptr<const KernelCore> core, const InterfaceModule& module);
// The same, prepared for one op of `module`.
TeplugObject* MakePreparedObject(std::shared_ptr<const KernelCore> core, const InterfaceModule& module,
                                 std::unique_ptr<const PreparedOp> prepared);

namespace dispatch {

inline DispatchObject* Self(const void* p) { return static_cast<DispatchObject*>(const_cast<void*>(p)); }
inline const KernelCore& Core(const void* p) { return *Self(p)->core; }

uint32_t AddRef(TeplugObject* o);
uint32_t Release(TeplugObject* o);
TeplugObject* QueryInterface(TeplugObject* o, const TeplugIID* iid);
// The TeplugObjectVtbl every dispatching object's table starts with.
constexpr TeplugObjectVtbl Base(size_t table_size) { return {table_size, &QueryInterface, &AddRef, &Release}; }

// `supports` on a dispatcher: can any provider serve the op? The reason is
// the decision record when none can. Uses the decision cache.
TeplugBool Supports(TeplugObject* o, int32_t op, const void* args, char* reason, size_t reason_size);

// Workspace of a dispatched op: the largest any ranked candidate needs, so a
// call-time fallback never lacks workspace. `ask(impl, &need)` asks one.
TeplugError* WorkspaceMax(const void* self, const OpSpec& op, const void* args, size_t* bytes,
                          TeplugError* (*ask)(const Implementation& impl, const void* args, int32_t op, size_t* need));

// An op method: `method` is the implementation table's member (e.g.
// &TeplugGemmV1Vtbl::gemm).
template <class Object, class Args, auto kMethod, const OpSpec& kOp>
TeplugError* Op(Object* self, const Args* args) {
  const DispatchObject* d = Self(self);
  auto call = [args](const Implementation& impl) {
    auto* o = reinterpret_cast<Object*>(impl.object.get());
    TeplugError* e = (o->vtbl->*kMethod)(o, args);
    if (ABSL_PREDICT_FALSE(ServedByRecorder::Active()) && e == nullptr) ServedByRecorder::Record(impl);
    return e;
  };
  const PreparedOp* prepared = d->prepared.get();
  if (prepared != nullptr && prepared->op() == kOp.op) {
    return d->core->DispatchPrepared<kOp>(*d->module, *prepared, args, call);
  }
  return d->core->Dispatch<kOp>(*d->module, args, call);
}

// workspace_size(self, args, bytes) of an interface with one sized op.
template <class Object, class Args, auto kMethod, const OpSpec& kOp>
TeplugError* Workspace(Object* self, const Args* args, size_t* bytes) {
  return WorkspaceMax(self, kOp, args, bytes, [](const Implementation& impl, const void* a, int32_t, size_t* need) {
    auto* o = reinterpret_cast<Object*>(impl.object.get());
    return (o->vtbl->*kMethod)(o, static_cast<const Args*>(a), need);
  });
}

// workspace_size(self, op, args, bytes) of an interface with several ops.
template <class Object, auto kMethod>
TeplugError* WorkspaceOfOp(Object* self, int32_t op, const void* args, size_t* bytes) {
  const OpSpec* spec = Self(self)->module->FindOp(op);
  if (spec == nullptr) {
    return teplug_error_create(TEPLUG_INVALID_ARGUMENT, "workspace_size: op is not an op of this interface");
  }
  return WorkspaceMax(self, *spec, args, bytes, [](const Implementation& impl, const void* a, int32_t o, size_t* need) {
    auto* obj = reinterpret_cast<Object*>(impl.object.get());
    return (obj->vtbl->*kMethod)(obj, o, a, need);
  });
}

}  // namespace dispatch
}  // namespace teplug::core

#endif  // TEPLUG_CORE_KERNEL_DISPATCH_OBJECTS_H_
