#include "plugins/reference/collective/point_to_point.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "plugins/reference/collective/backoff_wait.h"

namespace teplug::reference::collective {
namespace {

// Outcome of trying to move one chunk.
enum class Step { kIdle, kAdvanced };

// Posts the next chunk of a send when the channel buffer is empty.
Step TrySendChunk(const SharedRegion& region, int rank, Transfer& transfer) {
  ChannelControl& channel = region.channel(rank, transfer.peer);
  const uint64_t posted = channel.posted.load(std::memory_order_relaxed);
  if (channel.consumed.load(std::memory_order_acquire) != posted) {
    return Step::kIdle;  // receiver has not emptied the buffer yet
  }
  const size_t bytes = std::min(region.chunk_bytes(), transfer.bytes - transfer.done_bytes);
  CopyBytes(region.channel_buffer(rank, transfer.peer), transfer.buffer + transfer.done_bytes,
              bytes);
  channel.chunk_bytes = bytes;
  channel.message_bytes = transfer.bytes;
  channel.posted.store(posted + 1, std::memory_order_release);
  transfer.done_bytes += bytes;
  return Step::kAdvanced;
}

// Copies out the chunk waiting in the channel, if any. Fails when the sender's
// message size differs from the receive's.
absl::Status TryRecvChunk(const SharedRegion& region, int rank, Transfer& transfer,
                          const std::string& context, Step& step) {
  step = Step::kIdle;
  ChannelControl& channel = region.channel(transfer.peer, rank);
  const uint64_t consumed = channel.consumed.load(std::memory_order_relaxed);
  if (channel.posted.load(std::memory_order_acquire) == consumed) {
    return absl::OkStatus();  // nothing posted yet
  }
  const size_t remaining = transfer.bytes - transfer.done_bytes;
  if (channel.message_bytes != transfer.bytes || channel.chunk_bytes > remaining) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: Recv from rank %d expects a %u-byte message but rank %d sent "
        "%u bytes; matching Send and Recv must have the same count and type",
        context, transfer.peer, transfer.bytes, transfer.peer, channel.message_bytes));
  }
  CopyBytes(transfer.buffer + transfer.done_bytes, region.channel_buffer(transfer.peer, rank),
              channel.chunk_bytes);
  transfer.done_bytes += channel.chunk_bytes;
  channel.consumed.store(consumed + 1, std::memory_order_release);
  step = Step::kAdvanced;
  return absl::OkStatus();
}

std::string DescribeStuck(const Transfer& transfer, size_t index) {
  return absl::StrFormat(
      "%s of %u bytes %s rank %d (transfer %u of the batch) "
      "had moved %u bytes",
      transfer.is_send ? "Send" : "Recv", transfer.bytes, transfer.is_send ? "to" : "from",
      transfer.peer, index + 1, transfer.done_bytes);
}

}  // namespace

absl::Status RunTransfers(const SharedRegion& region, int rank, std::vector<Transfer>& transfers,
                          std::chrono::nanoseconds timeout, const std::string& context) {
  const int world = region.world();
  BackoffWait wait(timeout);
  while (true) {
    bool all_done = true;
    bool advanced = false;
    // Only the oldest unfinished transfer of each (direction, peer) channel
    // may move, which keeps messages on a channel in call order.
    std::vector<bool> channel_taken(2 * static_cast<size_t>(world), false);
    for (Transfer& transfer : transfers) {
      if (transfer.done_bytes == transfer.bytes) continue;
      all_done = false;
      const size_t channel_index =
          static_cast<size_t>(transfer.peer) * 2 + (transfer.is_send ? 1 : 0);
      if (channel_taken[channel_index]) continue;
      channel_taken[channel_index] = true;
      Step step = Step::kIdle;
      if (transfer.is_send) {
        step = TrySendChunk(region, rank, transfer);
      } else {
        absl::Status status = TryRecvChunk(region, rank, transfer, context, step);
        if (!status.ok()) return status;
      }
      advanced = advanced || step == Step::kAdvanced;
    }
    if (all_done) return absl::OkStatus();
    if (advanced) {
      wait = BackoffWait(timeout);  // the timeout counts time without progress
      continue;
    }
    if (wait.Expired()) {
      std::string stuck;
      for (size_t i = 0; i < transfers.size(); ++i) {
        if (transfers[i].done_bytes == transfers[i].bytes) continue;
        if (!stuck.empty()) stuck += "; ";
        stuck += DescribeStuck(transfers[i], i);
      }
      return absl::DeadlineExceededError(
          absl::StrFormat("%s: no send/recv progress for %.3f s (timeout); unfinished: %s. "
                          "The peer died, hung or never posted the matching call; or two ranks "
                          "each Send more than one chunk to the other before receiving outside "
                          "a group, which waits forever (put such pairs in "
                          "GroupStart/GroupEnd)",
                          context, std::chrono::duration<double>(wait.Elapsed()).count(), stuck));
    }
    wait.Pause();
  }
}

}  // namespace teplug::reference::collective
