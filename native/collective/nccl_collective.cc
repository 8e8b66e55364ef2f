#include "native/collective/nccl_collective.h"

#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "native/collective/device_buffer.h"
#include "native/collective/nccl_communicator.h"
#include "native/collective/nccl_library.h"
#include "native/collective/nccl_status.h"
#include "native/collective/nccl_types.h"
#include "native/collective/rendezvous_store.h"
#include "native/collective/unique_id_exchange.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native::collective {
namespace {

using Clock = std::chrono::steady_clock;

constexpr char kArgs[] = "TeplugCollectiveArgs";
constexpr char kCreateArgs[] = "TeplugCommCreateArgs";

// What a TeplugCommunicator* points at; the magic number catches handles of
// another implementation or already destroyed ones.
struct CommunicatorHandle {
  static constexpr uint64_t kMagic = 0x6e63636c2d636f6dull;  // "nccl-com"
  uint64_t magic = kMagic;
  std::unique_ptr<NcclCommunicator> comm;
};

NcclCommunicator& CommunicatorOf(TeplugCommunicator* comm, const std::string& what) {
  auto* h = reinterpret_cast<CommunicatorHandle*>(comm);
  if (h == nullptr) throw sdk::InvalidArgument(what + ": comm is NULL");
  if (h->magic != CommunicatorHandle::kMagic) {
    throw sdk::InvalidArgument(what + ": comm is not a live NCCL communicator");
  }
  return *h->comm;
}

bool IsReducing(int32_t op) {
  return op == TEPLUG_OP_ALL_REDUCE || op == TEPLUG_OP_REDUCE_SCATTER;
}

ncclRedOp_t RequireReduction(int32_t reduce_op) {
  const std::optional<ncclRedOp_t> r = FindNcclReduction(reduce_op);
  if (!r.has_value()) {
    throw sdk::InvalidArgument(absl::StrFormat("%s.reduce_op %d is not a TeplugReduceOp (0..%d)",
                                               kArgs, reduce_op, TEPLUG_REDUCE_COUNT_ - 1));
  }
  return *r;
}

void RequireOp(int32_t op) {
  if (op < TEPLUG_OP_ALL_REDUCE || op > TEPLUG_OP_BARRIER) {
    throw sdk::InvalidArgument(absl::StrFormat(
        "native nccl: op %d is not a collective op (all_reduce %d .. barrier %d)", op,
        TEPLUG_OP_ALL_REDUCE, TEPLUG_OP_BARRIER));
  }
}

// The op's buffers as the op reads them (NULL when it takes none).
struct OpBuffers {
  std::optional<DeviceBuffer> send;
  std::optional<DeviceBuffer> recv;
};

OpBuffers ReadOpBuffers(int32_t op, const TeplugCollectiveArgs& args, bool is_broadcast_root) {
  const std::string prefix = absl::StrCat("native nccl ", sdk::OpName(op), ": ", kArgs);
  OpBuffers b;
  const bool reads_send = op == TEPLUG_OP_ALL_REDUCE || op == TEPLUG_OP_ALL_GATHER ||
                          op == TEPLUG_OP_REDUCE_SCATTER || op == TEPLUG_OP_SEND ||
                          (op == TEPLUG_OP_BROADCAST && is_broadcast_root && args.send != nullptr);
  const bool writes_recv = op != TEPLUG_OP_SEND && op != TEPLUG_OP_BARRIER;
  if (reads_send) b.send = ReadDeviceBuffer(args.send, prefix + ".send");
  if (writes_recv) b.recv = ReadDeviceBuffer(args.recv, prefix + ".recv");
  if (b.send && b.recv) {
    if (b.send->dtype.teplug != b.recv->dtype.teplug) {
      throw sdk::InvalidArgument(absl::StrFormat(
          "%s.recv: dtype %s but %s.send is %s", prefix, sdk::DTypeName(b.recv->dtype.teplug),
          kArgs, sdk::DTypeName(b.send->dtype.teplug)));
    }
    if (b.send->ordinal != b.recv->ordinal) {
      throw sdk::InvalidArgument(absl::StrFormat("%s.recv is on cuda:%d but send on cuda:%d",
                                                 prefix, b.recv->ordinal, b.send->ordinal));
    }
  }
  return b;
}

void RequireCount(const DeviceBuffer& b, const std::string& name, size_t expected,
                  const std::string& why) {
  if (b.count == expected) return;
  throw sdk::InvalidArgument(
      absl::StrFormat("%s: %d elements but %s %d", name, b.count, why, expected));
}

void RequireRank(int32_t value, int world, const char* field) {
  if (value >= 0 && value < world) return;
  throw sdk::InvalidArgument(
      absl::StrFormat("%s.%s %d is not a rank of world_size %d", kArgs, field, value, world));
}

// counts[world] (NULL: `even` for every rank), checked non-negative.
std::vector<size_t> ReadCounts(const int64_t* counts, int world, size_t even) {
  std::vector<size_t> out(world, even);
  if (counts == nullptr) return out;
  for (int r = 0; r < world; ++r) {
    if (counts[r] < 0) {
      throw sdk::InvalidArgument(
          absl::StrFormat("%s.counts[%d] is %d; counts are >= 0", kArgs, r, counts[r]));
    }
    out[r] = static_cast<size_t>(counts[r]);
  }
  return out;
}

size_t Sum(const std::vector<size_t>& v) {
  size_t s = 0;
  for (size_t x : v) s += x;
  return s;
}

class NcclCollective final : public sdk::CollectiveImpl {
 public:
  NcclCollective(NcclLoader loader, CudaRuntimeApi& runtime, StreamPoller& streams)
      : loader_(std::move(loader)), runtime_(runtime), streams_(streams) {}

