// Reference (oracle) collectives on host memory: ranks are threads of one
// process or separate processes on one host, joined through a shared-memory
// region (shared_region.h) named by a path every rank is given.
//
// Semantics are those of NCCL-style collectives, made deterministic: every
// reduction runs in rank order 0..world-1 with the rules of reduction.h, so
// all ranks get bit-identical results and reruns reproduce them. Every wait on
// a peer has a timeout (CommunicatorOptions::timeout); a peer that died or
// called something else produces an error naming the operation and the rank,
// never a hang. After such an error the communicator is failed: every later
// call returns FailedPrecondition carrying the first error, because peers may
// be stopped halfway through an operation and the region state is unknown.
//
// A Communicator is used by one thread (its rank) at a time. Buffers are host
// memory; the CPU "stream" of the C ABI is null, so every call is synchronous
// (except calls between GroupStart and GroupEnd, which run at GroupEnd).
#ifndef TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_COMMUNICATOR_H_
#define TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_COMMUNICATOR_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "plugins/reference/collective/data_type.h"
#include "plugins/reference/collective/op_descriptor.h"
#include "plugins/reference/collective/point_to_point.h"
#include "plugins/reference/collective/shared_region.h"

namespace teplug::reference::collective {

struct CommunicatorOptions {
  // Longest time any call waits for peers without progress (joining in
  // Create, each barrier step, send/recv progress).
  std::chrono::nanoseconds timeout = std::chrono::seconds(60);
  // Size of each rank's staging slot and of each send/recv channel buffer;
  // larger messages are moved in chunks of this size. Must be a multiple of 8
  // and at least 8 * world (ReduceScatter splits a slot into world parts).
  // Every rank must pass the same value. The region holds
  // (world + world^2) slots, allocated lazily by the kernel.
  size_t chunk_bytes = 256 * 1024;
  // Rank 0 removes the region's file as soon as every rank has mapped it, so
  // no file is left behind even if the processes crash later.
  bool unlink_region_after_join = true;
};

class Communicator {
 public:
  // Maps the region at `region_path` (created if absent; see rendezvous.h for
  // choosing a unique path), joins as `rank` of `world` and waits until every
  // rank has joined. Fails on bad arguments, a duplicate rank or stale region,
  // mismatched options, or when ranks are still missing after the timeout
  // (the error lists them).
  static absl::StatusOr<std::unique_ptr<Communicator>> Create(
      const std::string& region_path, int rank, int world,
      const CommunicatorOptions& options = CommunicatorOptions());

  int rank() const { return rank_; }
  int world() const { return region_->world(); }
  const std::string& region_path() const { return region_->path(); }

  // out[i] = reduction of in[i] over all ranks. `in == out` (in place) is
  // allowed. Types and operators: see reduction.h.
  absl::Status AllReduce(const void* in, void* out, size_t count, DataType type, ReduceOp op);
  // Every rank contributes `count` elements; out holds world * count, rank
  // r's at offset r * count. In place: in == out + rank * count.
  absl::Status AllGather(const void* in, void* out, size_t count, DataType type);
  // Uneven all-gather: rank r contributes counts[r] elements (counts has
  // world entries, identical on every rank); out is their concatenation in
  // rank order. In place: in == out + (counts[0] + ... + counts[rank-1]).
  absl::Status AllGatherV(const void* in, void* out, const std::vector<size_t>& counts,
                          DataType type);
  // in holds world * count elements; out gets block `rank` of the element-wise
  // reduction. In place: out == in + rank * count.
  absl::Status ReduceScatter(const void* in, void* out, size_t count, DataType type, ReduceOp op);
  // Uneven reduce-scatter: in holds counts[0] + ... + counts[world-1]
  // elements; rank r gets the reduction of its block of counts[r] elements.
  absl::Status ReduceScatterV(const void* in, void* out, const std::vector<size_t>& counts,
                              DataType type, ReduceOp op);
  // Copies `count` elements of root's `in` into every rank's `out` (`in` is
  // read on the root only; in == out is allowed).
  absl::Status Broadcast(const void* in, void* out, size_t count, DataType type, int root);
  // Sends `count` elements to `peer`, which must post a Recv of the same size.
  // Outside a group it returns once the data is staged in the channel.
  absl::Status Send(const void* data, size_t count, DataType type, int peer);
  // Receives `count` elements from `peer`.
  absl::Status Recv(void* data, size_t count, DataType type, int peer);
  // Returns once every rank has entered Barrier.
  absl::Status Barrier();
  // Starts (or nests) a group: later calls are queued, validated at once but
  // executed at the matching outermost GroupEnd.
  absl::Status GroupStart();
  // Ends a group. At the outermost level it runs the queued collectives in
  // call order, then all queued sends/receives together with one progress
  // loop, and returns the first error.
  absl::Status GroupEnd();

 private:
  Communicator(std::unique_ptr<SharedRegion> region, int rank, const CommunicatorOptions& options);

  // Waits until every rank has joined the region (in Create).
  absl::Status WaitForAllRanksToJoin();
  // Enters the next barrier step and waits until every rank has entered it.
  // `what` names the operation for the timeout error.
  absl::Status BarrierStep(const std::string& what);
  // Publishes `descriptor`, waits for all ranks and checks that they all run
  // the same call. Returns the error, which also fails the communicator.
  absl::Status BeginCollective(OpDescriptor descriptor);
  // Shared body of AllGather and AllGatherV, byte-based.
  absl::Status RunAllGather(const OpDescriptor& descriptor, const unsigned char* in,
                            unsigned char* out, const std::vector<size_t>& counts);
  // Shared body of ReduceScatter and ReduceScatterV.
  absl::Status RunReduceScatter(const OpDescriptor& descriptor, const unsigned char* in,
                                unsigned char* out, const std::vector<size_t>& counts);
  // Runs `body` now, or queues it when inside a group. Any error it returns
  // fails the communicator.
  absl::Status RunOrQueue(std::function<absl::Status()> body);
  // Queues (in a group) or runs a single transfer.
  absl::Status SubmitTransfer(Transfer transfer);
  // Records a fatal error, returns it.
  absl::Status Fail(absl::Status status);
  // FailedPrecondition carrying the first fatal error, once there was one.
  absl::Status CheckHealthy() const;
  // Checks that `peer` names a rank, for Send/Recv/Broadcast.
  absl::Status CheckRank(int peer, const char* what, const char* role) const;
  // "AllReduce #3 on rank 1 of 4 (region /dev/shm/...)" for error messages.
  std::string Context(const std::string& what) const;

  std::unique_ptr<SharedRegion> region_;
  int rank_;
  CommunicatorOptions options_;
  uint64_t barrier_epoch_ = 0;     // barriers this rank has entered
  uint64_t collective_calls_ = 0;  // collectives started (for descriptors)
  int group_depth_ = 0;
  std::vector<std::function<absl::Status()>> queued_collectives_;
  std::vector<Transfer> queued_transfers_;
  absl::Status failure_;  // first fatal error; ok while healthy
};

}  // namespace teplug::reference::collective

#endif  // TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_COMMUNICATOR_H_
