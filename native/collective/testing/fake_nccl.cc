#include "native/collective/testing/fake_nccl.h"

#include <cstring>

namespace teplug::native::collective::testing {

FakeNccl::~FakeNccl() {
  for (auto& [handle, comm] : comms_) delete comm;
}

void FakeNccl::Fail(const std::string& call, ncclResult_t result) {
  std::lock_guard<std::mutex> l(mu_);
  failures_[call] = result;
}

void FakeNccl::SetInitPolls(int polls) {
  std::lock_guard<std::mutex> l(mu_);
  init_polls_ = polls;
}

void FakeNccl::InjectAsyncError(ncclResult_t error, int polls) {
  std::lock_guard<std::mutex> l(mu_);
  for (auto& [handle, comm] : comms_) {
    comm->pending_error = error;
    comm->polls_before_error = polls;
  }
}

void FakeNccl::SetLastError(const std::string& text) {
  std::lock_guard<std::mutex> l(mu_);
  last_error_ = text;
}

std::vector<NcclCall> FakeNccl::calls() const {
  std::lock_guard<std::mutex> l(mu_);
  return calls_;
}
std::vector<NcclInit> FakeNccl::inits() const {
  std::lock_guard<std::mutex> l(mu_);
  return inits_;
}
int FakeNccl::unique_ids_made() const {
  std::lock_guard<std::mutex> l(mu_);
  return ids_made_;
}
int FakeNccl::finalized() const {
  std::lock_guard<std::mutex> l(mu_);
  return finalized_;
}
int FakeNccl::destroyed() const {
  std::lock_guard<std::mutex> l(mu_);
  return destroyed_;
}
int FakeNccl::aborted() const {
  std::lock_guard<std::mutex> l(mu_);
  return aborted_;
}
int FakeNccl::live() const {
  std::lock_guard<std::mutex> l(mu_);
  return static_cast<int>(comms_.size());
}

FakeNccl::Comm* FakeNccl::Find(ncclComm_t comm) {
  auto it = comms_.find(comm);
  return it == comms_.end() ? nullptr : it->second;
}

ncclResult_t FakeNccl::Record(NcclCall call, ncclComm_t comm) {
  std::lock_guard<std::mutex> l(mu_);
  if (comm != nullptr) {
    Comm* c = Find(comm);
    if (c == nullptr) return ncclInvalidArgument;
    call.rank = c->rank;
  }
  auto it = failures_.find(call.name);
  calls_.push_back(std::move(call));
  return it == failures_.end() ? ncclSuccess : it->second;
}

ncclResult_t FakeNccl::GetVersion(int* version) {
  *version = NCCL_VERSION_CODE;
  return ncclSuccess;
}

ncclResult_t FakeNccl::GetUniqueId(ncclUniqueId* id) {
  std::lock_guard<std::mutex> l(mu_);
  if (auto it = failures_.find("GetUniqueId"); it != failures_.end()) return it->second;
  ++ids_made_;
  // Distinct bytes per id, none zero, so a rank that used its own (zeroed or
  // made) id instead of rank 0's shows.
  for (size_t i = 0; i < sizeof id->internal; ++i) {
    id->internal[i] = static_cast<char>(1 + (ids_made_ * 31 + i * 7) % 250);
  }
  return ncclSuccess;
}

ncclResult_t FakeNccl::CommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank,
                                          ncclConfig_t* config) {
  std::lock_guard<std::mutex> l(mu_);
  inits_.push_back({rank, nranks, std::string(id.internal, sizeof id.internal),
                    config == nullptr ? -1 : config->blocking});
  if (auto it = failures_.find("CommInitRankConfig"); it != failures_.end()) {
    *comm = nullptr;
    return it->second;
  }
  auto* c = new Comm;
  c->rank = rank;
  c->polls_in_progress = init_polls_;
  *comm = reinterpret_cast<ncclComm_t>(c);
  comms_[*comm] = c;
  return ncclInProgress;
}

ncclResult_t FakeNccl::CommGetAsyncError(ncclComm_t comm, ncclResult_t* async_error) {
  std::lock_guard<std::mutex> l(mu_);
  Comm* c = Find(comm);
  if (c == nullptr) return ncclInvalidArgument;
  if (c->polls_before_error >= 0) {
    if (c->polls_before_error == 0) {
      c->state = c->pending_error;
      c->polls_before_error = -1;
    } else {
      --c->polls_before_error;
    }
  }
  if (c->state != ncclSuccess) {
    *async_error = c->state;
  } else if (c->polls_in_progress != 0) {
    if (c->polls_in_progress > 0) --c->polls_in_progress;
    *async_error = ncclInProgress;
  } else {
    *async_error = ncclSuccess;
  }
  return ncclSuccess;
}

