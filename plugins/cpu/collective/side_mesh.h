// A second full mesh beside a connected Gloo context, over the same device
// (so no new loop thread): each rank's pair addresses travel in one
// all-gather on the first mesh, not through the rendezvous store again.
//
// The communicator keeps apart what must not share pairs. Its roll calls
// run on one such mesh (their answers must not queue behind a stuck op), and
// its small-message rings on another: Gloo 0.5's unbound-buffer collectives
// (gloo::allreduce) on pairs that also carry buffers bound by ring objects
// were seen to take about 0.5 s per 1 MiB op among 4 processes, and to never
// return on some ranks (gdb: every rank waiting in UnboundBuffer::waitSend or
// waitRecv of the same op, or one rank already past it); on pairs of their
// own, 5.5 ms.
#ifndef TEPLUG_PLUGINS_CPU_COLLECTIVE_SIDE_MESH_H_
#define TEPLUG_PLUGINS_CPU_COLLECTIVE_SIDE_MESH_H_

#include <chrono>
#include <cstdint>
#include <memory>

#include "gloo/context.h"
#include "gloo/transport/context.h"

namespace teplug::cpu::collective {

// Every rank of `mesh` (connected, two or more ranks) calls this at the same
// point, before any op that could use `tag`, which no other op of `mesh`
// may use. Throws Gloo's exceptions.
std::shared_ptr<gloo::transport::Context> ConnectSideMesh(const std::shared_ptr<gloo::Context>& mesh,
                                                          uint32_t tag, std::chrono::milliseconds timeout);

// The same mesh as a gloo::Context, for Gloo's pair buffers and algorithms.
std::shared_ptr<gloo::Context> ConnectSideContext(const std::shared_ptr<gloo::Context>& mesh, uint32_t tag,
                                                  std::chrono::milliseconds timeout);

// Sends one `bytes` message on every pair of `context` in each direction
// (every rank calls it at the same point; it takes one slot). Gloo sizes a
// socket's send buffer to the first message sent on it and enlarges it only
// for a larger one: a pair whose first message was 1 KiB keeps the 4.5 KiB
// minimum, a 4 KiB message then overflows it and is finished by the loop
// thread after a wakeup, not by the sender. Sending a large message first
// sizes the buffer once for every smaller one. Throws Gloo's exceptions.
void SizeSendBuffers(gloo::Context& context, size_t bytes);

}  // namespace teplug::cpu::collective

#endif  // TEPLUG_PLUGINS_CPU_COLLECTIVE_SIDE_MESH_H_
