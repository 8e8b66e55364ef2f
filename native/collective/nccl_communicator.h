// One rank's NCCL communicator and the ops on it, with NCCL's failure modes
// turned into teplug errors instead of hangs.
//
//  - Created NON-BLOCKING (ncclConfig_t.blocking = 0): ncclCommInitRankConfig
//    and every later NCCL call return at once, and the communicator's state is
//    polled with ncclCommGetAsyncError until it leaves ncclInProgress. Each
//    wait is bounded by the rendezvous' timeout.
//  - Stream semantics: an op is ordered on its stream (a cudaStream_t) and
//    returns once NCCL accepted it; with stream NULL it runs on the legacy
//    default stream and has COMPLETED on return (cudaStreamQuery polled).
//    Inside a group nothing is waited for until GroupEnd.
//  - Errors: an NCCL call failing, an asynchronous error seen while waiting
//    or at the start of the next op (an op that failed on the GPU after its
//    call returned), and a wait past the timeout each ABORT the communicator
//    (ncclCommAbort) and throw the mapped teplug code (nccl_status.h;
//    DEADLINE_EXCEEDED for timeouts) with NCCL's error string and last error.
//    Every later call then fails with FAILED_PRECONDITION naming that first
//    failure. Inside a group the abort waits until the group is closed
//    (GroupEnd or Destroy closes NCCL's per-thread group first).
//  - Destroy finalizes (flushing issued work) and destroys NCCL's
//    communicator, or aborts it when finalizing fails or times out, and frees
//    the barrier's device word; it reports the first failure after freeing
//    everything.
//
// Calls are serialized by the caller (the ICollective contract).
#ifndef TEPLUG_NATIVE_COLLECTIVE_NCCL_COMMUNICATOR_H_
#define TEPLUG_NATIVE_COLLECTIVE_NCCL_COMMUNICATOR_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "native/collective/nccl_api.h"
#include "native/collective/nccl_types.h"
#include "native/collective/stream_poller.h"
#include "native/device/cuda_runtime_api.h"

namespace teplug::native::collective {

// What a communicator is made of. The three interfaces must outlive it.
struct CommunicatorSetup {
  NcclApi* nccl = nullptr;
  CudaRuntimeApi* runtime = nullptr;
  StreamPoller* streams = nullptr;
  int ordinal = 0;  // the CUDA device
  int rank = 0;
  int world = 1;
  std::chrono::milliseconds timeout{0};  // every wait, after creation too
};

class NcclCommunicator {
 public:
  // Joins NCCL's communicator for `id`, waiting until `deadline`. Throws
  // sdk::Exception (and leaves nothing allocated) on failure.
  static std::unique_ptr<NcclCommunicator> Create(const CommunicatorSetup& setup,
                                                  const ncclUniqueId& id,
                                                  std::chrono::steady_clock::time_point deadline);
  // Aborts and frees what Destroy did not (a host that never destroyed it).
  ~NcclCommunicator();
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  int rank() const { return setup_.rank; }
  int world() const { return setup_.world; }
  int ordinal() const { return setup_.ordinal; }

  void AllReduce(const void* send, void* recv, size_t count, const NcclDtype& dtype,
                 ncclRedOp_t op, cudaStream_t stream);
  // counts[r]: rank r's block. Equal blocks are one ncclAllGather; uneven
  // ones an NCCL group of one ncclBroadcast per non-empty block (root r).
  void AllGather(const void* send, void* recv, const std::vector<size_t>& counts,
                 const NcclDtype& dtype, cudaStream_t stream);
  // counts[r]: rank r's block of the reduction. Equal blocks are one
  // ncclReduceScatter; uneven ones a group of one ncclReduce per non-empty
  // block (root r).
  void ReduceScatter(const void* send, void* recv, const std::vector<size_t>& counts,
                     const NcclDtype& dtype, ncclRedOp_t op, cudaStream_t stream);
  void Broadcast(const void* send, void* recv, size_t count, const NcclDtype& dtype, int root,
                 cudaStream_t stream);
  void Send(const void* send, size_t count, const NcclDtype& dtype, int peer, cudaStream_t stream);
  void Recv(void* recv, size_t count, const NcclDtype& dtype, int peer, cudaStream_t stream);
  // An all-reduce of one device word on the default stream, waited for
  // (outside a group).
  void Barrier();
  // FAILED_PRECONDITION when already in a group / not in one.
  void GroupStart();
  void GroupEnd();
  // Frees everything; throws the first failure after that.
  void Destroy();

 private:
  NcclCommunicator(const CommunicatorSetup& setup, void* scratch);

  // "native nccl <op> (rank r of w, cuda:n)".
  std::string What(const std::string& op) const;
  // Throws when aborted before; makes the device current; surfaces an
  // asynchronous error of earlier work.
  void RequireUsable(const std::string& what);
  // Runs `enqueue` (NCCL calls), then waits as the stream semantics say.
  void Issue(const std::string& op, const char* call, cudaStream_t stream,
             const std::function<ncclResult_t()>& enqueue);
  // ncclCommGetAsyncError's state of the communicator; aborts and throws when
  // the query itself fails.
  ncclResult_t PollState(const std::string& what);
  // Polls ncclCommGetAsyncError until the state leaves ncclInProgress.
  void AwaitIssued(const std::string& what, const char* call);
  // Polls cudaStreamQuery(stream) and the async error until the stream is done.
  void AwaitStream(const std::string& what, cudaStream_t stream);
  // Aborts the communicator, remembers why, throws. Inside a group the abort
  // waits for GroupEnd (abort_at_group_end_): NCCL would queue an abort made
  // inside its open group into that group, to release the communicator when
  // the group ends, ahead of the work queued for it.
  [[noreturn]] void AbortAndThrow(TeplugCode code, const std::string& message);
  // Aborts comm_ now and notes the result in `message`.
  void AbortNow(std::string* message);
  // "<call> returned <name> (<NCCL's string>)[: <last error>]".
  std::string Describe(const char* call, ncclResult_t result);

  CommunicatorSetup setup_;
  ncclComm_t comm_ = nullptr;  // null once aborted or destroyed
  void* scratch_ = nullptr;    // the barrier's device int32
  std::string failure_;        // why it was aborted
  bool in_group_ = false;
  bool group_uses_default_stream_ = false;
  bool abort_at_group_end_ = false;  // failed inside the group; comm_ is aborted at its end
};

}  // namespace teplug::native::collective

#endif  // TEPLUG_NATIVE_COLLECTIVE_NCCL_COMMUNICATOR_H_