  bool Supports(int32_t op, const TeplugCollectiveArgs& args, std::string* reason) override {
    try {
      RequireOp(op);
      // Whether this rank is the root is not known without the communicator:
      // a given send is checked as the root's.
      ReadOpBuffers(op, args, /*is_broadcast_root=*/true);
      if (IsReducing(op)) RequireReduction(args.reduce_op);
      if (const std::string why = WhyNoGpu(); !why.empty()) {
        *reason = "native nccl: no CUDA device: " + why;
        return false;
      }
      if (Nccl() == nullptr) {
        *reason = "native nccl: " + library_reason_;
        return false;
      }
      return true;
    } catch (const sdk::Exception& e) {
      *reason = e.what();
      return false;
    }
  }

  TeplugCommunicator* CreateCommunicator(const TeplugCommCreateArgs& args) override {
    if (args.world_size < 1 || args.rank < 0 || args.rank >= args.world_size) {
      throw sdk::InvalidArgument(absl::StrFormat(
          "%s: rank %d of world_size %d; need world_size >= 1 and 0 <= rank < world_size",
          kCreateArgs, args.rank, args.world_size));
    }
    if (args.device == nullptr || args.device->kind != TEPLUG_DEVICE_CUDA) {
      throw sdk::InvalidArgument(absl::StrFormat(
          "%s.device: %s, but NCCL communicators work on a CUDA device", kCreateArgs,
          args.device == nullptr ? std::string("host (NULL)")
                                 : absl::StrFormat("kind %d", args.device->kind)));
    }
    if (args.rendezvous == nullptr) {
      throw sdk::InvalidArgument(absl::StrCat(kCreateArgs, ".rendezvous is NULL"));
    }
    TeplugRendezvous rv;
    if (!sdk::ReadVersioned(args.rendezvous, &rv,
                            TEPLUG_STRUCT_SIZE(TeplugRendezvous, timeout_ms))) {
      throw sdk::InvalidArgument(absl::StrCat(kCreateArgs, ".rendezvous.struct_size is too small"));
    }
    if (rv.timeout_ms < 0) {
      throw sdk::InvalidArgument(absl::StrFormat("%s.rendezvous.timeout_ms %d is negative",
                                                 kCreateArgs, rv.timeout_ms));
    }
    const std::chrono::milliseconds timeout =
        rv.timeout_ms > 0 ? std::chrono::milliseconds(rv.timeout_ms) : kDefaultNcclTimeout;
    const Clock::time_point deadline = Clock::now() + timeout;
    std::unique_ptr<RendezvousStore> store =
        OpenRendezvousStore(rv, absl::StrCat(kCreateArgs, ".rendezvous"));
    const int ordinal = args.device->ordinal;
    if (const std::string why = WhyNoGpu(); !why.empty()) {
      throw sdk::Unavailable("native nccl: no CUDA device: " + why);
    }
    if (ordinal < 0 || ordinal >= gpu_count_) {
      throw sdk::InvalidArgument(absl::StrFormat("%s.device: cuda:%d, but the runtime reports %d GPU(s)",
                                                 kCreateArgs, ordinal, gpu_count_));
    }
    NcclApi* nccl = Nccl();
    if (nccl == nullptr) throw sdk::Unavailable("native nccl: " + library_reason_);
    const std::string what = absl::StrFormat("native nccl comm_create (rank %d of %d, cuda:%d, %s)",
                                             args.rank, args.world_size, ordinal, store->Describe());
    const auto make_id = [&] {
      ncclUniqueId id{};
      if (const ncclResult_t r = nccl->GetUniqueId(&id); r != ncclSuccess) {
        const char* text = nccl->GetErrorString(r);
        throw sdk::Exception(NcclResultCode(r),
                             absl::StrCat(what, ": ncclGetUniqueId returned ", NcclResultName(r),
                                          " (", text == nullptr ? "" : text, ")"));
      }
      return id;
    };
    const ncclUniqueId id =
        ExchangeUniqueId(*store, args.rank, args.world_size, deadline, make_id, what);
    CommunicatorSetup setup;
    setup.nccl = nccl;
    setup.runtime = &runtime_;
    setup.streams = &streams_;
    setup.ordinal = ordinal;
    setup.rank = args.rank;
    setup.world = args.world_size;
    setup.timeout = timeout;
    auto handle = std::make_unique<CommunicatorHandle>();
    handle->comm = NcclCommunicator::Create(setup, id, deadline);
    return reinterpret_cast<TeplugCommunicator*>(handle.release());
  }

