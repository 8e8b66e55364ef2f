#include "plugins/reference/provider/collective_provider.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "plugins/reference/collective/communicator.h"
#include "plugins/reference/collective/rendezvous.h"
#include "plugins/reference/provider/status_bridge.h"
#include "plugins/reference/provider/tensor_view.h"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::reference::provider {
namespace {

using collective::Communicator;
using collective::CommunicatorOptions;
using collective::DataType;
using collective::ReduceOp;

// What a TeplugCommunicator* points at. The magic number catches handles
// from another provider or already destroyed ones before they are used.
struct CommunicatorHandle {
  static constexpr uint64_t kMagic = 0x7265662d636f6d6dull;  // "ref-comm"
  uint64_t magic = kMagic;
  std::unique_ptr<Communicator> comm;
};

absl::StatusOr<CommunicatorHandle*> HandleOf(TeplugCommunicator* comm, const char* what) {
  auto* h = reinterpret_cast<CommunicatorHandle*>(comm);
  if (h == nullptr) return absl::InvalidArgumentError(absl::StrCat(what, ": comm is NULL"));
  if (h->magic != CommunicatorHandle::kMagic) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": comm is not a live communicator of the reference provider"));
  }
  return h;
}

absl::StatusOr<DataType> DataTypeOf(const TensorView& t) {
  switch (t.dtype) {
    case TEPLUG_DTYPE_FP32: return DataType::kFp32;
    case TEPLUG_DTYPE_FP16: return DataType::kFp16;
    case TEPLUG_DTYPE_BF16: return DataType::kBf16;
    case TEPLUG_DTYPE_FP8_E4M3: return DataType::kFp8E4M3;
    case TEPLUG_DTYPE_FP8_E5M2: return DataType::kFp8E5M2;
    case TEPLUG_DTYPE_E8M0: return DataType::kE8M0;
    case TEPLUG_DTYPE_FP4_E2M1: return DataType::kFp4E2M1;
    case TEPLUG_DTYPE_INT8: return DataType::kInt8;
    case TEPLUG_DTYPE_INT32: return DataType::kInt32;
    case TEPLUG_DTYPE_INT64: return DataType::kInt64;
    case TEPLUG_DTYPE_UINT8: return DataType::kUint8;
    default:
      return absl::InvalidArgumentError(absl::StrCat(t.name, ": dtype ", t.dtype, " unknown"));
  }
}

absl::StatusOr<ReduceOp> ReduceOpOf(int32_t op) {
  switch (op) {
    case TEPLUG_REDUCE_SUM: return ReduceOp::kSum;
    case TEPLUG_REDUCE_PROD: return ReduceOp::kProd;
    case TEPLUG_REDUCE_MIN: return ReduceOp::kMin;
    case TEPLUG_REDUCE_MAX: return ReduceOp::kMax;
    case TEPLUG_REDUCE_AVG: return ReduceOp::kAvg;
    default:
      return absl::InvalidArgumentError(
          absl::StrFormat("TeplugCollectiveArgs.reduce_op %d is not a TeplugReduceOp", op));
  }
}

// Views a collective buffer: host memory, contiguous.
absl::StatusOr<TensorView> ViewBuffer(const TeplugTensor* t, const std::string& name) {
  absl::StatusOr<TensorView> v = ViewTensor(t, name);
  if (!v.ok()) return v.status();
  if (!v->IsContiguous()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": strides are not contiguous (shape ",
                                                   ShapeString(v->shape), ", strides ",
                                                   ShapeString(v->strides),
                                                   "); collective buffers must be contiguous"));
  }
  return v;
}

absl::Status RequireSameDType(const TensorView& a, const TensorView& b) {
  if (a.dtype == b.dtype) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(b.name, ": dtype ", sdk::DTypeName(b.dtype),
                                                 " but ", a.name, " is ", sdk::DTypeName(a.dtype)));
}

absl::Status RequireCount(const TensorView& t, int64_t expected, const std::string& why) {
  if (t.element_count == expected) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat("%s: %d elements but %s %d", t.name,
                                                    t.element_count, why, expected));
}

// counts (int64 [world]) as size_t, checked non-negative.
absl::StatusOr<std::vector<size_t>> ReadCounts(const int64_t* counts, int world) {
  std::vector<size_t> out;
  for (int r = 0; r < world; ++r) {
    if (counts[r] < 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "TeplugCollectiveArgs.counts[%d] is %d; counts are >= 0", r, counts[r]));
    }
    out.push_back(static_cast<size_t>(counts[r]));
  }
  return out;
}

int64_t Sum(const std::vector<size_t>& v) {
  int64_t s = 0;
  for (size_t x : v) s += static_cast<int64_t>(x);
  return s;
}

