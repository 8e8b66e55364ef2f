// ICollective v1 on Gloo over TCP, host memory: the SDK object and its
// capability descriptor, for a provider entry to register, e.g.
//
//   r.Register(sdk::kIidCollectiveV1, sdk::MakeCollective(NewGlooCollective()),
//              GlooCollectiveCaps(), "gloo", priority);
//
// Rendezvous (gloo_rendezvous.h): the host's key-value store, or the blob
// "gloo-file:<empty directory every rank sees>". timeout_ms (0: 60 s) bounds
// joining and every later op. Ops: all_reduce, all_gather (counts: uneven),
// reduce_scatter (counts: uneven), broadcast, send, recv, barrier, groups.
// dtypes fp32, fp16, bf16, int8, int32, int64, uint8; every TeplugReduceOp.
// Semantics, threads and what is not served: README.md.
#ifndef TEPLUG_PLUGINS_CPU_COLLECTIVE_GLOO_COLLECTIVE_H_
#define TEPLUG_PLUGINS_CPU_COLLECTIVE_GLOO_COLLECTIVE_H_

#include <memory>

#include "teplug/collective.h"
#include "teplug/sdk/implement.hpp"

namespace teplug::cpu::collective {

// Thread-safe: it keeps no state outside the communicators it hands out.
std::unique_ptr<sdk::CollectiveImpl> NewGlooCollective();

// Static: devices cpu (any vendor), the dtypes, ops and reductions above,
// any world size.
const TeplugCollectiveCaps* GlooCollectiveCaps();

}  // namespace teplug::cpu::collective

#endif  // TEPLUG_PLUGINS_CPU_COLLECTIVE_GLOO_COLLECTIVE_H_
