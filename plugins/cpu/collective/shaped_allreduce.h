// All-reduce algorithms bound to one message shape (element size and count)
// and run on the caller's buffer, written on Gloo's pair buffers. Each
// reduces with `reduce` (ReduceFunctionFor(wire, op) of the message's wire
// type and operator).
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
#include <vector>

#include "gloo/context.h"
#include "plugins/cpu/collective/element_reduction.h"

namespace teplug::cpu::collective {

// Bytes aligned for any element type (16 for the 128-bit integers).
class AlignedBytes {
 public:
  explicit AlignedBytes(size_t bytes) : words_((bytes + sizeof(Word) - 1) / sizeof(Word)) {}
  unsigned char* data() { return reinterpret_cast<unsigned char*>(words_.data()); }

 private:
  using Word = std::max_align_t;
  std::vector<Word> words_;
};

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
// than two ranks differ in their last bits between ranks. Two ranks hold
// two inboxes, used by turns, and send no handshake (a rank cannot start the
// run after next before its neighbour has finished this one); more ranks
// reuse one inbox per round and, as Gloo's ring, tell the left neighbour
// when it may write again.
std::unique_ptr<ShapedAllreduce> MakeReducingRing(const std::shared_ptr<gloo::Context>& context,
                                                  size_t element_bytes, ReduceFunction reduce,
                                                  size_t count);

// A ring all-gather of every rank's message (world - 1 rounds, as many
// messages as the reducing ring), then one fold in rank order,
// ((x0 op x1) op x2) ..., on every rank: every rank gets the same bits.
// Each round's block lands at its own place, and runs alternate between two
// gathered copies (2 x world messages), so no round waits for a handshake:
// a neighbour can write a copy again only after finishing the run after
// this one, which needs this rank's message of that run, sent after this
// run's fold.
std::unique_ptr<ShapedAllreduce> MakeGatherThenFold(const std::shared_ptr<gloo::Context>& context,
                                                    size_t element_bytes, ReduceFunction reduce,
                                                    size_t count);

}  // namespace teplug::cpu::collective

#endif  // TEPLUG_PLUGINS_CPU_COLLECTIVE_SHAPED_ALLREDUCE_H_
