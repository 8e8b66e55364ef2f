// The seam between the native ICollective and NCCL: exactly the NCCL calls the
// collective makes, as a C++ interface with NCCL's own types (nccl.h is there
// at build time; the library need not be). The real one (nccl_library.h) is
// libnccl.so.2 loaded at run time with dlopen, so a CUDA build of teplug starts
// where NCCL is not installed; host tests use a fake (testing/fake_nccl.h)
// that records every call and scripts NCCL's answers.
//
// Every method is the NCCL function of the same name without the "nccl"
// prefix, with the same arguments and result.
#ifndef TEPLUG_NATIVE_COLLECTIVE_NCCL_API_H_
#define TEPLUG_NATIVE_COLLECTIVE_NCCL_API_H_

#include <nccl.h>

#include <cstddef>

namespace teplug::native::collective {

class NcclApi {
 public:
  virtual ~NcclApi() = default;
  virtual ncclResult_t GetVersion(int* version) = 0;
  virtual ncclResult_t GetUniqueId(ncclUniqueId* id) = 0;
  virtual ncclResult_t CommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank,
                                          ncclConfig_t* config) = 0;
  virtual ncclResult_t CommGetAsyncError(ncclComm_t comm, ncclResult_t* async_error) = 0;
  virtual ncclResult_t CommFinalize(ncclComm_t comm) = 0;
  virtual ncclResult_t CommDestroy(ncclComm_t comm) = 0;
  virtual ncclResult_t CommAbort(ncclComm_t comm) = 0;
  virtual const char* GetErrorString(ncclResult_t result) = 0;
  virtual const char* GetLastError(ncclComm_t comm) = 0;
  virtual ncclResult_t AllReduce(const void* send, void* recv, size_t count, ncclDataType_t dtype,
                                 ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) = 0;
  virtual ncclResult_t AllGather(const void* send, void* recv, size_t send_count,
                                 ncclDataType_t dtype, ncclComm_t comm, cudaStream_t stream) = 0;
  virtual ncclResult_t ReduceScatter(const void* send, void* recv, size_t recv_count,
                                     ncclDataType_t dtype, ncclRedOp_t op, ncclComm_t comm,
                                     cudaStream_t stream) = 0;
  virtual ncclResult_t Broadcast(const void* send, void* recv, size_t count, ncclDataType_t dtype,
                                 int root, ncclComm_t comm, cudaStream_t stream) = 0;
  virtual ncclResult_t Reduce(const void* send, void* recv, size_t count, ncclDataType_t dtype,
                              ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream) = 0;
  virtual ncclResult_t Send(const void* send, size_t count, ncclDataType_t dtype, int peer,
                            ncclComm_t comm, cudaStream_t stream) = 0;
  virtual ncclResult_t Recv(void* recv, size_t count, ncclDataType_t dtype, int peer,
                            ncclComm_t comm, cudaStream_t stream) = 0;
  virtual ncclResult_t GroupStart() = 0;
  virtual ncclResult_t GroupEnd() = 0;
};

}  // namespace teplug::native::collective

#endif  // TEPLUG_NATIVE_COLLECTIVE_NCCL_API_H_
