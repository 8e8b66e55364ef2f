// ICollective/1 in the core: the field tables of the collective ops and of
// communicator creation, the capability descriptor, and the dispatching
// object, which binds each communicator to the implementation that created it.
#include "core/ops/collective.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <iterator>
#include <memory>

#include "absl/strings/str_cat.h"
#include "core/boundary/plugin_call.h"
#include "core/kernel/dispatch_objects.h"
#include "core/kernel/host_identity.h"
#include "core/ops/capability_reader.h"
#include "core/ops/collective_hosts.h"
#include "core/ops/table_check.h"
#include "core/ops/table_describe.h"
#include "core/select/ask_supports.h"
#include "core/select/selector.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/names.hpp"

namespace teplug::core {
namespace {

using Args = TeplugCollectiveArgs;
using Create = TeplugCommCreateArgs;
using Caps = TeplugCollectiveCaps;

constexpr Field kCollectiveFields[] = {
    PerCallField("comm", offsetof(Args, comm)),
    TensorField("send", offsetof(Args, send), kDeviceFrom).DTypes(offsetof(Caps, dtypes)),
    TensorField("recv", offsetof(Args, recv), kDeviceFrom).DTypes(offsetof(Caps, dtypes)),
    PerCallField("counts", offsetof(Args, counts)),
    ScalarField("reduce_op", FieldRole::kInt32, offsetof(Args, reduce_op)).Selected(),
    PerCallField("root", offsetof(Args, root)),
    PerCallField("peer", offsetof(Args, peer)),
    PerCallField("stream", offsetof(Args, stream)),
};
constexpr Field kCommCreateFields[] = {
    PerCallField("rank", offsetof(Create, rank)),
    ScalarField("world_size", FieldRole::kInt32, offsetof(Create, world_size)).Selected(),
    PerCallField("rendezvous", offsetof(Create, rendezvous)),
    PerCallField("device", offsetof(Create, device)),
};
constexpr size_t kArgsV1 = TEPLUG_STRUCT_SIZE(Args, stream);
constexpr size_t kCreateV1 = TEPLUG_STRUCT_SIZE(Create, device);
constexpr size_t kCreateHosts = TEPLUG_STRUCT_SIZE(Create, num_hosts);
// How long the host count waits for every rank when the rendezvous sets no
// timeout (the reference and Gloo collectives' own default).
constexpr int64_t kDefaultRendezvousMs = 60000;

bool Reduces(int32_t op) { return op == TEPLUG_OP_ALL_REDUCE || op == TEPLUG_OP_REDUCE_SCATTER; }

// The summary of a described call ("collective all_reduce fp32[1024] sum on
// cpu"). A collective's run builds it only for a refusal or the log line:
// its strings cost more than the rest of the kernel's part of a small op.
void Summarize(const DeviceSpelling& spelling, OpDescription* d) {
  const auto& a = *static_cast<const Args*>(d->args);
  const TeplugTensor* t = a.send != nullptr ? a.send : a.recv;
  FinishDescription(absl::StrCat(t != nullptr ? ShapeText(t) : "",
                                 Reduces(d->op()) ? absl::StrCat(" ", sdk::ReduceName(a.reduce_op)) : ""),
                    spelling, d);
}

absl::StatusOr<OpDescription> DescribeCall(const InterfaceModule& module, const OpSpec& spec, const void* raw,
                                           const DeviceSpelling& spelling) {
  OpDescription d;
  absl::Status s = DescribeFromTable(module, spec, kArgsV1, raw, spelling, &d);
  if (!s.ok()) return s;
  Summarize(spelling, &d);
  return d;
}

absl::StatusOr<OpDescription> DescribeCommCreate(const InterfaceModule& module, const OpSpec& spec,
                                                 const void* raw,
                                                 const DeviceSpelling& spelling) {
  OpDescription d;
  absl::Status s = DescribeFromTable(module, spec, kCreateV1, raw, spelling, &d);
  if (!s.ok()) return s;
  const auto& a = *static_cast<const Create*>(raw);
  constexpr size_t kDeviceV1 = TEPLUG_STRUCT_SIZE(TeplugDevice, arch);
  if (a.device != nullptr && a.device->struct_size < kDeviceV1) {
    return absl::InvalidArgumentError(
        absl::StrCat("TeplugCommCreateArgs.device.struct_size ", a.device->struct_size, " < ", kDeviceV1));
  }
  if (a.device != nullptr) {
    d.device = *a.device;
    d.device_kind = spelling.KindSpelling(d.device.kind);
    d.vendor = spelling.VendorSpelling(d.device.vendor_id);
  }
  d.world_size = a.world_size;
  d.facts.AddInteger("world_size", a.world_size);
  const int32_t hosts = a.struct_size >= kCreateHosts ? a.num_hosts : 0;
  if (hosts < 0) return absl::InvalidArgumentError(absl::StrCat("TeplugCommCreateArgs.num_hosts ", hosts, " < 0"));
  d.hosts = hosts;
  d.facts.AddInteger("hosts", hosts);
  FinishDescription(absl::StrCat("rank ", a.rank, " of ", a.world_size,
                                 hosts == 0 ? "" : absl::StrCat(" (", hosts, hosts == 1 ? " host)" : " hosts)")),
                    spelling, &d);
  return d;
}

std::optional<Refusal> CheckOp(const Capability& cap, const OpDescription& op) {
  const Caps& c = cap.As<Caps>();
  if (!(c.ops & TEPLUG_OP_BIT(op.op()))) {
    Refusal r = ValueRefusal(Refusal::Kind::kCustom, "collective", op.op());
    r.format = [](const Refusal& x) {
      return absl::StrCat("collective ", sdk::OpName(static_cast<int32_t>(x.value)), " not supported");
    };
    return r;
  }
  if (auto r = CheckTensorsFromTable<kCollectiveFields>(&c, op.args)) return r;
  const auto& a = *static_cast<const Args*>(op.args);
  if (Reduces(op.op()) && !(a.reduce_op >= 0 && a.reduce_op < 32 && (c.reductions & TEPLUG_REDUCE_BIT(a.reduce_op)))) {
    return NamedRefusal("reduction", a.reduce_op, c.reductions, &sdk::ReduceName, TEPLUG_REDUCE_COUNT_);
  }
  return std::nullopt;
}

std::optional<Refusal> CheckCommCreate(const Capability& cap, const OpDescription& op) {
  const Caps& c = cap.As<Caps>();
  if (c.max_world_size > 0 && op.world_size > c.max_world_size) {
    return ValueRefusal(Refusal::Kind::kAbove, "world size", op.world_size, c.max_world_size);
  }
  if ((c.features & TEPLUG_COLLECTIVE_CAP_ONE_HOST) != 0 && op.hosts > 1) {
    Refusal r = ValueRefusal(Refusal::Kind::kCustom, "hosts", op.hosts);
    r.format = [](const Refusal& x) {
      return absl::StrCat("ranks on ", x.value, " hosts; serves ranks on one host only (features one_host)");
    };
    return r;
  }
  return std::nullopt;
}

absl::Status Validate(const Caps& c) {
  const char* s = "TeplugCollectiveCaps";
  constexpr uint64_t kOpsMask = MaskBelow(TEPLUG_OP_BARRIER + 1) & ~MaskBelow(TEPLUG_OP_ALL_REDUCE);
  const bool reduces = (c.ops & (TEPLUG_OP_BIT(TEPLUG_OP_ALL_REDUCE) | TEPLUG_OP_BIT(TEPLUG_OP_REDUCE_SCATTER))) != 0;
  for (absl::Status st : {CheckDtypes(s, "dtypes", c.dtypes, true), CheckBits(s, "ops", c.ops, kOpsMask, true),
                          // A reducing op without any reduction operator could never be served.
                          CheckBits(s, "reductions", c.reductions, MaskBelow(TEPLUG_REDUCE_COUNT_), reduces),
                          CheckNonNegative(s, "max_world_size", c.max_world_size),
                          CheckBits(s, "features", c.features, TEPLUG_COLLECTIVE_CAP_ONE_HOST, false)}) {
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

// Collectives are bound to their communicator's implementation: never keyed.
bool NoKey(const void*, OpSignature*) { return false; }

#define TEPLUG_COLLECTIVE_OP(var, op, name) \
  constexpr OpSpec var { op, name, "TeplugCollectiveArgs", kCollectiveFields, &DescribeCall, &NoKey, &CheckOp }
TEPLUG_COLLECTIVE_OP(kAllReduceOp, TEPLUG_OP_ALL_REDUCE, "all_reduce");
TEPLUG_COLLECTIVE_OP(kAllGatherOp, TEPLUG_OP_ALL_GATHER, "all_gather");
TEPLUG_COLLECTIVE_OP(kReduceScatterOp, TEPLUG_OP_REDUCE_SCATTER, "reduce_scatter");
TEPLUG_COLLECTIVE_OP(kBroadcastOp, TEPLUG_OP_BROADCAST, "broadcast");
TEPLUG_COLLECTIVE_OP(kSendOp, TEPLUG_OP_SEND, "send");
TEPLUG_COLLECTIVE_OP(kRecvOp, TEPLUG_OP_RECV, "recv");
TEPLUG_COLLECTIVE_OP(kBarrierOp, TEPLUG_OP_BARRIER, "barrier");
#undef TEPLUG_COLLECTIVE_OP
// Creation is where the implementation is chosen. Its number is the
// interface's own (the ABI has no TeplugOp for it); the ABI's `supports`
// takes collective op args only, so it is not asked.
constexpr int32_t kCommCreate = 1000;
constexpr OpSpec kCommCreateOp{kCommCreate,          "comm_create",    "TeplugCommCreateArgs", kCommCreateFields,
                               &DescribeCommCreate, &NoKey,          &CheckCommCreate,       /*ask_supports=*/false};
constexpr const OpSpec* kOps[] = {&kAllReduceOp, &kAllGatherOp, &kReduceScatterOp, &kBroadcastOp,
                                  &kSendOp,      &kRecvOp,      &kBarrierOp,       &kCommCreateOp};

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

// A copy of the caller's args (*filled; struct_size 0 when they are too short
// to copy, and selection then says so) whose num_hosts, when the caller left
// it 0, is counted through a key-value rendezvous (rank and world size in
// range) or is 1 for a world of 1; otherwise it stays 0, unknown, and what is
// malformed is reported by selection or the implementation. The count blocks
// until every rank published its host, so it runs before the kernel state is
// held; its rendezvous error is returned.
TeplugError* FillHostCount(const TeplugCommCreateArgs* args, const Logger& logger, Create* filled) {
  *filled = Create{};
  if (args == nullptr || args->struct_size < kCreateV1) return nullptr;
  std::memcpy(filled, args, std::min(args->struct_size, sizeof(Create)));
  filled->struct_size = sizeof(Create);
  if (args->struct_size < kCreateHosts) filled->num_hosts = 0;
  if (filled->num_hosts != 0 || filled->world_size < 1 || filled->rank < 0 || filled->rank >= filled->world_size) {
    return nullptr;
  }
  if (filled->world_size == 1) {
    filled->num_hosts = 1;
    return nullptr;
  }
  const TeplugRendezvous* rdv = filled->rendezvous;
  if (rdv == nullptr || rdv->struct_size < TEPLUG_STRUCT_SIZE(TeplugRendezvous, timeout_ms) || rdv->kv == nullptr ||
      rdv->kv->struct_size < TEPLUG_STRUCT_SIZE(TeplugKvStore, get) || rdv->kv->put == nullptr ||
      rdv->kv->get == nullptr) {
    return nullptr;  // a bootstrap blob (or a malformed rendezvous): the count stays unknown
  }
  const std::string host = LocalHostIdFromEnvironment();
  int32_t hosts = 0;
  if (TeplugError* e = CountHosts(*rdv, filled->rank, filled->world_size, host, kDefaultRendezvousMs, &hosts)) {
    return e;
  }
  filled->num_hosts = hosts;
  logger.Log(LogLevel::kDebug, absl::StrCat("comm_create rank ", filled->rank, " of ", filled->world_size,
                                            ": ranks on ", hosts, hosts == 1 ? " host" : " hosts",
                                            " (this one: ", host, ")"));
  return nullptr;
}

TeplugError* CommCreate(TeplugCollectiveV1* self, const TeplugCommCreateArgs* caller_args,
                        TeplugCommunicator** out) {
  if (out == nullptr) return teplug_error_create(TEPLUG_INVALID_ARGUMENT, "comm_create: out is NULL");
  const KernelCore& core = dispatch::Core(self);
  Create filled;
  if (TeplugError* e = FillHostCount(caller_args, core.logger(), &filled)) return e;
  const TeplugCommCreateArgs* args = filled.struct_size != 0 ? &filled : caller_args;
  auto guard = core.state().Read();
  absl::StatusOr<Decision> d = core.DecideNow(*guard, CollectiveModule(), kCommCreateOp, args, "");
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
  bound->impl = d->Shared(0);
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
  const OpSpec* spec = CollectiveModule().FindOp(op);
  if (spec == nullptr || spec == &kCommCreateOp) {
    return teplug_error_create(TEPLUG_INVALID_ARGUMENT,
                               absl::StrCat("collective op ", op, " is not one of all_reduce..barrier").c_str());
  }
  const DeviceSpelling& spelling = AbiDeviceSpelling();
  OpDescription desc;
  absl::Status described = DescribeFromTable(CollectiveModule(), *spec, kArgsV1, args, spelling, &desc);
  if (!described.ok()) return teplug_error_create(TEPLUG_INVALID_ARGUMENT, std::string(described.message()).c_str());
  // The communicator's implementation must accept the op; there is nothing
  // to fall back to, so a refusal is an error naming why.
  std::optional<std::string> why;
  const Capability& cap = bound->impl->capability;
  std::optional<Refusal> refusal = CheckDevice(cap.devices, desc.device);
  if (!refusal) refusal = spec->check(cap, desc);
  if (refusal) why = FormatRefusal(*refusal, cap.devices);
  if (!why) why = AskSupports(*bound->impl, op, args);
  if (why) {
    Summarize(spelling, &desc);
    return teplug_error_create(TEPLUG_UNSUPPORTED,
                               absl::StrCat(bound->impl->QualifiedName(), " (bound to this communicator) cannot serve ",
                                            desc.summary, ": ", *why).c_str());
  }
  const Logger& logger = dispatch::Core(self).logger();
  if (logger.Enabled(LogLevel::kInfo) &&
      (bound->announced.fetch_or(TEPLUG_OP_BIT(op), std::memory_order_relaxed) & TEPLUG_OP_BIT(op)) == 0) {
    Summarize(spelling, &desc);
    logger.Log(LogLevel::kInfo, absl::StrCat("serving ", desc.summary, " -> ", bound->impl->QualifiedName(),
                                             " (bound by its communicator)"));
  }
  TeplugCollectiveArgs inner = *args;
  inner.struct_size = sizeof inner;
  inner.comm = bound->inner;
  TeplugCollectiveV1* impl = Impl(bound);
  TeplugError* e = CallPlugin({bound->impl->QualifiedName(), "run"}, [&] { return impl->vtbl->run(impl, op, &inner); });
  if (e == nullptr) ServedByRecorder::Record(*bound->impl);
  return e;
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
const TeplugCollectiveV1Vtbl kDispatchTable = {dispatch::Base(sizeof(TeplugCollectiveV1Vtbl)), &dispatch::Supports,
                                               &CommCreate, &CommDestroy, &Run, &GroupStart, &GroupEnd};


// TeplugCollectiveCaps.ops bits are TEPLUG_OP_BIT(op) of this module's ops.
const char* CollectiveOpBitName(int32_t bit) {
  for (const OpSpec* op : kOps) {
    if (op->op == bit) return op->name;
  }
  return nullptr;
}
// TeplugCollectiveCaps.features bits.
const char* CollectiveFeatureName(int32_t bit) { return bit == 0 ? "one_host" : nullptr; }
constexpr CapsField kCollectiveCapsFields[] = {
    DTypesCapsField("dtypes", offsetof(Caps, dtypes)),
    BitsCapsField("ops", offsetof(Caps, ops), TEPLUG_OP_COUNT_, &CollectiveOpBitName),
    BitsCapsField("reductions", offsetof(Caps, reductions), TEPLUG_REDUCE_COUNT_, &sdk::ReduceName),
    LimitCapsField("max_world_size", offsetof(Caps, max_world_size), "unbounded"),
    BitsCapsField("features", offsetof(Caps, features), 1, &CollectiveFeatureName),
    ReservedCapsField("reserved0", offsetof(Caps, reserved0)),
};
static_assert(CoversDescriptor<Caps>(kCollectiveCapsFields),
              "kCollectiveCapsFields must name every field of TeplugCollectiveCaps");

class Collective final : public InterfaceModule {
 public:
  const char* name() const override { return "collective"; }
  const char* display_name() const override { return "ICollective/1"; }
  const TeplugIID& iid() const override { return sdk::kIidCollectiveV1; }
  absl::Span<const OpSpec* const> ops() const override { return kOps; }
  absl::StatusOr<Capability> ReadCapability(const void* raw) const override {
    return ReadCaps<Caps>(*this, "TeplugCollectiveCaps", raw, TEPLUG_STRUCT_SIZE(Caps, max_world_size), Validate);
  }
  std::string SummarizeCapability(const Capability& cap) const override {
    const Caps& c = cap.As<Caps>();
    std::string out = absl::StrCat(__builtin_popcount(c.ops), " ops; dtypes ", DTypeSet(c.dtypes));
    if (c.max_world_size > 0) absl::StrAppend(&out, "; world <= ", c.max_world_size);
    if (c.features & TEPLUG_COLLECTIVE_CAP_ONE_HOST) absl::StrAppend(&out, "; ranks on one host");
    return out;
  }
  absl::Span<const CapsField> CapabilityFieldTable() const override { return kCollectiveCapsFields; }
  std::optional<std::string> CheckTable(const TeplugObject* object) const override {
    using V = TeplugCollectiveV1Vtbl;
    return CheckFunctionTable("TeplugCollectiveV1Vtbl", object, TEPLUG_STRUCT_SIZE(V, group_end),
                              {{"comm_create", offsetof(V, comm_create)},
                               {"comm_destroy", offsetof(V, comm_destroy)},
                               {"run", offsetof(V, run)},
                               {"group_start", offsetof(V, group_start)},
                               {"group_end", offsetof(V, group_end)}});
  }
  TeplugSupportsFn SupportsHook(const TeplugObject* object) const override {
    return reinterpret_cast<const TeplugCollectiveV1Vtbl*>(object->vtbl)->supports;
  }
  const void* DispatchTable() const override { return &kDispatchTable; }
  absl::StatusOr<std::vector<ExampleParam>> ExampleParams(const OpSpec& op) const override {
    return CollectiveExampleParams(*this, op);
  }
  void BuildExample(const OpSpec& op, const ExampleValues& values, ExampleOp* out) const override {
    BuildCollectiveExample(op, values, out);
  }

 protected:
  void AddDerivedFacts(config::InterfaceVocabulary* v) const override {
    AddIntegerFact(v, "world_size", "comm_create: the number of ranks in the communicator");
    AddIntegerFact(v, "hosts", "comm_create: the number of hosts the ranks are on (0: unknown)");
    for (const OpSpec* op : kOps) {
      if (op == &kCommCreateOp) continue;
      v->undecided_ops.push_back({op->name, "collectives are decided once per communicator, at comm_create, and every "
                                            "call on the communicator goes to that implementation; match ops: "
                                            "\"comm_create\" (or leave ops out) instead"});
    }
  }
};

}  // namespace

const InterfaceModule& CollectiveModule() {
  static const Collective kModule;
  return kModule;
}

}  // namespace teplug::core
