// An NCCL in host memory for tests without a GPU: communicators are tokens
// with a scripted state, every call is recorded with its arguments (so tests
// check how teplug's args were translated), and NCCL's answers can be
// scripted: a failing call, an initialisation that stays in progress (for
// some polls or forever), an asynchronous error appearing after some polls.
// It moves no data. Thread-safe: ranks run as threads sharing one fake.
#ifndef TEPLUG_NATIVE_COLLECTIVE_TESTING_FAKE_NCCL_H_
#define TEPLUG_NATIVE_COLLECTIVE_TESTING_FAKE_NCCL_H_

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "native/collective/nccl_api.h"
#include "native/collective/stream_poller.h"

namespace teplug::native::collective::testing {

// One recorded NCCL call.
struct NcclCall {
  std::string name;  // "AllReduce", "GroupStart", ...
  int rank = -1;     // the communicator's rank; -1 for group calls
  const void* send = nullptr;
  void* recv = nullptr;
  size_t count = 0;
  int dtype = -1;
  int op = -1;
  int root_or_peer = -1;
  cudaStream_t stream = nullptr;
};

// What ncclCommInitRankConfig was given.
struct NcclInit {
  int rank = -1;
  int nranks = 0;
  std::string id;  // the ncclUniqueId's bytes
  int blocking = -1;
};

class FakeNccl final : public NcclApi {
 public:
  FakeNccl() = default;
  ~FakeNccl() override;

  // --- scripts
  // The named call ("CommInitRankConfig", "AllReduce", "GroupEnd", ...)
  // returns `result` from now on.
  void Fail(const std::string& call, ncclResult_t result);
  // A new communicator answers ncclInProgress to this many state polls
  // before ncclSuccess; -1: forever.
  void SetInitPolls(int polls);
  // Every live communicator's state becomes `error` after `polls` more polls
  // of it.
  void InjectAsyncError(ncclResult_t error, int polls = 0);
  // ncclGetLastError's text.
  void SetLastError(const std::string& text);

  // --- observations
  std::vector<NcclCall> calls() const;
  std::vector<NcclInit> inits() const;
  int unique_ids_made() const;
  int finalized() const;
  int destroyed() const;
  int aborted() const;
  // Communicators initialised and not yet destroyed or aborted.
  int live() const;

  // --- NcclApi
  ncclResult_t GetVersion(int* version) override;
  ncclResult_t GetUniqueId(ncclUniqueId* id) override;
  ncclResult_t CommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank,
                                  ncclConfig_t* config) override;
  ncclResult_t CommGetAsyncError(ncclComm_t comm, ncclResult_t* async_error) override;
  ncclResult_t CommFinalize(ncclComm_t comm) override;
  ncclResult_t CommDestroy(ncclComm_t comm) override;
  ncclResult_t CommAbort(ncclComm_t comm) override;
  const char* GetErrorString(ncclResult_t result) override;
  const char* GetLastError(ncclComm_t comm) override;
  ncclResult_t AllReduce(const void* send, void* recv, size_t count, ncclDataType_t dtype,
                         ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) override;
  ncclResult_t AllGather(const void* send, void* recv, size_t send_count, ncclDataType_t dtype,
                         ncclComm_t comm, cudaStream_t stream) override;
  ncclResult_t ReduceScatter(const void* send, void* recv, size_t recv_count,
                             ncclDataType_t dtype, ncclRedOp_t op, ncclComm_t comm,
                             cudaStream_t stream) override;
  ncclResult_t Broadcast(const void* send, void* recv, size_t count, ncclDataType_t dtype,
                         int root, ncclComm_t comm, cudaStream_t stream) override;
  ncclResult_t Reduce(const void* send, void* recv, size_t count, ncclDataType_t dtype,
                      ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream) override;
  ncclResult_t Send(const void* send, size_t count, ncclDataType_t dtype, int peer,
                    ncclComm_t comm, cudaStream_t stream) override;
  ncclResult_t Recv(void* recv, size_t count, ncclDataType_t dtype, int peer, ncclComm_t comm,
                    cudaStream_t stream) override;
  ncclResult_t GroupStart() override;
  ncclResult_t GroupEnd() override;

 private:
  struct Comm {
    int rank = 0;
    int polls_in_progress = 0;  // -1: forever
    ncclResult_t pending_error = ncclSuccess;
    int polls_before_error = -1;  // -1: no error pending
    ncclResult_t state = ncclSuccess;
  };
  // Records `call` on `comm`; returns the scripted result (0 if none).
  ncclResult_t Record(NcclCall call, ncclComm_t comm);
  Comm* Find(ncclComm_t comm);  // requires mu_

  mutable std::mutex mu_;
  std::map<std::string, ncclResult_t> failures_;
  int init_polls_ = 0;
  std::string last_error_;
  std::map<ncclComm_t, Comm*> comms_;
  std::vector<NcclCall> calls_;
  std::vector<NcclInit> inits_;
  int ids_made_ = 0;
  int finalized_ = 0;
  int destroyed_ = 0;
  int aborted_ = 0;
};

// A StreamPoller whose streams are done after a scripted number of queries
// (-1: never) or answer a scripted error; counts the queries.
class FakeStreamPoller final : public StreamPoller {
 public:
  void SetPollsUntilDone(int polls);
  void Fail(int cuda_error);
  int queries() const;
  int Query(void* stream) override;

 private:
  mutable std::mutex mu_;
  int polls_until_done_ = 0;
  int error_ = 0;
  int queries_ = 0;
  int pending_ = 0;
};

}  // namespace teplug::native::collective::testing

#endif  // TEPLUG_NATIVE_COLLECTIVE_TESTING_FAKE_NCCL_H_