ncclResult_t FakeNccl::CommFinalize(ncclComm_t comm) {
  NcclCall call;
  call.name = "CommFinalize";
  const ncclResult_t r = Record(call, comm);
  std::lock_guard<std::mutex> l(mu_);
  ++finalized_;
  if (Comm* c = Find(comm); c != nullptr && r == ncclSuccess) c->polls_in_progress = 1;
  return r == ncclSuccess ? ncclInProgress : r;
}

ncclResult_t FakeNccl::CommDestroy(ncclComm_t comm) {
  NcclCall call;
  call.name = "CommDestroy";
  const ncclResult_t r = Record(call, comm);
  std::lock_guard<std::mutex> l(mu_);
  if (Comm* c = Find(comm); c != nullptr) {
    delete c;
    comms_.erase(comm);
    ++destroyed_;
  }
  return r;
}

ncclResult_t FakeNccl::CommAbort(ncclComm_t comm) {
  NcclCall call;
  call.name = "CommAbort";
  const ncclResult_t r = Record(call, comm);
  std::lock_guard<std::mutex> l(mu_);
  if (Comm* c = Find(comm); c != nullptr) {
    delete c;
    comms_.erase(comm);
    ++aborted_;
  }
  return r;
}

const char* FakeNccl::GetErrorString(ncclResult_t result) {
  // NCCL's own strings for the results the tests use.
  switch (result) {
    case ncclSuccess:
      return "no error";
    case ncclUnhandledCudaError:
      return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
    case ncclSystemError:
      return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
    case ncclInternalError:
      return "internal error - please report this issue to the NCCL developers";
    case ncclInvalidArgument:
      return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclInvalidUsage:
      return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError:
      return "remote process exited or there was a network error";
    case ncclInProgress:
      return "NCCL operation in progress";
    default:
      return "unknown result code";
  }
}

const char* FakeNccl::GetLastError(ncclComm_t) {
  std::lock_guard<std::mutex> l(mu_);
  return last_error_.c_str();
}

ncclResult_t FakeNccl::AllReduce(const void* send, void* recv, size_t count, ncclDataType_t dtype,
                                 ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  return Record({"AllReduce", -1, send, recv, count, dtype, op, -1, stream}, comm);
}
ncclResult_t FakeNccl::AllGather(const void* send, void* recv, size_t send_count,
                                 ncclDataType_t dtype, ncclComm_t comm, cudaStream_t stream) {
  return Record({"AllGather", -1, send, recv, send_count, dtype, -1, -1, stream}, comm);
}
ncclResult_t FakeNccl::ReduceScatter(const void* send, void* recv, size_t recv_count,
                                     ncclDataType_t dtype, ncclRedOp_t op, ncclComm_t comm,
                                     cudaStream_t stream) {
  return Record({"ReduceScatter", -1, send, recv, recv_count, dtype, op, -1, stream}, comm);
}
ncclResult_t FakeNccl::Broadcast(const void* send, void* recv, size_t count, ncclDataType_t dtype,
                                 int root, ncclComm_t comm, cudaStream_t stream) {
  return Record({"Broadcast", -1, send, recv, count, dtype, -1, root, stream}, comm);
}
ncclResult_t FakeNccl::Reduce(const void* send, void* recv, size_t count, ncclDataType_t dtype,
                              ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream) {
  return Record({"Reduce", -1, send, recv, count, dtype, op, root, stream}, comm);
}
ncclResult_t FakeNccl::Send(const void* send, size_t count, ncclDataType_t dtype, int peer,
                            ncclComm_t comm, cudaStream_t stream) {
  return Record({"Send", -1, send, nullptr, count, dtype, -1, peer, stream}, comm);
}
ncclResult_t FakeNccl::Recv(void* recv, size_t count, ncclDataType_t dtype, int peer,
                            ncclComm_t comm, cudaStream_t stream) {
  return Record({"Recv", -1, nullptr, recv, count, dtype, -1, peer, stream}, comm);
}
ncclResult_t FakeNccl::GroupStart() {
  NcclCall call;
  call.name = "GroupStart";
  return Record(call, nullptr);
}
ncclResult_t FakeNccl::GroupEnd() {
  NcclCall call;
  call.name = "GroupEnd";
  return Record(call, nullptr);
}

void FakeStreamPoller::SetPollsUntilDone(int polls) {
  std::lock_guard<std::mutex> l(mu_);
  polls_until_done_ = polls;
}
void FakeStreamPoller::Fail(int cuda_error) {
  std::lock_guard<std::mutex> l(mu_);
  error_ = cuda_error;
}
int FakeStreamPoller::queries() const {
  std::lock_guard<std::mutex> l(mu_);
  return queries_;
}
int FakeStreamPoller::Query(void*) {
  std::lock_guard<std::mutex> l(mu_);
  ++queries_;
  if (error_ != 0) return error_;
  if (polls_until_done_ < 0) return kCudaErrorNotReady;
  if (pending_ < polls_until_done_) {
    ++pending_;
    return kCudaErrorNotReady;
  }
  pending_ = 0;
  return 0;
}

}  // namespace teplug::native::collective::testing
