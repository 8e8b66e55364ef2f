// Send/recv over the shared region's one-directional channels, driven by a
// progress loop: all transfers of a group advance chunk by chunk together, so
// two ranks that both send and then receive messages larger than a chunk
// inside one group never deadlock. Transfers to the same peer in the same
// direction stay in call order (one FIFO channel per ordered pair).
#ifndef TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_POINT_TO_POINT_H_
#define TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_POINT_TO_POINT_H_

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "plugins/reference/collective/shared_region.h"

namespace teplug::reference::collective {

// One queued Send or Recv of `bytes` bytes with `peer`. `buffer` is read for a
// send and written for a receive; it must stay valid until progress ends.
struct Transfer {
  bool is_send;
  int peer;
  unsigned char* buffer;
  size_t bytes;
  size_t done_bytes = 0;  // bytes posted (send) or copied out (recv) so far
};

// Runs all `transfers` of `rank` to completion. Zero-byte transfers complete
// at once on both sides without touching the channel. Fails, naming the
// transfer, its peer and how far it got, when no transfer has advanced for
// `timeout`, or when a received message's size differs from the size the
// receiver posted. `context` (e.g. "GroupEnd on rank 1 of 2") starts every
// error message.
absl::Status RunTransfers(const SharedRegion& region, int rank, std::vector<Transfer>& transfers,
                          std::chrono::nanoseconds timeout, const std::string& context);

}  // namespace teplug::reference::collective

#endif  // TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_POINT_TO_POINT_H_
