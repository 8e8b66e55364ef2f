// Small all-reduces on persistent ring objects, built once per message shape.
//
// gloo::allreduce (the unbound-buffer API) pays several round trips per step:
// on this machine ~0.2-4 ms for a 1 KiB message, while a ring whose pair
// buffers are registered once (gloo::AllreduceRing's way) takes tens of
// microseconds. Building one takes a slot on every pair, so this cache keeps
// one per (wire type, operator, count), built on first use. Every rank issues
// the same all-reduces in the same order, so every rank builds the same rings
// at the same call. The cache never evicts (tearing a ring down while a peer
// still finishes its last round is what Gloo does not support): once full,
// Run() declines and the caller uses gloo::allreduce.
//
// Which ring (shaped_allreduce.h): the reducing ring sums in a different
// order on every rank (each starts from its own data), so it serves only
// where the order cannot change a bit: integer types (wrapping sum and
// product are exact), min and max, and two ranks (a + b == b + a). Floating
// sums and products of three or more ranks must give every rank the same
// bits. Up to kMaxGatherWorld ranks and kMaxGatherBytes they gather every
// rank's message around the ring (as many messages as the reducing ring) and
// fold them in rank order on every rank; otherwise they run
// gloo::AllreduceHalvingDoubling, which reduces each block on one rank
// (recursive halving) and then copies the results to all (recursive
// doubling), in 2 log2(world) steps.
#ifndef TEPLUG_PLUGINS_CPU_COLLECTIVE_RING_ALLREDUCE_CACHE_H_
#define TEPLUG_PLUGINS_CPU_COLLECTIVE_RING_ALLREDUCE_CACHE_H_

#include <cstddef>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "gloo/context.h"
#include "plugins/cpu/collective/element_reduction.h"
#include "plugins/cpu/collective/shaped_allreduce.h"

namespace teplug::cpu::collective {

class RingAllreduceCache {
 public:
  // Messages up to this many wire bytes use a ring (measured with 2
  // processes: the ring is faster up to 1 MiB, gloo::allreduce from 4 MiB).
  static constexpr size_t kMaxBytes = 1024 * 1024;
  // At most this many rings, holding at most this many bytes in all, per
  // communicator: two messages per ring (inbox and outbox, or
  // halving-doubling's buffer and its scratch), three for two ranks (two
  // inboxes), 2 x world where it gathers.
  static constexpr size_t kMaxRings = 16;
  static constexpr size_t kMaxTotalBytes = 16 * 1024 * 1024;
  // The all-gather ring takes world - 1 steps without a handshake,
  // halving-doubling 2 log2(world): fewer up to 4 ranks.
  // Measured with 4 processes, the gather against direct halving-doubling
  // (whose time teplug's copy of it also pays twice a memcpy of the message):
  // 1.8-1.9x at 1-64 KiB, 1.4x at 256 KiB, 0.95-1.12 at 1 MiB (3 and 4
  // ranks), so it serves the rings' whole range; each shape holds two
  // gathered copies, 2 x world x the message (8 MiB for 1 MiB at 4 ranks).
  static constexpr int kMaxGatherWorld = 4;
  static constexpr size_t kMaxGatherBytes = kMaxBytes;

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
  using Key = std::tuple<WireType, WireOp, size_t>;

  // Whether an order-fixed all-reduce of `bytes` among `world` ranks gathers
  // and folds (else halving-doubling).
  static bool GathersAndFolds(int world, size_t bytes);

  std::shared_ptr<gloo::Context> context_;
  std::map<Key, std::unique_ptr<ShapedAllreduce>> rings_;
  size_t total_bytes_ = 0;  // buffer bytes the rings in rings_ hold
};

}  // namespace teplug::cpu::collective

#endif  // TEPLUG_PLUGINS_CPU_COLLECTIVE_RING_ALLREDUCE_CACHE_H_
