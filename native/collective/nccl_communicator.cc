#include "native/collective/nccl_communicator.h"

#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "native/collective/nccl_status.h"
#include "teplug/sdk/error.hpp"

namespace teplug::native::collective {
namespace {

using Clock = std::chrono::steady_clock;

// Pauses between polls: yields for the first millisecond (an op on a quiet
// GPU is usually done by then), then sleeps 50 us per round.
class Backoff {
 public:
  void Pause() {
    if (Clock::now() - start_ < std::chrono::milliseconds(1)) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

 private:
  Clock::time_point start_ = Clock::now();
};

std::string RuntimeFailure(CudaRuntimeApi& runtime, const std::string& call, int code) {
  return absl::StrCat(call, " returned ", runtime.ErrorName(code), " (", runtime.ErrorText(code),
                      ")");
}

}  // namespace

NcclCommunicator::NcclCommunicator(const CommunicatorSetup& setup, void* scratch)
    : setup_(setup), scratch_(scratch) {}

std::unique_ptr<NcclCommunicator> NcclCommunicator::Create(const CommunicatorSetup& setup,
                                                           const ncclUniqueId& id,
                                                           Clock::time_point deadline) {
  CudaRuntimeApi& runtime = *setup.runtime;
  const std::string what = absl::StrCat("native nccl comm_create (rank ", setup.rank, " of ",
                                        setup.world, ", cuda:", setup.ordinal, ")");
  if (int e = runtime.SetDevice(setup.ordinal); e != kCudaSuccess) {
    throw sdk::Unavailable(absl::StrCat(
        what, ": ", RuntimeFailure(runtime, absl::StrCat("cudaSetDevice(", setup.ordinal, ")"), e)));
  }
  void* scratch = nullptr;
  if (int e = runtime.Malloc(&scratch, sizeof(int32_t)); e != kCudaSuccess) {
    throw sdk::Exception(e == kCudaErrorMemoryAllocation ? TEPLUG_OUT_OF_MEMORY : TEPLUG_UNAVAILABLE,
                         absl::StrCat(what, ": ", RuntimeFailure(runtime, "cudaMalloc(4)", e)));
  }
  std::unique_ptr<NcclCommunicator> c(new NcclCommunicator(setup, scratch));
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  const ncclResult_t r =
      setup.nccl->CommInitRankConfig(&c->comm_, setup.world, id, setup.rank, &config);
  if (r != ncclSuccess && r != ncclInProgress) {
    c->AbortAndThrow(NcclResultCode(r), absl::StrCat(what, ": ", c->Describe("ncclCommInitRankConfig", r)));
  }
  if (c->comm_ == nullptr) {
    throw sdk::Internal(absl::StrCat(what, ": ncclCommInitRankConfig returned ",
                                     NcclResultName(r), " but no communicator"));
  }
  // The init wait is bounded by what is left of the rendezvous' deadline.
  Backoff backoff;
  while (true) {
    const ncclResult_t state = c->PollState(what);
    if (state == ncclSuccess) return c;
    if (state != ncclInProgress) {
      c->AbortAndThrow(NcclResultCode(state),
                       absl::StrCat(what, ": initialising failed: ",
                                    c->Describe("ncclCommInitRankConfig", state)));
    }
    if (Clock::now() >= deadline) {
      c->AbortAndThrow(TEPLUG_DEADLINE_EXCEEDED,
                       absl::StrCat(what, ": ncclCommInitRankConfig did not complete within ",
                                    setup.timeout.count(),
                                    " ms (every rank reached the rendezvous; one may have failed "
                                    "or be unreachable since)"));
    }
    backoff.Pause();
  }
}

NcclCommunicator::~NcclCommunicator() {
  // Only reached without Destroy (a half-made communicator in Create, or a
  // host that never destroyed it): there is no caller to report to, so
  // release without waiting on peers.
  if (comm_ != nullptr) setup_.nccl->CommAbort(comm_);
  if (scratch_ != nullptr && setup_.runtime->SetDevice(setup_.ordinal) == kCudaSuccess) {
    setup_.runtime->Free(scratch_);
  }
}

std::string NcclCommunicator::What(const std::string& op) const {
  return absl::StrCat("native nccl ", op, " (rank ", setup_.rank, " of ", setup_.world,
                      ", cuda:", setup_.ordinal, ")");
}

std::string NcclCommunicator::Describe(const char* call, ncclResult_t result) {
  std::string out = absl::StrCat(call, " returned ", NcclResultName(result));
  if (const char* text = setup_.nccl->GetErrorString(result); text != nullptr && *text != '\0') {
    absl::StrAppend(&out, " (", text, ")");
  }
  if (comm_ != nullptr) {
    if (const char* last = setup_.nccl->GetLastError(comm_); last != nullptr && *last != '\0') {
      absl::StrAppend(&out, ": ", last);
    }
  }
  return out;
}

void NcclCommunicator::AbortNow(std::string* message) {
  const ncclResult_t r = setup_.nccl->CommAbort(comm_);
  comm_ = nullptr;
  abort_at_group_end_ = false;
  absl::StrAppend(message, r == ncclSuccess ? "; the communicator was aborted"
                                            : absl::StrCat("; aborting the communicator returned ",
                                                           NcclResultName(r)));
}

void NcclCommunicator::AbortAndThrow(TeplugCode code, const std::string& message) {
  std::string full = message;
  if (comm_ != nullptr && in_group_) {
    abort_at_group_end_ = true;
    absl::StrAppend(&full, "; the communicator is aborted when the group ends");
  } else if (comm_ != nullptr) {
    AbortNow(&full);
  }
  failure_ = full;
  throw sdk::Exception(code, full);
}

ncclResult_t NcclCommunicator::PollState(const std::string& what) {
  ncclResult_t state = ncclSuccess;
  const ncclResult_t q = setup_.nccl->CommGetAsyncError(comm_, &state);
  if (q != ncclSuccess) {
    AbortAndThrow(NcclResultCode(q), absl::StrCat(what, ": ", Describe("ncclCommGetAsyncError", q)));
  }
  return state;
}

void NcclCommunicator::RequireUsable(const std::string& what) {
  if (comm_ == nullptr || abort_at_group_end_) {
    throw sdk::Exception(TEPLUG_FAILED_PRECONDITION,
                         absl::StrCat(what, ": the communicator is unusable after an earlier "
                                            "failure: ",
                                      failure_.empty() ? "it was destroyed" : failure_));
  }
  if (int e = setup_.runtime->SetDevice(setup_.ordinal); e != kCudaSuccess) {
    throw sdk::Unavailable(absl::StrCat(
        what, ": ",
        RuntimeFailure(*setup_.runtime, absl::StrCat("cudaSetDevice(", setup_.ordinal, ")"), e)));
  }
  const ncclResult_t state = PollState(what);
  if (state != ncclSuccess && state != ncclInProgress) {
    AbortAndThrow(NcclResultCode(state),
                  absl::StrCat(what, ": an earlier operation failed asynchronously: ",
                               Describe("ncclCommGetAsyncError", state)));
  }
}

void NcclCommunicator::AwaitIssued(const std::string& what, const char* call) {
  const auto deadline = Clock::now() + setup_.timeout;
  Backoff backoff;
  while (true) {
    const ncclResult_t state = PollState(what);
    if (state == ncclSuccess) return;
    if (state != ncclInProgress) {
      AbortAndThrow(NcclResultCode(state),
                    absl::StrCat(what, ": ", Describe(call, state), " (asynchronously)"));
    }
    if (Clock::now() >= deadline) {
      AbortAndThrow(TEPLUG_DEADLINE_EXCEEDED,
                    absl::StrCat(what, ": ", call, " still in progress after ",
                                 setup_.timeout.count(), " ms"));
    }
    backoff.Pause();
  }
}

void NcclCommunicator::AwaitStream(const std::string& what, cudaStream_t stream) {
  const auto deadline = Clock::now() + setup_.timeout;
  Backoff backoff;
  while (true) {
    const int q = setup_.streams->Query(stream);
    if (q == kCudaSuccess) return;
    if (q != kCudaErrorNotReady) {
      AbortAndThrow(TEPLUG_INTERNAL,
                    absl::StrCat(what, ": ", RuntimeFailure(*setup_.runtime, "cudaStreamQuery", q)));
    }
    const ncclResult_t state = PollState(what);
    if (state != ncclSuccess && state != ncclInProgress) {
      AbortAndThrow(NcclResultCode(state),
                    absl::StrCat(what, ": failed while running: ",
                                 Describe("ncclCommGetAsyncError", state)));
    }
    if (Clock::now() >= deadline) {
      AbortAndThrow(TEPLUG_DEADLINE_EXCEEDED,
                    absl::StrCat(what, ": not completed on the default stream after ",
                                 setup_.timeout.count(),
                                 " ms (a peer may have stopped or issued different ops)"));
    }
    backoff.Pause();
  }
}

void NcclCommunicator::Issue(const std::string& op, const char* call, cudaStream_t stream,
                             const std::function<ncclResult_t()>& enqueue) {
  const std::string what = What(op);
  RequireUsable(what);
  const ncclResult_t r = enqueue();
  if (r != ncclSuccess && r != ncclInProgress) {
    AbortAndThrow(NcclResultCode(r), absl::StrCat(what, ": ", Describe(call, r)));
  }
  if (in_group_) {
    group_uses_default_stream_ |= stream == nullptr;
    return;
  }
  AwaitIssued(what, call);
  if (stream == nullptr) AwaitStream(what, stream);
}

void NcclCommunicator::AllReduce(const void* send, void* recv, size_t count,
                                 const NcclDtype& dtype, ncclRedOp_t op, cudaStream_t stream) {
  Issue("all_reduce", "ncclAllReduce", stream, [&] {
    return setup_.nccl->AllReduce(send, recv, count, dtype.nccl, op, comm_, stream);
  });
}

namespace {
bool AllEqual(const std::vector<size_t>& counts) {
  for (size_t c : counts) {
    if (c != counts[0]) return false;
  }
  return true;
}
}  // namespace

void NcclCommunicator::AllGather(const void* send, void* recv, const std::vector<size_t>& counts,
                                 const NcclDtype& dtype, cudaStream_t stream) {
  NcclApi& nccl = *setup_.nccl;
  if (AllEqual(counts)) {
    Issue("all_gather", "ncclAllGather", stream,
          [&] { return nccl.AllGather(send, recv, counts[0], dtype.nccl, comm_, stream); });
    return;
  }
  Issue("all_gather", "ncclBroadcast (one per block, grouped)", stream, [&] {
    ncclResult_t first = nccl.GroupStart();
    size_t offset = 0;
    for (int root = 0; root < setup_.world && first == ncclSuccess; ++root) {
      if (counts[root] > 0) {
        void* block = static_cast<char*>(recv) + offset * dtype.bytes;
        first = nccl.Broadcast(root == setup_.rank ? send : block, block, counts[root],
                               dtype.nccl, root, comm_, stream);
      }
      offset += counts[root];
    }
    const ncclResult_t end = nccl.GroupEnd();
    return first != ncclSuccess ? first : end;
  });
}

void NcclCommunicator::ReduceScatter(const void* send, void* recv,
                                     const std::vector<size_t>& counts, const NcclDtype& dtype,
                                     ncclRedOp_t op, cudaStream_t stream) {
  NcclApi& nccl = *setup_.nccl;
  if (AllEqual(counts)) {
    Issue("reduce_scatter", "ncclReduceScatter", stream,
          [&] { return nccl.ReduceScatter(send, recv, counts[0], dtype.nccl, op, comm_, stream); });
    return;
  }
  Issue("reduce_scatter", "ncclReduce (one per block, grouped)", stream, [&] {
    ncclResult_t first = nccl.GroupStart();
    size_t offset = 0;
    for (int root = 0; root < setup_.world && first == ncclSuccess; ++root) {
      if (counts[root] > 0) {
        const void* block = static_cast<const char*>(send) + offset * dtype.bytes;
        first = nccl.Reduce(block, root == setup_.rank ? recv : nullptr, counts[root],
                            dtype.nccl, op, root, comm_, stream);
      }
      offset += counts[root];
    }
    const ncclResult_t end = nccl.GroupEnd();
    return first != ncclSuccess ? first : end;
  });
}

void NcclCommunicator::Broadcast(const void* send, void* recv, size_t count,
                                 const NcclDtype& dtype, int root, cudaStream_t stream) {
  Issue("broadcast", "ncclBroadcast", stream, [&] {
    return setup_.nccl->Broadcast(send, recv, count, dtype.nccl, root, comm_, stream);
  });
}

void NcclCommunicator::Send(const void* send, size_t count, const NcclDtype& dtype, int peer,
                            cudaStream_t stream) {
  Issue("send", "ncclSend", stream,
        [&] { return setup_.nccl->Send(send, count, dtype.nccl, peer, comm_, stream); });
}

void NcclCommunicator::Recv(void* recv, size_t count, const NcclDtype& dtype, int peer,
                            cudaStream_t stream) {
  Issue("recv", "ncclRecv", stream,
        [&] { return setup_.nccl->Recv(recv, count, dtype.nccl, peer, comm_, stream); });
}

void NcclCommunicator::Barrier() {
  Issue("barrier", "ncclAllReduce", nullptr, [&] {
    return setup_.nccl->AllReduce(scratch_, scratch_, 1, ncclInt32, ncclSum, comm_, nullptr);
  });
}

void NcclCommunicator::GroupStart() {
  const std::string what = What("group_start");
  if (in_group_) {
    throw sdk::Exception(TEPLUG_FAILED_PRECONDITION,
                         what + ": already inside a group (groups do not nest)");
  }
  RequireUsable(what);
  if (const ncclResult_t r = setup_.nccl->GroupStart(); r != ncclSuccess) {
    AbortAndThrow(NcclResultCode(r), absl::StrCat(what, ": ", Describe("ncclGroupStart", r)));
  }
  in_group_ = true;
  group_uses_default_stream_ = false;
}

void NcclCommunicator::GroupEnd() {
  const std::string what = What("group_end");
  if (!in_group_) {
    throw sdk::Exception(TEPLUG_FAILED_PRECONDITION, what + ": no group was started");
  }
  in_group_ = false;
  // NCCL's group is per thread: close it even when an op inside failed, so
  // other communicators on this thread are not left inside it.
  const ncclResult_t r = setup_.nccl->GroupEnd();
  if (abort_at_group_end_) AbortNow(&failure_);
  if (comm_ == nullptr) RequireUsable(what);  // reports the failure inside the group
  if (r != ncclSuccess && r != ncclInProgress) {
    AbortAndThrow(NcclResultCode(r), absl::StrCat(what, ": ", Describe("ncclGroupEnd", r)));
  }
  AwaitIssued(what, "ncclGroupEnd");
  if (group_uses_default_stream_) AwaitStream(what, nullptr);
}

void NcclCommunicator::Destroy() {
  const std::string what = What("comm_destroy");
  std::string first;
  TeplugCode first_code = TEPLUG_OK;
  const auto note = [&](TeplugCode code, const std::string& message) {
    if (first_code == TEPLUG_OK) {
      first_code = code;
      first = message;
    }
  };
  if (int e = setup_.runtime->SetDevice(setup_.ordinal); e != kCudaSuccess) {
    note(TEPLUG_UNAVAILABLE,
         absl::StrCat(what, ": ",
                      RuntimeFailure(*setup_.runtime,
                                     absl::StrCat("cudaSetDevice(", setup_.ordinal, ")"), e)));
  }
  if (in_group_) {  // a group left open: NCCL's per-thread group is closed first
    in_group_ = false;
    if (const ncclResult_t r = setup_.nccl->GroupEnd(); r != ncclSuccess && r != ncclInProgress) {
      note(NcclResultCode(r), absl::StrCat(what, ": ", Describe("ncclGroupEnd", r)));
    }
  }
  if (abort_at_group_end_) AbortNow(&failure_);
  if (comm_ != nullptr) {
    try {
      if (const ncclResult_t r = setup_.nccl->CommFinalize(comm_);
          r != ncclSuccess && r != ncclInProgress) {
        AbortAndThrow(NcclResultCode(r), absl::StrCat(what, ": ", Describe("ncclCommFinalize", r)));
      }
      AwaitIssued(what, "ncclCommFinalize");  // aborts on error or timeout
      if (const ncclResult_t r = setup_.nccl->CommDestroy(comm_); r != ncclSuccess) {
        const std::string why = absl::StrCat(what, ": ", Describe("ncclCommDestroy", r));
        comm_ = nullptr;  // NCCL released it whatever the result
        note(NcclResultCode(r), why);
      }
      comm_ = nullptr;
    } catch (const sdk::Exception& e) {  // AbortAndThrow: comm_ is aborted and null
      note(e.code(), e.what());
    }
  }
  if (scratch_ != nullptr) {
    if (int e = setup_.runtime->Free(scratch_); e != kCudaSuccess) {
      note(TEPLUG_INTERNAL, absl::StrCat(what, ": ", RuntimeFailure(*setup_.runtime, "cudaFree", e)));
    }
    scratch_ = nullptr;
  }
  if (failure_.empty()) failure_ = "it was destroyed";
  if (first_code != TEPLUG_OK) {
    throw sdk::Exception(first_code, first + " (everything was released)");
  }
}

}  // namespace teplug::native::collective
