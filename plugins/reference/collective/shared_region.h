// The one transport of the reference collectives: a file mapped MAP_SHARED
// (normally in /dev/shm) that every rank maps, whether the ranks are threads
// of one process or separate processes. It holds, at fixed offsets:
//   - a header with the layout tag (world size and chunk size) the first rank
//     claimed, so a rank that opens it with other parameters gets an error;
//   - one RankControl per rank: join flag, barrier epoch, op descriptor;
//   - one ChannelControl per ordered (sender, receiver) pair for send/recv;
//   - one data slot of chunk_bytes per rank (collective staging);
//   - one data buffer of chunk_bytes per ordered pair (send/recv staging).
// A fresh file is all zeros, which is the valid initial state of every field,
// so no rank has to initialise it and ranks may open it in any order.
#ifndef TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_SHARED_REGION_H_
#define TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_SHARED_REGION_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "plugins/reference/collective/op_descriptor.h"

namespace teplug::reference::collective {

// The atomics below are shared between processes through the mapping; that is
// only sound when they are lock-free (address-free) and all-zero is their
// initial value, both true for 64-bit atomics on the platforms we build for.
static_assert(std::atomic<uint64_t>::is_always_lock_free,
              "shared-memory collectives need lock-free 64-bit atomics");

// Per-rank control block (one cache-line pair each, to avoid false sharing).
struct alignas(128) RankControl {
  // 0 until the rank has mapped the region in Communicator::Create.
  std::atomic<uint64_t> joined;
  // Number of barriers this rank has entered; a barrier waits until every
  // rank's epoch reaches its own, and names the ranks that lag behind.
  std::atomic<uint64_t> barrier_epoch;
  // The collective this rank is running (see op_descriptor.h).
  OpDescriptor descriptor;
};

// Control block of one one-directional send/recv channel. The sender owns
// `posted` and the chunk fields, the receiver owns `consumed`; the single
// chunk buffer is full while posted > consumed.
struct alignas(128) ChannelControl {
  std::atomic<uint64_t> posted;    // chunks the sender has written
  std::atomic<uint64_t> consumed;  // chunks the receiver has copied out
  uint64_t chunk_bytes;            // bytes in the chunk now in the buffer
  uint64_t message_bytes;          // total size of the message being sent
};

// memcpy with a zero-length copy allowed from a null pointer (an empty
// rank's buffer): memcpy itself requires non-null arguments even for 0 bytes.
// How the collectives and send/recv move data in and out of the region.
inline void CopyBytes(void* dst, const void* src, size_t n) {
  if (n != 0) std::memcpy(dst, src, n);
}

class SharedRegion {
 public:
  // Opens (creating if needed) the file at `path`, grows it to the size the
  // layout needs, maps it and claims or checks the layout tag. Fails with the
  // path and errno text on any system-call error, or InvalidArgument when the
  // region was already claimed with a different world or chunk size.
  static absl::StatusOr<std::unique_ptr<SharedRegion>> Map(const std::string& path, int world,
                                                           size_t chunk_bytes);

  ~SharedRegion();  // unmaps; the file itself is left for Unlink()
  SharedRegion(const SharedRegion&) = delete;
  SharedRegion& operator=(const SharedRegion&) = delete;

  // Removes the file name; mappings stay valid, so this is called once every
  // rank has joined and cleans up even if the processes later crash.
  absl::Status Unlink() const;

  RankControl& rank_control(int rank) const;
  ChannelControl& channel(int sender, int receiver) const;
  // chunk_bytes() bytes of staging owned (written) by `rank` in collectives.
  unsigned char* rank_slot(int rank) const;
  // chunk_bytes() bytes of staging for the sender -> receiver channel.
  unsigned char* channel_buffer(int sender, int receiver) const;

  const std::string& path() const { return path_; }
  int world() const { return world_; }
  size_t chunk_bytes() const { return chunk_bytes_; }

 private:
  SharedRegion(std::string path, int world, size_t chunk_bytes, void* base, size_t size);

  std::string path_;
  int world_;
  size_t chunk_bytes_;
  unsigned char* base_;
  size_t size_;
};

}  // namespace teplug::reference::collective

#endif  // TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_SHARED_REGION_H_