// A host key-value store seen through the reference's KeyValueStore.
collective::KeyValueStore AdaptStore(const TeplugKvStore& kv) {
  collective::KeyValueStore store;
  store.put = [kv](const std::string& key, const std::string& value) -> absl::Status {
    sdk::OwnedError e(kv.put(kv.ctx, key.c_str(), value.data(), value.size()));
    if (e.ok()) return absl::OkStatus();
    return absl::Status(AbslCodeFor(e.code()), absl::StrCat("TeplugKvStore.put: ", e.message()));
  };
  store.get = [kv](const std::string& key,
                   std::chrono::nanoseconds timeout) -> absl::StatusOr<std::string> {
    std::string buffer(4096, '\0');
    size_t size = 0;
    const int64_t ms = std::chrono::duration_cast<std::chrono::milliseconds>(timeout).count();
    sdk::OwnedError e(kv.get(kv.ctx, key.c_str(), buffer.data(), buffer.size(), &size, ms));
    if (!e.ok()) {
      return absl::Status(AbslCodeFor(e.code()), absl::StrCat("TeplugKvStore.get: ", e.message()));
    }
    if (size > buffer.size()) {
      return absl::InternalError(absl::StrFormat(
          "TeplugKvStore.get reported %d bytes for key %s, more than the %d it was given", size,
          key, buffer.size()));
    }
    buffer.resize(size);
    return buffer;
  };
  return store;
}

absl::StatusOr<std::unique_ptr<Communicator>> JoinCommunicator(const TeplugCommCreateArgs& args) {
  const std::string an = "TeplugCommCreateArgs";
  if (args.world_size < 1 || args.rank < 0 || args.rank >= args.world_size) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: rank %d of world_size %d; need world_size >= 1 and 0 <= rank < world_size", an,
        args.rank, args.world_size));
  }
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireHostDevice(
      args.device, an, " but the reference provider's collectives work on host memory only"));
  if (args.rendezvous == nullptr) return absl::InvalidArgumentError(an + ".rendezvous is NULL");
  TeplugRendezvous rv;
  if (!sdk::ReadVersioned(args.rendezvous, &rv, TEPLUG_STRUCT_SIZE(TeplugRendezvous, timeout_ms))) {
    return absl::InvalidArgumentError(an + ".rendezvous.struct_size is too small");
  }
  CommunicatorOptions options;
  if (rv.timeout_ms < 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.rendezvous.timeout_ms %d is negative", an, rv.timeout_ms));
  }
  if (rv.timeout_ms > 0) options.timeout = std::chrono::milliseconds(rv.timeout_ms);
  const bool has_blob = rv.bootstrap != nullptr && rv.bootstrap_size > 0;
  if (has_blob == (rv.kv != nullptr)) {
    return absl::InvalidArgumentError(absl::StrCat(
        an, ".rendezvous: exactly one of bootstrap (with bootstrap_size > 0) or kv must be set; ",
        has_blob ? "both are" : "neither is"));
  }
  if (has_blob) {
    const std::string blob(static_cast<const char*>(rv.bootstrap), rv.bootstrap_size);
    absl::StatusOr<std::string> path = collective::DecodeBootstrapBlob(blob);
    if (!path.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(an, ".rendezvous.bootstrap: ", path.status().message()));
    }
    return Communicator::Create(*path, args.rank, args.world_size, options);
  }
  TeplugKvStore kv;
  if (!sdk::ReadVersioned(rv.kv, &kv, TEPLUG_STRUCT_SIZE(TeplugKvStore, get)) || kv.put == nullptr ||
      kv.get == nullptr) {
    return absl::InvalidArgumentError(an + ".rendezvous.kv: struct too small or put/get NULL");
  }
  const std::string key = std::string(rv.kv_prefix != nullptr ? rv.kv_prefix : "") + kRegionKeySuffix;
  return collective::CreateWithKeyValueStore(AdaptStore(kv), key, args.rank, args.world_size,
                                             collective::kDefaultRegionDirectory, options);
}

