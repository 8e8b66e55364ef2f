#include "plugins/cpu/collective/gloo_collective.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "plugins/cpu/collective/collective_buffer.h"
#include "plugins/cpu/collective/gloo_communicator.h"
#include "plugins/cpu/collective/gloo_rendezvous.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::cpu::collective {
namespace {

constexpr char kArgs[] = "TeplugCollectiveArgs";

// What a TeplugCommunicator* points at; the magic number catches handles of
// another implementation or already destroyed ones.
struct CommunicatorHandle {
  static constexpr uint64_t kMagic = 0x676c6f6f2d636f6dull;  // "gloo-com"
  uint64_t magic = kMagic;
  std::unique_ptr<GlooCommunicator> comm;
};

// `call` names the call in errors, e.g. "all_reduce" ("ICollective all_reduce: ...").
GlooCommunicator& CommunicatorOf(TeplugCommunicator* comm, const char* call) {
  auto* h = reinterpret_cast<CommunicatorHandle*>(comm);
  if (h == nullptr) throw sdk::InvalidArgument(absl::StrCat("ICollective ", call, ": comm is NULL"));
  if (h->magic != CommunicatorHandle::kMagic) {
    throw sdk::InvalidArgument(
        absl::StrCat("ICollective ", call, ": comm is not a live Gloo communicator"));
  }
  return *h->comm;
}

void RequireReduceOp(int32_t op) {
  if (op < 0 || op >= TEPLUG_REDUCE_COUNT_) {
    throw sdk::InvalidArgument(absl::StrFormat("%s.reduce_op %d is not a TeplugReduceOp (0..%d)",
                                               kArgs, op, TEPLUG_REDUCE_COUNT_ - 1));
  }
}

void RequireCount(const CollectiveBuffer& b, const BufferName& name, size_t expected,
                  absl::string_view why) {
  if (b.count == expected) return;
  throw sdk::InvalidArgument(
      absl::StrFormat("%s: %d elements but %s %d", name.Text(), b.count, why, expected));
}

void RequireSameDType(const CollectiveBuffer& send, const CollectiveBuffer& recv) {
  if (send.dtype == recv.dtype) return;
  throw sdk::InvalidArgument(absl::StrFormat("%s.recv: dtype %s but %s.send is %s", kArgs,
                                             sdk::DTypeName(recv.dtype), kArgs,
                                             sdk::DTypeName(send.dtype)));
}

void RequirePeer(int32_t rank, int world, const char* field) {
  if (rank >= 0 && rank < world) return;
  throw sdk::InvalidArgument(
      absl::StrFormat("%s.%s %d is not a rank of world_size %d", kArgs, field, rank, world));
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

void RunOp(int32_t op, const TeplugCollectiveArgs& args) {
  if (op < TEPLUG_OP_ALL_REDUCE || op > TEPLUG_OP_BARRIER) {
    throw sdk::InvalidArgument(absl::StrFormat(
        "ICollective run: op %d is not a collective op (all_reduce %d .. barrier %d)", op,
        TEPLUG_OP_ALL_REDUCE, TEPLUG_OP_BARRIER));
  }
  const char* const op_name = sdk::OpName(op);
  GlooCommunicator& comm = CommunicatorOf(args.comm, op_name);
  const int world = comm.world();
  const int rank = comm.rank();
  const BufferName send_name{op_name, "send"};
  const BufferName recv_name{op_name, "recv"};
  switch (op) {
    case TEPLUG_OP_BARRIER:
      return comm.Barrier();
    case TEPLUG_OP_ALL_REDUCE: {
      RequireReduceOp(args.reduce_op);
      const CollectiveBuffer send = ReadCollectiveBuffer(args.send, send_name);
      const CollectiveBuffer recv = ReadCollectiveBuffer(args.recv, recv_name);
      RequireSameDType(send, recv);
      RequireCount(recv, recv_name, send.count, "send has");
      return comm.AllReduce(send.data, recv.data, send.count, send.dtype, args.reduce_op);
    }
    case TEPLUG_OP_ALL_GATHER: {
      const CollectiveBuffer send = ReadCollectiveBuffer(args.send, send_name);
      const CollectiveBuffer recv = ReadCollectiveBuffer(args.recv, recv_name);
      RequireSameDType(send, recv);
      const std::vector<size_t> counts = ReadCounts(args.counts, world, send.count);
      RequireCount(send, send_name, counts[rank], absl::StrCat("counts[", rank, "] is"));
      RequireCount(recv, recv_name, Sum(counts),
                   args.counts ? "the sum of counts is" : "world_size * send elements is");
      return comm.AllGatherV(send.data, recv.data, counts, send.dtype);
    }
    case TEPLUG_OP_REDUCE_SCATTER: {
      RequireReduceOp(args.reduce_op);
      const CollectiveBuffer send = ReadCollectiveBuffer(args.send, send_name);
      const CollectiveBuffer recv = ReadCollectiveBuffer(args.recv, recv_name);
      RequireSameDType(send, recv);
      const std::vector<size_t> counts = ReadCounts(args.counts, world, recv.count);
      RequireCount(recv, recv_name, counts[rank], absl::StrCat("counts[", rank, "] is"));
      RequireCount(send, send_name, Sum(counts),
                   args.counts ? "the sum of counts is" : "world_size * recv elements is");
      return comm.ReduceScatterV(send.data, recv.data, counts, send.dtype, args.reduce_op);
    }
    case TEPLUG_OP_BROADCAST: {
      RequirePeer(args.root, world, "root");
      const CollectiveBuffer recv = ReadCollectiveBuffer(args.recv, recv_name);
      const void* in = nullptr;
      if (rank == args.root && args.send != nullptr) {
        const CollectiveBuffer send = ReadCollectiveBuffer(args.send, send_name);
        RequireSameDType(send, recv);
        RequireCount(recv, recv_name, send.count, "send has");
        in = send.data;
      }
      return comm.Broadcast(in, recv.data, recv.count, recv.dtype, args.root);
    }
    case TEPLUG_OP_SEND: {
      RequirePeer(args.peer, world, "peer");
      const CollectiveBuffer send = ReadCollectiveBuffer(args.send, send_name);
      return comm.Send(send.data, send.count, send.dtype, args.peer);
    }
    default: {
      RequirePeer(args.peer, world, "peer");
      const CollectiveBuffer recv = ReadCollectiveBuffer(args.recv, recv_name);
      return comm.Recv(recv.data, recv.count, recv.dtype, args.peer);
    }
  }
}

class GlooCollective : public sdk::CollectiveImpl {
 public:
  TeplugCommunicator* CreateCommunicator(const TeplugCommCreateArgs& args) override {
    auto handle = std::make_unique<CommunicatorHandle>();
    handle->comm = std::make_unique<GlooCommunicator>(JoinGlooContext(args));
    return reinterpret_cast<TeplugCommunicator*>(handle.release());
  }
  void DestroyCommunicator(TeplugCommunicator* comm) override {
    CommunicatorOf(comm, "comm_destroy");
    auto* h = reinterpret_cast<CommunicatorHandle*>(comm);
    h->magic = 0;
    std::unique_ptr<CommunicatorHandle> owned(h);  // freed whatever Quiesce says
    try {
      owned->comm->Quiesce();
    } catch (const sdk::Exception& e) {
      throw sdk::Exception(e.code(), std::string(e.what()) + " (the communicator is freed)");
    }
  }
  void Run(int32_t op, const TeplugCollectiveArgs& args) override { RunOp(op, args); }
  void GroupStart(TeplugCommunicator* comm) override {
    CommunicatorOf(comm, "group_start").GroupStart();
  }
  void GroupEnd(TeplugCommunicator* comm) override {
    CommunicatorOf(comm, "group_end").GroupEnd();
  }
};

const TeplugDeviceSupport kHostDevices[] = {
    {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CPU, TEPLUG_VENDOR_ANY, 0, 0}};

TeplugCollectiveCaps MakeCaps() {
  TeplugCollectiveCaps c = sdk::Versioned<TeplugCollectiveCaps>();
  c.devices = kHostDevices;
  c.num_devices = 1;
  c.dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP16) |
             TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_INT8) |
             TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_INT32) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_INT64) |
             TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_UINT8);
  for (int op = TEPLUG_OP_ALL_REDUCE; op <= TEPLUG_OP_BARRIER; ++op) c.ops |= TEPLUG_OP_BIT(op);
  for (int r = 0; r < TEPLUG_REDUCE_COUNT_; ++r) c.reductions |= TEPLUG_REDUCE_BIT(r);
  c.max_world_size = 0;
  return c;
}

}  // namespace

std::unique_ptr<sdk::CollectiveImpl> NewGlooCollective() {
  return std::make_unique<GlooCollective>();
}

const TeplugCollectiveCaps* GlooCollectiveCaps() {
  static const TeplugCollectiveCaps caps = MakeCaps();
  return &caps;
}

}  // namespace teplug::cpu::collective
