// All-reduce algorithms bound to one message shape (element size and count)
// and run on the caller's buffer, written on Gloo's pair buffers.
//
// Gloo's own algorithm objects (gloo::AllreduceRing, gloo::AllgatherRing)
// are bound to the data pointer they were built with, so a cache of them
// must copy every message into its object's buffer and back: two memcpy of
// the message per op, about a tenth of a 1 MiB op between two processes here.
// These take the pointer per run and send exactly the messages Gloo's do.
// Neither evicts nor rebuilds: building one takes slots on the pairs, in the
// same order on every rank.
#ifndef TEPLUG_PLUGINS_CPU_COLLECTIVE_SHAPED_ALLREDUCE_H_
#define TEPLUG_PLUGINS_CPU_COLLECTIVE_SHAPED_ALLREDUCE_H_

#include <cstddef>
#include <memory>

#include "gloo/context.h"
#include "plugins/cpu/collective/element_reduction.h"

namespace teplug::cpu::collective {

class ShapedAllreduce {
 public:
  virtual ~ShapedAllreduce() = default;
  // All-reduces the message at `data` in place; `data` is aligned for the
  // element type. Throws what Gloo throws.
  virtual void Run(void* data) = 0;
};

// gloo::AllreduceRing's messages and order: world - 1 rounds, each sending
// the block received last round to the right and reducing the one from the
// left into `data`. Ranks sum in different orders, so floating sums of more
// than two ranks differ in their last bits between ranks.
std::unique_ptr<ShapedAllreduce> MakeReducingRing(const std::shared_ptr<gloo::Context>& context,
                                                  WireType wire, WireOp op, size_t count);

// A ring all-gather of every rank's message (gloo::AllgatherRing's messages:
// world - 1 rounds, as many as the reducing ring), then one fold in rank
// order, ((x0 op x1) op x2) ..., on every rank: every rank gets the same
// bits. Holds two gathered copies (2 x world messages): runs alternate
// between them, because a rank's last notification lets its left neighbour
// start the next run and write into the gathered buffer while this rank
// still folds it; the neighbour cannot start the run after that (which
// reuses the buffer) before this rank, done folding, has sent the next run's
// notifications.
std::unique_ptr<ShapedAllreduce> MakeGatherThenFold(const std::shared_ptr<gloo::Context>& context,
                                                    WireType wire, WireOp op, size_t count);

}  // namespace teplug::cpu::collective

#endif  // TEPLUG_PLUGINS_CPU_COLLECTIVE_SHAPED_ALLREDUCE_H_
