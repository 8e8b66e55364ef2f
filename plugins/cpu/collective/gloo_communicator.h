// One ICollective communicator on a connected Gloo context: the ops on host
// buffers with the ICollective semantics, groups, and the failed state.
//
// Reductions travel as the widest type that keeps them exact (element_reduction.h):
// fp16/bf16 as fp32 (decoded exactly, rounded once after), integer averages
// as 128-bit sums. All-reduce runs a persistent gloo::AllreduceRing up to
// 1 MiB (ring_allreduce_cache.h: lower latency), gloo::allreduce (ring,
// segmented) above; reduce-scatter is
// an all-reduce of the whole send buffer of which each rank keeps its block
// (Gloo 0.5 has no generic reduce-scatter); all-gather(v), broadcast and
// barrier are Gloo's; send/recv are Gloo unbound buffers on a slot per
// ordered pair and message number, so messages match in FIFO order.
//
// Errors are thrown as sdk::Exception naming the op, its call number and the
// rank; a collective's timeout or transport error also says where the other
// ranks are (roll_call.h), naming those that never called it. After a
// transport error or a timeout the communicator is failed:
// later calls throw FAILED_PRECONDITION carrying the first error. Argument
// errors leave it usable. Used by one thread at a time (the ABI's rule).
#ifndef TEPLUG_PLUGINS_CPU_COLLECTIVE_GLOO_COMMUNICATOR_H_
#define TEPLUG_PLUGINS_CPU_COLLECTIVE_GLOO_COMMUNICATOR_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gloo/context.h"
#include "plugins/cpu/collective/gloo_rendezvous.h"
#include "plugins/cpu/collective/ring_allreduce_cache.h"
#include "plugins/cpu/collective/roll_call.h"
#include "teplug/collective.h"
#include "teplug/sdk/error.hpp"

namespace teplug::cpu::collective {

class GlooCommunicator {
 public:
  explicit GlooCommunicator(JoinedContext joined);
  ~GlooCommunicator();

  int rank() const;
  int world() const;

  // `dtype` is a TeplugDType the ops accept (IsServedDType); `op` a
  // TeplugReduceOp. `in` may equal `out` (in place).
  void AllReduce(const void* in, void* out, size_t count, int32_t dtype, int32_t op);
  // counts[r] elements from rank r, concatenated in rank order into `out`;
  // `in` may be `out` + this rank's offset.
  void AllGatherV(const void* in, void* out, const std::vector<size_t>& counts, int32_t dtype);
  // Block r (counts[r] elements) of the reduction of every rank's `in`
  // (sum of counts elements) lands in rank r's `out`.
  void ReduceScatterV(const void* in, void* out, const std::vector<size_t>& counts, int32_t dtype,
                      int32_t op);
  // root's `in` (NULL at the root: in place) into every rank's `out`.
  void Broadcast(const void* in, void* out, size_t count, int32_t dtype, int root);
  void Send(const void* in, size_t count, int32_t dtype, int peer);
  void Recv(void* out, size_t count, int32_t dtype, int peer);
  void Barrier();
  void GroupStart();
  void GroupEnd();
  // Called before the communicator is freed. A gloo::AllreduceRing returns
  // on one rank while its neighbours may still wait for its last message,
  // and Gloo's old buffers report a connection closed right after that
  // message as an error. So when rings were used and the communicator is
  // healthy, every rank waits here (a barrier, up to the timeout) until all
  // ranks are done before any closes its connections. Throws the barrier's
  // error; the caller frees the communicator either way.
  void Quiesce();

 private:
  // A send or receive queued in a group.
  struct PointToPoint {
    bool send;
    void* data;
    size_t bytes;
    int peer;
    std::function<std::string()> describe;
  };

  // A collective: its number on the communicator (every rank numbers its
  // collectives in the same order), its TeplugCollectiveOp, what it is, and
  // what it does.
  struct Collective {
    uint64_t number;
    int32_t op;
    std::function<std::string()> describe;
    std::function<void()> body;
  };

  // Describes call number `call`: "all_reduce #3 (fp32 sum, count 10) on
  // rank 1 of 4". Called only when a message needs it.
  std::string Describe(uint64_t call, const std::string& op, const std::string& detail) const;
  // Runs a collective now, or queues it inside a group.
  void Issue(int32_t op, std::function<std::string()> describe, std::function<void()> body);
  // Runs it, recording its progress for roll calls; when it throws, marks
  // the communicator failed, with the roll call's answer appended to a
  // timeout or transport error.
  void RunCollective(const Collective& c, const std::function<std::string()>& describe);
  // `e` with where the other ranks are appended, when `e` is a timeout or a
  // transport failure and there are other ranks to ask.
  sdk::Exception WithRollCall(const sdk::Exception& e, const Progress& mine);
  void CheckNotFailed(const std::function<std::string()>& describe) const;
  // Runs a send or receive now, or queues it inside a group.
  void IssueTransfer(PointToPoint transfer);
  // Runs transfers together: posts every one, then waits for all.
  void RunTransfers(std::vector<PointToPoint> transfers);
  void AllReduceNow(const void* in, void* out, size_t count, int32_t dtype, int32_t op,
                    uint32_t tag);
  uint32_t NextTag() { return next_tag_++; }

  std::shared_ptr<gloo::Context> context_;
  std::chrono::milliseconds timeout_;
  std::unique_ptr<RollCall> roll_call_;  // NULL for a world of one
  RingAllreduceCache small_allreduces_;
  uint64_t calls_ = 0;
  uint64_t collectives_ = 0;
  uint32_t next_tag_ = 0;
  std::vector<uint64_t> sends_to_;    // messages sent to each peer
  std::vector<uint64_t> recvs_from_;  // messages received from each peer
  bool in_group_ = false;
  std::vector<Collective> queued_collectives_;
  std::vector<PointToPoint> queued_transfers_;
  std::optional<sdk::Exception> failed_;
};

// The dtypes the ops accept: fp32, fp16, bf16, int8, int32, int64, uint8.
bool IsServedDType(int32_t dtype);
// Bytes of one element of a served dtype.
size_t DTypeBytes(int32_t dtype);

}  // namespace teplug::cpu::collective

#endif  // TEPLUG_PLUGINS_CPU_COLLECTIVE_GLOO_COMMUNICATOR_H_