  void DestroyCommunicator(TeplugCommunicator* comm) override {
    CommunicatorOf(comm, "native nccl comm_destroy");
    std::unique_ptr<CommunicatorHandle> owned(reinterpret_cast<CommunicatorHandle*>(comm));
    owned->magic = 0;
    owned->comm->Destroy();  // frees everything, then reports the first failure
  }

  void Run(int32_t op, const TeplugCollectiveArgs& args) override {
    RequireOp(op);
    const std::string what = absl::StrCat("native nccl ", sdk::OpName(op));
    NcclCommunicator& comm = CommunicatorOf(args.comm, what);
    const int world = comm.world();
    const int rank = comm.rank();
    if (op == TEPLUG_OP_BARRIER) return comm.Barrier();
    if (op == TEPLUG_OP_BROADCAST) RequireRank(args.root, world, "root");
    if (op == TEPLUG_OP_SEND || op == TEPLUG_OP_RECV) RequireRank(args.peer, world, "peer");
    const OpBuffers b = ReadOpBuffers(op, args, rank == args.root);
    for (const std::optional<DeviceBuffer>* x : {&b.send, &b.recv}) {
      if (x->has_value() && (*x)->ordinal != comm.ordinal()) {
        throw sdk::InvalidArgument(absl::StrFormat("%s: %s %s is on cuda:%d, the communicator on cuda:%d",
                                                   what, kArgs, x == &b.send ? "send" : "recv",
                                                   (*x)->ordinal, comm.ordinal()));
      }
    }
    const auto stream = static_cast<cudaStream_t>(args.stream);
    const std::string send_name = absl::StrCat(what, ": ", kArgs, ".send");
    const std::string recv_name = absl::StrCat(what, ": ", kArgs, ".recv");
    switch (op) {
      case TEPLUG_OP_ALL_REDUCE: {
        const ncclRedOp_t r = RequireReduction(args.reduce_op);
        RequireCount(*b.recv, recv_name, b.send->count, "send has");
        return comm.AllReduce(b.send->data, b.recv->data, b.send->count, b.send->dtype, r, stream);
      }
      case TEPLUG_OP_ALL_GATHER: {
        const std::vector<size_t> counts = ReadCounts(args.counts, world, b.send->count);
        RequireCount(*b.send, send_name, counts[rank], absl::StrCat("counts[", rank, "] is"));
        RequireCount(*b.recv, recv_name, Sum(counts),
                     args.counts ? "the sum of counts is" : "world_size * send elements is");
        return comm.AllGather(b.send->data, b.recv->data, counts, b.send->dtype, stream);
      }
      case TEPLUG_OP_REDUCE_SCATTER: {
        const ncclRedOp_t r = RequireReduction(args.reduce_op);
        const std::vector<size_t> counts = ReadCounts(args.counts, world, b.recv->count);
        RequireCount(*b.recv, recv_name, counts[rank], absl::StrCat("counts[", rank, "] is"));
        RequireCount(*b.send, send_name, Sum(counts),
                     args.counts ? "the sum of counts is" : "world_size * recv elements is");
        return comm.ReduceScatter(b.send->data, b.recv->data, counts, b.send->dtype, r, stream);
      }
      case TEPLUG_OP_BROADCAST: {
        if (b.send) RequireCount(*b.recv, recv_name, b.send->count, "send has");
        const void* in = b.send ? b.send->data : b.recv->data;
        return comm.Broadcast(in, b.recv->data, b.recv->count, b.recv->dtype, args.root, stream);
      }
      case TEPLUG_OP_SEND:
        return comm.Send(b.send->data, b.send->count, b.send->dtype, args.peer, stream);
      default:
        return comm.Recv(b.recv->data, b.recv->count, b.recv->dtype, args.peer, stream);
    }
  }

