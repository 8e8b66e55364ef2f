// ICollective v1 on NCCL: communicators over the CUDA device of
// TeplugCommCreateArgs.device, every op from all_reduce to barrier, groups and
// uneven counts (nccl_communicator.h for the NCCL side and the stream and
// error semantics).
//
//  - Bootstrap: rank 0 makes the ncclUniqueId and publishes it through the
//    rendezvous, key-value store or "nccl-file:<directory>" blob
//    (rendezvous_store.h, unique_id_exchange.h); a rank that never arrives is
//    named with its key in a DEADLINE_EXCEEDED error.
//  - Timeout: TeplugRendezvous.timeout_ms (0: kDefaultNcclTimeout) bounds the
//    whole comm_create and every later wait.
//  - NCCL (libnccl.so.2) is loaded on first use, never at registration and
//    never without a GPU: the CUDA runtime is asked first. Without a GPU or
//    without the library, supports() answers the driver's or dlopen's reason
//    and comm_create fails UNAVAILABLE with it.
//  - supports(op, args) looks at the op's buffers (CUDA device memory, a
//    dtype of the table, contiguous), the reduction, the GPU and the library;
//    it never reads args.comm (the kernel passes its own handle there).
#ifndef TEPLUG_NATIVE_COLLECTIVE_NCCL_COLLECTIVE_H_
#define TEPLUG_NATIVE_COLLECTIVE_NCCL_COLLECTIVE_H_

#include <chrono>
#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "native/collective/nccl_api.h"
#include "native/collective/stream_poller.h"
#include "native/device/cuda_runtime_api.h"
#include "teplug/sdk/implement.hpp"

namespace teplug::native::collective {

// Used when TeplugRendezvous.timeout_ms is 0.
inline constexpr std::chrono::milliseconds kDefaultNcclTimeout{60000};

// Returns the NCCL to use; called once, on the first question that needs it.
using NcclLoader = std::function<absl::StatusOr<std::unique_ptr<NcclApi>>()>;

// The loader of the real library: LoadNccl(NcclCandidatePaths()).
NcclLoader RealNcclLoader();

// `runtime` and `streams` must outlive the object. Thread-safe; calls on one
// communicator are serialized by the caller.
std::unique_ptr<sdk::CollectiveImpl> NewNcclCollective(NcclLoader loader, CudaRuntimeApi& runtime,
                                                       StreamPoller& streams);

}  // namespace teplug::native::collective

#endif  // TEPLUG_NATIVE_COLLECTIVE_NCCL_COLLECTIVE_H_