absl::Status RunOp(int32_t op, const TeplugCollectiveArgs& args) {
  const std::string what = absl::StrCat("ICollective ", sdk::OpName(op));
  absl::StatusOr<CommunicatorHandle*> h = HandleOf(args.comm, what.c_str());
  if (!h.ok()) return h.status();
  Communicator& comm = *(*h)->comm;
  const int world = comm.world();
  const int rank = comm.rank();
  const std::string an = "TeplugCollectiveArgs";
  if (op == TEPLUG_OP_BARRIER) return comm.Barrier();
  if (op < TEPLUG_OP_ALL_REDUCE || op > TEPLUG_OP_BARRIER) {
    return absl::InvalidArgumentError(
        absl::StrFormat("ICollective run: op %d is not a collective op (all_reduce %d .. barrier %d)",
                        op, TEPLUG_OP_ALL_REDUCE, TEPLUG_OP_BARRIER));
  }
  const bool reads_send = op != TEPLUG_OP_RECV && !(op == TEPLUG_OP_BROADCAST && rank != args.root);
  const bool writes_recv = op != TEPLUG_OP_SEND;
  std::optional<TensorView> send, recv;
  if (reads_send && !(op == TEPLUG_OP_BROADCAST && args.send == nullptr)) {
    absl::StatusOr<TensorView> v = ViewBuffer(args.send, an + ".send");
    if (!v.ok()) return absl::Status(v.status().code(), absl::StrCat(what, ": ", v.status().message()));
    send = *std::move(v);
  }
  if (writes_recv) {
    absl::StatusOr<TensorView> v = ViewBuffer(args.recv, an + ".recv");
    if (!v.ok()) return absl::Status(v.status().code(), absl::StrCat(what, ": ", v.status().message()));
    recv = *std::move(v);
  }
  if (send && recv) TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireSameDType(*send, *recv));
  const TensorView& typed = send ? *send : *recv;
  absl::StatusOr<DataType> type = DataTypeOf(typed);
  if (!type.ok()) return type.status();
  switch (op) {
    case TEPLUG_OP_ALL_REDUCE: {
      absl::StatusOr<ReduceOp> r = ReduceOpOf(args.reduce_op);
      if (!r.ok()) return r.status();
      TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireCount(*recv, send->element_count, "send has"));
      return comm.AllReduce(send->data, recv->data, send->element_count, *type, *r);
    }
    case TEPLUG_OP_ALL_GATHER: {
      if (args.counts == nullptr) {
        TEPLUG_REFERENCE_RETURN_IF_ERROR(
            RequireCount(*recv, world * send->element_count, "world_size * send elements is"));
        return comm.AllGather(send->data, recv->data, send->element_count, *type);
      }
      absl::StatusOr<std::vector<size_t>> counts = ReadCounts(args.counts, world);
      if (!counts.ok()) return counts.status();
      TEPLUG_REFERENCE_RETURN_IF_ERROR(
          RequireCount(*send, static_cast<int64_t>((*counts)[rank]), absl::StrCat("counts[", rank, "] is")));
      TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireCount(*recv, Sum(*counts), "the sum of counts is"));
      return comm.AllGatherV(send->data, recv->data, *counts, *type);
    }
    case TEPLUG_OP_REDUCE_SCATTER: {
      absl::StatusOr<ReduceOp> r = ReduceOpOf(args.reduce_op);
      if (!r.ok()) return r.status();
      if (args.counts == nullptr) {
        TEPLUG_REFERENCE_RETURN_IF_ERROR(
            RequireCount(*send, world * recv->element_count, "world_size * recv elements is"));
        return comm.ReduceScatter(send->data, recv->data, recv->element_count, *type, *r);
      }
      absl::StatusOr<std::vector<size_t>> counts = ReadCounts(args.counts, world);
      if (!counts.ok()) return counts.status();
      TEPLUG_REFERENCE_RETURN_IF_ERROR(
          RequireCount(*recv, static_cast<int64_t>((*counts)[rank]), absl::StrCat("counts[", rank, "] is")));
      TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireCount(*send, Sum(*counts), "the sum of counts is"));
      return comm.ReduceScatterV(send->data, recv->data, *counts, *type, *r);
    }
    case TEPLUG_OP_BROADCAST: {
      if (args.root < 0 || args.root >= world) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s: %s.root %d is not a rank of world_size %d", what, an, args.root, world));
      }
      if (send) TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireCount(*recv, send->element_count, "send has"));
      const void* in = send ? send->data : recv->data;  // root without send: in place
      return comm.Broadcast(in, recv->data, recv->element_count, *type, args.root);
    }
    case TEPLUG_OP_SEND: return comm.Send(send->data, send->element_count, *type, args.peer);
    default: return comm.Recv(recv->data, recv->element_count, *type, args.peer);
  }
}

class ReferenceCollective : public sdk::CollectiveImpl {
 public:
  TeplugCommunicator* CreateCommunicator(const TeplugCommCreateArgs& args) override {
    auto handle = std::make_unique<CommunicatorHandle>();
    handle->comm = ValueOrThrow(JoinCommunicator(args));
    return reinterpret_cast<TeplugCommunicator*>(handle.release());
  }
  void DestroyCommunicator(TeplugCommunicator* comm) override {
    CommunicatorHandle* h = ValueOrThrow(HandleOf(comm, "ICollective comm_destroy"));
    h->magic = 0;
    delete h;
  }
  void Run(int32_t op, const TeplugCollectiveArgs& args) override { ThrowIfError(RunOp(op, args)); }
  void GroupStart(TeplugCommunicator* comm) override {
    ThrowIfError(ValueOrThrow(HandleOf(comm, "ICollective group_start"))->comm->GroupStart());
  }
  void GroupEnd(TeplugCommunicator* comm) override {
    ThrowIfError(ValueOrThrow(HandleOf(comm, "ICollective group_end"))->comm->GroupEnd());
  }
};

}  // namespace

std::unique_ptr<sdk::CollectiveImpl> NewReferenceCollective() {
  return std::make_unique<ReferenceCollective>();
}

}  // namespace teplug::reference::provider
