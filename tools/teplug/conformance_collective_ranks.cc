#include "tools/teplug/conformance_collective_ranks.h"

#include <atomic>
#include <chrono>
#include <optional>
#include <cstring>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/log/untrusted_text.h"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "tools/teplug/conformance_contract.h"
#include "tools/teplug/float_format_codecs.h"
#include "tools/teplug/rank_group.h"

namespace teplug::cli {
namespace {

// The rendezvous and every op's deadline.
constexpr int64_t kTimeoutMs = 20000;

// Elements of the case's buffers, as doubles (exact for the small integers
// the inputs hold).
void Store(void* data, int32_t dtype, int64_t i, double v) {
  auto* b = static_cast<uint8_t*>(data);
  switch (dtype) {
    case TEPLUG_DTYPE_FP32: {
      const float f = static_cast<float>(v);
      std::memcpy(b + 4 * i, &f, 4);
      return;
    }
    case TEPLUG_DTYPE_FP16:
    case TEPLUG_DTYPE_BF16: {
      const uint16_t h = dtype == TEPLUG_DTYPE_FP16 ? EncodeFp16(v) : EncodeBf16(v);
      std::memcpy(b + 2 * i, &h, 2);
      return;
    }
    case TEPLUG_DTYPE_INT32: {
      const int32_t x = static_cast<int32_t>(v);
      std::memcpy(b + 4 * i, &x, 4);
      return;
    }
    case TEPLUG_DTYPE_INT64: {
      const int64_t x = static_cast<int64_t>(v);
      std::memcpy(b + 8 * i, &x, 8);
      return;
    }
    case TEPLUG_DTYPE_INT8:
      b[i] = static_cast<uint8_t>(static_cast<int8_t>(v));
      return;
    default:  // uint8
      b[i] = static_cast<uint8_t>(v);
  }
}

double Load(const void* data, int32_t dtype, int64_t i) {
  const auto* b = static_cast<const uint8_t*>(data);
  switch (dtype) {
    case TEPLUG_DTYPE_FP32: {
      float f;
      std::memcpy(&f, b + 4 * i, 4);
      return f;
    }
    case TEPLUG_DTYPE_FP16:
    case TEPLUG_DTYPE_BF16: {
      uint16_t h;
      std::memcpy(&h, b + 2 * i, 2);
      return dtype == TEPLUG_DTYPE_FP16 ? DecodeFp16(h) : DecodeBf16(h);
    }
    case TEPLUG_DTYPE_INT32: {
      int32_t x;
      std::memcpy(&x, b + 4 * i, 4);
      return x;
    }
    case TEPLUG_DTYPE_INT64: {
      int64_t x;
      std::memcpy(&x, b + 8 * i, 8);
      return static_cast<double>(x);
    }
    case TEPLUG_DTYPE_INT8:
      return static_cast<int8_t>(b[i]);
    default:
      return b[i];
  }
}

// A rank-1 buffer of `n` elements that owns its bytes. Received buffers start
// as a pattern no oracle produces (all bytes 0x5A), so an op that writes
// nothing shows.
struct Buffer {
  Buffer(int32_t dtype, int64_t n)
      : bytes(static_cast<size_t>(n * sdk::DTypeBits(dtype) / 8), 0x5A) {
    view = sdk::Versioned<TeplugTensor>();
    view.dtype = dtype;
    view.rank = 1;
    view.shape[0] = n;
    view.data = bytes.data();
  }
  std::vector<uint8_t> bytes;
  TeplugTensor view;
};

// A key prefix no other communicator of this process uses.
std::string UniquePrefix() {
  static std::atomic<uint64_t> next{0};
  return absl::StrCat("teplug-conformance/", next++, "/");
}

// One rank of the case: creates its communicator, runs the op(s), destroys
// it; `received` gets what arrived in its recv buffer.
absl::Status RunRank(TeplugCollectiveV1* coll, const CollectiveCase& c, int rank,
                     const TeplugRendezvous* rv, const std::vector<double>& input,
                     const CaseDevice* where, std::atomic<int>* arrived,
                     std::vector<double>* received) {
  // On a device each rank has a stream of its own (ranks on one stream
  // would wait for each other in order).
  std::optional<CaseDevice> mine;
  if (where != nullptr) {
    mine = *where;
    if (sdk::OwnedError e = where->ctx->CreateStream(&mine->stream))
      return absl::InternalError(absl::StrCat("creating a stream on ", where->spelling, ": ",
                                              core::EscapeUntrustedText(e.message())));
  }
  struct StreamGone {
    std::optional<CaseDevice>& d;
    ~StreamGone() {
      if (d) d->ctx->DestroyStream(d->stream);  // the rank is over: nothing to report to
    }
  } stream_gone{mine};
  TeplugCommCreateArgs create = sdk::Versioned<TeplugCommCreateArgs>();
  create.rank = rank;
  create.world_size = c.world;
  create.rendezvous = rv;
  create.device = where == nullptr ? nullptr : &where->device;
  TeplugCommunicator* comm = nullptr;
  if (std::string e = TakeError(coll->vtbl->comm_create(coll, &create, &comm), "comm_create");
      !e.empty())
    return absl::InternalError(e);
  if (comm == nullptr)
    return absl::InternalError("comm_create succeeded but wrote no communicator");
  Buffer send(c.dtype, static_cast<int64_t>(input.size()));
  for (size_t i = 0; i < input.size(); ++i) Store(send.bytes.data(), c.dtype, i, input[i]);
  const std::vector<int64_t> counts = Counts(c);
  int64_t recv_count = c.count;
  if (c.op == "all_gather") {
    recv_count = 0;
    for (int64_t n : counts) recv_count += n;
  } else if (c.op == "reduce_scatter") {
    recv_count = counts[rank];
  }
  Buffer recv(c.dtype, recv_count);
  DeviceStaging staging(mine ? &*mine : nullptr);
  std::vector<StagedTensor> staged;
  if (!send.bytes.empty()) staged.push_back({&send.view, false});
  if (!recv.bytes.empty()) staged.push_back({&recv.view, true});
  if (std::string e = staging.Stage(staged); !e.empty()) {
    const std::string destroyed =
        TakeError(coll->vtbl->comm_destroy(coll, comm), "comm_destroy");
    return absl::InternalError(destroyed.empty() ? e : absl::StrCat(e, "; then ", destroyed));
  }
  TeplugCollectiveArgs a = sdk::Versioned<TeplugCollectiveArgs>();
  a.stream = staging.stream();
  a.comm = comm;
  a.send = &send.view;
  a.recv = &recv.view;
  a.reduce_op = c.reduce;
  a.counts = c.uneven ? counts.data() : nullptr;
  a.root = c.world - 1;
  auto run = [&](int32_t op, int32_t peer) {
    TeplugCollectiveArgs args = a;
    args.peer = peer;
    return TakeError(coll->vtbl->run(coll, op, &args), sdk::OpName(op));
  };
  std::string problem;
  if (c.op == "barrier") {
    // Ranks arrive 20 ms apart; after the barrier every rank must see all arrived.
    std::this_thread::sleep_for(std::chrono::milliseconds(20 * rank));
    ++*arrived;
    problem = run(TEPLUG_OP_BARRIER, 0);
    if (problem.empty() && *arrived != c.world)
      problem = absl::StrFormat("barrier returned when %d of %d ranks had reached it",
                                arrived->load(), c.world);
  } else if (c.op == "send_recv" && c.world == 2) {
    // Rank 0 sends then receives; rank 1 receives then sends.
    const int peer = 1 - rank;
    problem = rank == 0 ? run(TEPLUG_OP_SEND, peer) : run(TEPLUG_OP_RECV, peer);
    if (problem.empty())
      problem = rank == 0 ? run(TEPLUG_OP_RECV, peer) : run(TEPLUG_OP_SEND, peer);
  } else if (c.op == "send_recv") {
    // A ring: to the next rank, from the previous, issued together.
    problem = TakeError(coll->vtbl->group_start(coll, comm), "group_start");
    if (problem.empty()) problem = run(TEPLUG_OP_SEND, (rank + 1) % c.world);
    if (problem.empty()) problem = run(TEPLUG_OP_RECV, (rank + c.world - 1) % c.world);
    if (problem.empty()) problem = TakeError(coll->vtbl->group_end(coll, comm), "group_end");
  } else {
    const int32_t op = c.op == "all_reduce"       ? TEPLUG_OP_ALL_REDUCE
                       : c.op == "all_gather"     ? TEPLUG_OP_ALL_GATHER
                       : c.op == "reduce_scatter" ? TEPLUG_OP_REDUCE_SCATTER
                                                  : TEPLUG_OP_BROADCAST;
    problem = run(op, 0);
  }
  if (problem.empty()) problem = staging.Finish();
  const std::string destroyed = TakeError(coll->vtbl->comm_destroy(coll, comm), "comm_destroy");
  if (!problem.empty()) return absl::InternalError(problem);
  if (!destroyed.empty()) return absl::InternalError(destroyed);
  received->resize(static_cast<size_t>(recv_count));
  for (int64_t i = 0; i < recv_count; ++i) (*received)[i] = Load(recv.bytes.data(), c.dtype, i);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::vector<double>>> RunOnRanks(
    TeplugCollectiveV1* collective, const CollectiveCase& c,
    const std::vector<std::vector<double>>& inputs, const CaseDevice* where) {
  RankGroup group(c.world);
  const std::string prefix = UniquePrefix();
  TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
  rv.kv = group.kv_store();
  rv.kv_prefix = prefix.c_str();
  rv.timeout_ms = kTimeoutMs;
  std::vector<std::vector<double>> got(static_cast<size_t>(c.world));
  std::atomic<int> arrived{0};
  const absl::Status ran = group.Run([&](int rank) {
    return RunRank(collective, c, rank, &rv, inputs[rank], where, &arrived, &got[rank]);
  });
  if (!ran.ok()) return ran;
  return got;
}

}  // namespace teplug::cli
