// Small all-reduces on persistent Gloo ring objects (gloo::AllreduceRing, or
// gloo::AllreduceHalvingDoubling where the ring's order would change bits).
//
// gloo::allreduce (the unbound-buffer API) pays several round trips per step:
// on this machine ~0.2-4 ms for a 1 KiB message, while the older
// gloo::AllreduceRing, whose pair buffers are registered once, takes tens of
// microseconds. A ring is bound to its buffers when built and building one
// takes a slot on every pair, so this cache keeps one ring per (wire type,
// operator, count), built on first use, each with its own buffer (data is
// copied in and out). Every rank issues the same all-reduces in the same
// order, so every rank builds the same rings at the same call. The cache
// never evicts (tearing a ring down while a peer still finishes its last
// round is what Gloo does not support): once full, Run() declines and the
// caller uses gloo::allreduce.
//
// AllreduceRing sums in a different order on every rank (each starts from its
// own data), so it is used only where the order cannot change a bit: integer
// types (wrapping sum and product are exact), min and max, and two ranks
// (a + b == b + a). Floating sums and products of three or more ranks run on
// gloo::AllreduceHalvingDoubling instead, which reduces each block on one
// rank (recursive halving) and then copies the results to all (recursive
// doubling), so every rank gets the same bits, in 2 log2(world) steps.
#ifndef TEPLUG_PLUGINS_CPU_COLLECTIVE_RING_ALLREDUCE_CACHE_H_
#define TEPLUG_PLUGINS_CPU_COLLECTIVE_RING_ALLREDUCE_CACHE_H_

#include <cstddef>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "gloo/algorithm.h"
#include "gloo/context.h"
#include "plugins/cpu/collective/element_reduction.h"

namespace teplug::cpu::collective {

class RingAllreduceCache {
 public:
  // Messages up to this many wire bytes use a ring (measured with 2
  // processes: the ring is faster up to 1 MiB, gloo::allreduce from 4 MiB).
  static constexpr size_t kMaxBytes = 1024 * 1024;
  // At most this many rings, of at most this many message bytes in all, per
  // communicator (each ring holds 3x its message: data, inbox, outbox).
  static constexpr size_t kMaxRings = 16;
  static constexpr size_t kMaxTotalBytes = 8 * 1024 * 1024;

  explicit RingAllreduceCache(std::shared_ptr<gloo::Context> context);
  ~RingAllreduceCache();

  // All-reduces `count` wire elements at `data` in place. Returns false,
  // having done nothing, when the message is too large or the cache is full
  // without a ring for this shape. Throws what Gloo throws.
  bool Run(WireType wire, WireOp op, void* data, size_t count);

  // Whether any ring was built (then peers may still be finishing a ring's
  // last round when this rank is done: see GlooCommunicator::Quiesce).
  bool used() const { return !rings_.empty(); }

 private:
  struct Ring {
    std::vector<unsigned char> storage;  // the ring's own buffer (moving keeps it in place)
    void* data = nullptr;                // in `storage`, 16-byte aligned
    std::unique_ptr<gloo::Algorithm> algorithm;
  };
  using Key = std::tuple<WireType, WireOp, size_t>;

  std::shared_ptr<gloo::Context> context_;
  std::map<Key, Ring> rings_;
  size_t total_bytes_ = 0;  // message bytes of the rings in rings_
};

}  // namespace teplug::cpu::collective

#endif  // TEPLUG_PLUGINS_CPU_COLLECTIVE_RING_ALLREDUCE_CACHE_H_