  void GroupStart(TeplugCommunicator* comm) override {
    CommunicatorOf(comm, "native nccl group_start").GroupStart();
  }
  void GroupEnd(TeplugCommunicator* comm) override {
    CommunicatorOf(comm, "native nccl group_end").GroupEnd();
  }

 private:
  // "" when the runtime reports a GPU, else why not (asked once).
  std::string WhyNoGpu() {
    std::call_once(gpus_once_, [&] {
      int count = 0;
      const int e = runtime_.GetDeviceCount(&count);
      if (e != kCudaSuccess) {
        no_gpu_reason_ = absl::StrCat("cudaGetDeviceCount returned ", runtime_.ErrorName(e), " (",
                                      runtime_.ErrorText(e), ")");
      } else if (count == 0) {
        no_gpu_reason_ = "cudaGetDeviceCount reported 0 devices";
      }
      gpu_count_ = e == kCudaSuccess ? count : 0;
    });
    return no_gpu_reason_;
  }

  // The library, or nullptr with library_reason_ set (loaded once).
  NcclApi* Nccl() {
    std::call_once(library_once_, [&] {
      absl::StatusOr<std::unique_ptr<NcclApi>> loaded = loader_();
      if (loaded.ok()) {
        nccl_ = *std::move(loaded);
      } else {
        library_reason_ = std::string(loaded.status().message());
      }
    });
    return nccl_.get();
  }

  NcclLoader loader_;
  CudaRuntimeApi& runtime_;
  StreamPoller& streams_;
  std::once_flag gpus_once_;
  std::string no_gpu_reason_;
  int gpu_count_ = 0;
  std::once_flag library_once_;
  std::unique_ptr<NcclApi> nccl_;
  std::string library_reason_;
};

}  // namespace

NcclLoader RealNcclLoader() {
  return [] { return LoadNccl(NcclCandidatePaths()); };
}

std::unique_ptr<sdk::CollectiveImpl> NewNcclCollective(NcclLoader loader, CudaRuntimeApi& runtime,
                                                       StreamPoller& streams) {
  return std::make_unique<NcclCollective>(std::move(loader), runtime, streams);
}

}  // namespace teplug::native::collective
