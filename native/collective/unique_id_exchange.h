// Handing rank 0's ncclUniqueId to every rank through a RendezvousStore.
//
// Every rank publishes "arrived-<rank>" and waits, up to the deadline, for
// every other rank's, so a rank that never comes is NAMED (with the key that
// never appeared) in a DEADLINE_EXCEEDED error instead of leaving the others
// blocked inside NCCL. Rank 0 makes the id first and publishes it as
// "unique-id"; the others read it (NCCL_UNIQUE_ID_BYTES bytes, checked).
#ifndef TEPLUG_NATIVE_COLLECTIVE_UNIQUE_ID_EXCHANGE_H_
#define TEPLUG_NATIVE_COLLECTIVE_UNIQUE_ID_EXCHANGE_H_

#include <nccl.h>

#include <chrono>
#include <functional>
#include <string>

#include "native/collective/rendezvous_store.h"

namespace teplug::native::collective {

inline constexpr char kUniqueIdKey[] = "unique-id";

// "arrived-<rank>".
std::string ArrivalKey(int rank);

// Runs the exchange for `rank` of `world`; `make_id` is called on rank 0
// only. Throws sdk::Exception: DEADLINE_EXCEEDED naming the missing ranks and
// keys, INTERNAL for a value of the wrong size, the store's own errors, and
// whatever make_id throws. `what` starts every message.
ncclUniqueId ExchangeUniqueId(RendezvousStore& store, int rank, int world,
                              std::chrono::steady_clock::time_point deadline,
                              const std::function<ncclUniqueId()>& make_id,
                              const std::string& what);

}  // namespace teplug::native::collective

#endif  // TEPLUG_NATIVE_COLLECTIVE_UNIQUE_ID_EXCHANGE_H_
