#include "core/kernel/dispatch_objects.h"

#include <atomic>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/boundary/plugin_call.h"
#include "core/select/capability_check.h"
#include "teplug/sdk/iids.hpp"

namespace teplug::core {
namespace {

// The C object: `vtbl` first (the caller sees a TeplugXxxV1*).
struct DispatchObject {
  const void* vtbl;
  std::atomic<uint32_t> refs;
  InterfaceKind kind;
  std::shared_ptr<const KernelCore> core;
};

DispatchObject* Self(const void* p) { return static_cast<DispatchObject*>(const_cast<void*>(p)); }
const KernelCore& Core(const void* p) { return *Self(p)->core; }

uint32_t AddRef(TeplugObject* o) { return Self(o)->refs.fetch_add(1, std::memory_order_relaxed) + 1; }
uint32_t Release(TeplugObject* o) {
  DispatchObject* d = Self(o);
  uint32_t left = d->refs.fetch_sub(1, std::memory_order_acq_rel) - 1;
  if (left == 0) delete d;
  return left;
}
TeplugObject* QueryInterface(TeplugObject* o, const TeplugIID* iid) {
  if (iid == nullptr) return nullptr;
  if (sdk::SameIid(*iid, IidOfKind(Self(o)->kind)) || sdk::SameIid(*iid, sdk::kIidObject)) {
    AddRef(o);
    return o;
  }
  return nullptr;
}
constexpr TeplugObjectVtbl Base(size_t size) { return {size, &QueryInterface, &AddRef, &Release}; }

// `supports` on a dispatcher: can any provider serve it? The reason is the
// decision record's verdicts when none can. Uses the decision cache.
TeplugBool Supports(TeplugObject* o, int32_t op, const void* args, char* reason, size_t reason_size) {
  std::string why;
  TeplugError* err = Core(o).WithDecision(Self(o)->kind, op, args, [&](const Decision& d) -> TeplugError* {
    if (!d.served()) why = absl::StrCat("no provider can serve it:\n", d.record().Format());
    return nullptr;
  });
  if (err != nullptr) {  // host-made: malformed args
    why = err->message;
    err->destroy(err);
  }
  if (why.empty()) return 1;
  if (reason != nullptr && reason_size > 0) {
    size_t n = std::min(why.size(), reason_size - 1);
    std::memcpy(reason, why.data(), n);
    reason[n] = '\0';
  }
  return 0;
}

// Workspace of a dispatched op: the largest any ranked candidate needs, so a
// call-time fallback never lacks workspace. Uses the decision cache. An
// error a candidate returns goes back to the caller (host-made, through
// CallPlugin). A candidate whose workspace_size throws is treated as failed,
// as at call time: skipped with a warning (once per signature and
// implementation) unless the decision is strict or no candidate answered.
template <class AskFn>
TeplugError* WorkspaceMax(const void* self, int32_t op, const void* args, size_t* bytes, AskFn ask) {
  if (bytes == nullptr) return teplug_error_create(TEPLUG_INVALID_ARGUMENT, "workspace_size: bytes is NULL");
  const KernelCore& core = Core(self);
  return core.WithDecision(Self(self)->kind, op, args, [&](const Decision& d) -> TeplugError* {
    *bytes = 0;
    TeplugError* thrown = nullptr;
    bool answered = false;
    for (const auto& impl : d.ranked) {
      size_t need = 0;
      bool threw = false;
      TeplugError* e = CallPlugin({impl->QualifiedName(), "workspace_size"}, [&] { return ask(*impl, &need); },
                                  &threw);
      if (e == nullptr) {
        answered = true;
        *bytes = std::max(*bytes, need);
        continue;
      }
      if (!threw || d.strict()) {
        if (thrown != nullptr) thrown->destroy(thrown);
        return e;
      }
      core.logger().LogOnce(absl::StrCat("exception:", d.op_summary(), ":", impl->QualifiedName()), LogLevel::kWarn,
                            absl::StrCat(e->message, " (serving ", d.op_summary(), "); its workspace is not counted"));
      if (thrown != nullptr) thrown->destroy(thrown);
      thrown = e;
    }
    if (thrown != nullptr && !answered) return thrown;
    if (thrown != nullptr) thrown->destroy(thrown);
    return nullptr;
  });
}

// ------------------------------------------------------------------- gemm
TeplugError* GemmWorkspace(TeplugGemmV1* self, const TeplugGemmArgs* args, size_t* bytes) {
  return WorkspaceMax(self, TEPLUG_OP_GEMM, args, bytes, [&](const Implementation& impl, size_t* need) {
    auto* g = reinterpret_cast<TeplugGemmV1*>(impl.object.get());
    return g->vtbl->workspace_size(g, args, need);
  });
}
TeplugError* Gemm(TeplugGemmV1* self, const TeplugGemmArgs* args) {
  return Core(self).Dispatch(InterfaceKind::kGemm, TEPLUG_OP_GEMM, "gemm", args, [&](const Implementation& impl) {
    auto* g = reinterpret_cast<TeplugGemmV1*>(impl.object.get());
    return g->vtbl->gemm(g, args);
  });
}
const TeplugGemmV1Vtbl kGemmVtbl = {Base(sizeof(TeplugGemmV1Vtbl)), &Supports, &GemmWorkspace, &Gemm};

// -------------------------------------------------------------- attention
TeplugError* AttentionWorkspace(TeplugAttentionV1* self, int32_t op, const void* args, size_t* bytes) {
  return WorkspaceMax(self, op, args, bytes, [&](const Implementation& impl, size_t* need) {
    auto* a = reinterpret_cast<TeplugAttentionV1*>(impl.object.get());
    return a->vtbl->workspace_size(a, op, args, need);
  });
}
TeplugError* Forward(TeplugAttentionV1* self, const TeplugAttentionFwdArgs* args) {
  return Core(self).Dispatch(InterfaceKind::kAttention, TEPLUG_OP_ATTENTION_FORWARD, "forward", args,
                             [&](const Implementation& impl) {
                               auto* a = reinterpret_cast<TeplugAttentionV1*>(impl.object.get());
                               return a->vtbl->forward(a, args);
                             });
}
TeplugError* Backward(TeplugAttentionV1* self, const TeplugAttentionBwdArgs* args) {
  return Core(self).Dispatch(InterfaceKind::kAttention, TEPLUG_OP_ATTENTION_BACKWARD, "backward", args,
                             [&](const Implementation& impl) {
                               auto* a = reinterpret_cast<TeplugAttentionV1*>(impl.object.get());
                               return a->vtbl->backward(a, args);
                             });
}
const TeplugAttentionV1Vtbl kAttentionVtbl = {Base(sizeof(TeplugAttentionV1Vtbl)), &Supports,
                                              &AttentionWorkspace, &Forward, &Backward};

// -------------------------------------------------------------- quantizer
TeplugError* Quantize(TeplugQuantizerV1* self, const TeplugQuantizeArgs* args) {
  return Core(self).Dispatch(InterfaceKind::kQuantizer, TEPLUG_OP_QUANTIZE, "quantize", args,
                             [&](const Implementation& impl) {
                               auto* q = reinterpret_cast<TeplugQuantizerV1*>(impl.object.get());
                               return q->vtbl->quantize(q, args);
                             });
}
TeplugError* Dequantize(TeplugQuantizerV1* self, const TeplugDequantizeArgs* args) {
  return Core(self).Dispatch(InterfaceKind::kQuantizer, TEPLUG_OP_DEQUANTIZE, "dequantize", args,
                             [&](const Implementation& impl) {
                               auto* q = reinterpret_cast<TeplugQuantizerV1*>(impl.object.get());
                               return q->vtbl->dequantize(q, args);
                             });
}
const TeplugQuantizerV1Vtbl kQuantizerVtbl = {Base(sizeof(TeplugQuantizerV1Vtbl)), &Supports, &Quantize,
                                              &Dequantize};

// ------------------------------------------------------------- collective
// A communicator is created by one implementation and only it can use it:
// the kernel's handle binds the two. Selection happens at creation.
struct BoundCommunicator {
  static constexpr uint64_t kMagic = 0x7465706c75672d63ull;  // "teplug-c"
  uint64_t magic = kMagic;  // cleared on destroy: catches foreign and stale handles
  std::shared_ptr<const Implementation> impl;
  TeplugCommunicator* inner;
  // TEPLUG_OP_BIT of the ops already announced at INFO, so the hot path
  // takes no lock after the first call of each op.
  std::atomic<uint32_t> announced{0};
};
// The kernel's handle behind `c`, or nullptr (with *err set) when `c` is
// NULL or not a communicator this dispatcher created.
BoundCommunicator* Bound(TeplugCommunicator* c, const char* call, TeplugError** err) {
  auto* b = reinterpret_cast<BoundCommunicator*>(c);
  if (b == nullptr || b->magic != BoundCommunicator::kMagic) {
    *err = teplug_error_create(TEPLUG_INVALID_ARGUMENT,
                               absl::StrCat(call, ": ", b == nullptr ? "communicator is NULL"
                                                                     : "not a communicator created by this "
                                                                       "dispatcher's comm_create (or already destroyed)")
                                   .c_str());
    return nullptr;
  }
  return b;
}
TeplugCollectiveV1* Impl(const BoundCommunicator* b) {
  return reinterpret_cast<TeplugCollectiveV1*>(b->impl->object.get());
}

TeplugError* CommCreate(TeplugCollectiveV1* self, const TeplugCommCreateArgs* args, TeplugCommunicator** out) {
  if (out == nullptr) return teplug_error_create(TEPLUG_INVALID_ARGUMENT, "comm_create: out is NULL");
  const KernelCore& core = Core(self);
  auto guard = core.state().Read();
  absl::StatusOr<Decision> d = core.DecideNow(*guard, InterfaceKind::kCollective, kOpCommCreate, args, "");
  if (!d.ok()) return teplug_error_create(TEPLUG_INVALID_ARGUMENT, std::string(d.status().message()).c_str());
  if (d->ranked.empty()) {
    return teplug_error_create(TEPLUG_UNSUPPORTED,
                               absl::StrCat("teplug: no collective provider for ", d->op_summary(), "\n",
                                            d->record().Format()).c_str());
  }
  core.LogServedOnce(*d);
  // Collectives cannot fall back per call (peers must agree on one
  // implementation), so creation uses the chosen one only.
  auto bound = std::make_unique<BoundCommunicator>();
  bound->impl = d->ranked[0];
  bound->inner = nullptr;
  TeplugCollectiveV1* impl = Impl(bound.get());
  if (TeplugError* e = CallPlugin({bound->impl->QualifiedName(), "comm_create"},
                                  [&] { return impl->vtbl->comm_create(impl, args, &bound->inner); })) {
    return e;
  }
  if (bound->inner == nullptr) {
    return teplug_error_create(TEPLUG_INTERNAL, absl::StrCat(bound->impl->QualifiedName(),
                                                             " returned success from comm_create but wrote no "
                                                             "communicator (*out is NULL)")
                                                    .c_str());
  }
  *out = reinterpret_cast<TeplugCommunicator*>(bound.release());
  return nullptr;
}
TeplugError* CommDestroy(TeplugCollectiveV1*, TeplugCommunicator* comm) {
  TeplugError* err = nullptr;
  std::unique_ptr<BoundCommunicator> bound(Bound(comm, "comm_destroy", &err));
  if (bound == nullptr) return err;
  bound->magic = 0;
  TeplugCollectiveV1* impl = Impl(bound.get());
  return CallPlugin({bound->impl->QualifiedName(), "comm_destroy"},
                    [&] { return impl->vtbl->comm_destroy(impl, bound->inner); });
}
TeplugError* Run(TeplugCollectiveV1* self, int32_t op, const TeplugCollectiveArgs* args) {
  if (args == nullptr || args->struct_size < TEPLUG_STRUCT_SIZE(TeplugCollectiveArgs, stream)) {
    return teplug_error_create(TEPLUG_INVALID_ARGUMENT, "TeplugCollectiveArgs is NULL or too small");
  }
  TeplugError* err = nullptr;
  BoundCommunicator* bound = Bound(args->comm, "TeplugCollectiveArgs.comm", &err);
  if (bound == nullptr) return err;
  absl::StatusOr<OpDescription> desc = DescribeOp(InterfaceKind::kCollective, op, args);
  if (!desc.ok()) return teplug_error_create(TEPLUG_INVALID_ARGUMENT, std::string(desc.status().message()).c_str());
  // The communicator's implementation must accept the op; there is nothing
  // to fall back to, so a refusal is an error naming why.
  std::optional<std::string> why;
  if (std::optional<Refusal> r = CheckCapability(bound->impl->capability, *desc)) {
    why = FormatRefusal(*r, bound->impl->capability.devices);
  }
  if (!why) why = AskSupports(*bound->impl, op, args);
  if (why) {
    return teplug_error_create(TEPLUG_UNSUPPORTED,
                               absl::StrCat(bound->impl->QualifiedName(), " (bound to this communicator) cannot serve ",
                                            desc->summary, ": ", *why).c_str());
  }
  const Logger& logger = Core(self).logger();
  if (logger.Enabled(LogLevel::kInfo) &&
      (bound->announced.fetch_or(TEPLUG_OP_BIT(op), std::memory_order_relaxed) & TEPLUG_OP_BIT(op)) == 0) {
    logger.Log(LogLevel::kInfo, absl::StrCat("serving ", desc->summary, " -> ", bound->impl->QualifiedName(),
                                             " (bound by its communicator)"));
  }
  TeplugCollectiveArgs inner = *args;
  inner.struct_size = sizeof inner;
  inner.comm = bound->inner;
  TeplugCollectiveV1* impl = Impl(bound);
  return CallPlugin({bound->impl->QualifiedName(), "run"}, [&] { return impl->vtbl->run(impl, op, &inner); });
}
TeplugError* GroupStart(TeplugCollectiveV1*, TeplugCommunicator* comm) {
  TeplugError* err = nullptr;
  BoundCommunicator* bound = Bound(comm, "group_start", &err);
  if (bound == nullptr) return err;
  TeplugCollectiveV1* impl = Impl(bound);
  return CallPlugin({bound->impl->QualifiedName(), "group_start"},
                    [&] { return impl->vtbl->group_start(impl, bound->inner); });
}
TeplugError* GroupEnd(TeplugCollectiveV1*, TeplugCommunicator* comm) {
  TeplugError* err = nullptr;
  BoundCommunicator* bound = Bound(comm, "group_end", &err);
  if (bound == nullptr) return err;
  TeplugCollectiveV1* impl = Impl(bound);
  return CallPlugin({bound->impl->QualifiedName(), "group_end"},
                    [&] { return impl->vtbl->group_end(impl, bound->inner); });
}
const TeplugCollectiveV1Vtbl kCollectiveVtbl = {Base(sizeof(TeplugCollectiveV1Vtbl)), &Supports, &CommCreate,
                                                &CommDestroy, &Run, &GroupStart, &GroupEnd};

}  // namespace

TeplugObject* MakeDispatchObject(std::shared_ptr<const KernelCore> core, InterfaceKind kind) {
  const void* vtbl = nullptr;
  switch (kind) {
    case InterfaceKind::kGemm: vtbl = &kGemmVtbl; break;
    case InterfaceKind::kAttention: vtbl = &kAttentionVtbl; break;
    case InterfaceKind::kQuantizer: vtbl = &kQuantizerVtbl; break;
    case InterfaceKind::kCollective: vtbl = &kCollectiveVtbl; break;
  }
  auto* d = new DispatchObject{vtbl, {1}, kind, std::move(core)};
  return reinterpret_cast<TeplugObject*>(d);
}

}  // namespace teplug::core
