// ICollective v1 of the reference provider: the ABI mapped onto the reference
// Communicator (plugins/reference/collective), host memory only. Ranks may be
// threads sharing one provider object (each with its own communicator) or
// separate processes.
//
// Rendezvous (TeplugRendezvous, exactly one of):
//   - bootstrap blob: the bytes "teplug-collective-v1:<region path>" (no NUL
//     needed), where <region path> is a file path every rank can open and
//     that does not exist yet, unique to this communicator, normally in
//     /dev/shm, e.g. "teplug-collective-v1:/dev/shm/teplug-collective-<pid>-<ns>-<random>".
//     Rank 0 (or the host) makes one, sends the same bytes to every rank out
//     of band; the plugin exports no helper for it, the format above is the
//     contract (collective/rendezvous.h EncodeBootstrapBlob writes it).
//   - key-value store: rank 0 creates a unique region path in /dev/shm and
//     puts its bootstrap blob under "<kv_prefix>/region"; the other ranks get
//     it (waiting up to timeout_ms).
// timeout_ms bounds joining and every later wait on a peer (0 = 60 s).
// Ops: all_reduce, all_gather (counts: uneven), reduce_scatter (counts:
// uneven), broadcast, send, recv, barrier; group_start/group_end queue calls
// and issue them together. Results are bit-identical on every rank
// (rank-order reductions, collective/reduction.h). Buffers must be
// contiguous; the stream is not used (calls complete before returning).
#ifndef TEPLUG_PLUGINS_REFERENCE_PROVIDER_COLLECTIVE_PROVIDER_H_
#define TEPLUG_PLUGINS_REFERENCE_PROVIDER_COLLECTIVE_PROVIDER_H_

#include <memory>

#include "teplug/collective.h"
#include "teplug/sdk/implement.hpp"

namespace teplug::reference::provider {

// The key under kv_prefix where rank 0 puts the bootstrap blob.
inline constexpr char kRegionKeySuffix[] = "/region";

// The SDK object behind the registered ICollective v1 (thread-safe: it keeps
// no state outside the communicators it hands out).
std::unique_ptr<sdk::CollectiveImpl> NewReferenceCollective();

}  // namespace teplug::reference::provider

#endif  // TEPLUG_PLUGINS_REFERENCE_PROVIDER_COLLECTIVE_PROVIDER_H_
