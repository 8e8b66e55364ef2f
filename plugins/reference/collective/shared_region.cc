#include "plugins/reference/collective/shared_region.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace teplug::reference::collective {
namespace {

// Alignment of every block in the region (two cache lines).
constexpr size_t kBlockAlign = 128;

// High 16 bits of the layout tag; marks the file as ours.
constexpr uint64_t kLayoutMagic = 0x7E91ull << 48;

struct alignas(kBlockAlign) RegionHeader {
  // 0 in a fresh file; then kLayoutMagic | world << 32 | chunk_bytes.
  std::atomic<uint64_t> layout_tag;
};

// Byte offsets of the blocks; identical on every rank for equal parameters.
struct Layout {
  size_t rank_controls;
  size_t channels;
  size_t rank_slots;
  size_t channel_buffers;
  size_t total;
};

size_t AlignUp(size_t value) { return (value + kBlockAlign - 1) / kBlockAlign * kBlockAlign; }

Layout ComputeLayout(int world, size_t chunk_bytes) {
  const size_t ranks = static_cast<size_t>(world);
  const size_t pairs = ranks * ranks;
  Layout layout;
  layout.rank_controls = AlignUp(sizeof(RegionHeader));
  layout.channels = layout.rank_controls + ranks * sizeof(RankControl);
  layout.rank_slots = AlignUp(layout.channels + pairs * sizeof(ChannelControl));
  layout.channel_buffers = layout.rank_slots + ranks * AlignUp(chunk_bytes);
  layout.total = layout.channel_buffers + pairs * AlignUp(chunk_bytes);
  return layout;
}

absl::Status ErrnoError(const std::string& what, const std::string& path) {
  const int saved_errno = errno;
  return absl::InternalError(absl::StrFormat("shared collective region %s: %s failed: %s", path,
                                             what, std::strerror(saved_errno)));
}

// Grows the file to at least `size` bytes under an exclusive flock, so that
// two ranks with different (mismatched) layouts can never shrink it under a
// rank that already mapped the larger size.
absl::Status GrowFile(int fd, size_t size, const std::string& path) {
  if (flock(fd, LOCK_EX) != 0) return ErrnoError("flock", path);
  struct stat info;
  absl::Status status;
  if (fstat(fd, &info) != 0) {
    status = ErrnoError("fstat", path);
  } else if (static_cast<size_t>(info.st_size) < size &&
             ftruncate(fd, static_cast<off_t>(size)) != 0) {
    status = ErrnoError(absl::StrFormat("ftruncate to %u bytes", size), path);
  }
  flock(fd, LOCK_UN);
  return status;
}

}  // namespace

absl::StatusOr<std::unique_ptr<SharedRegion>> SharedRegion::Map(const std::string& path, int world,
                                                                size_t chunk_bytes) {
  if (world < 1 || world > 0xFFFF) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "shared collective region %s: world size %d is outside 1..65535", path, world));
  }
  if (chunk_bytes == 0 || chunk_bytes > 0xFFFFFFFFull) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "shared collective region %s: chunk size %u is outside 1..2^32-1", path, chunk_bytes));
  }
  const Layout layout = ComputeLayout(world, chunk_bytes);
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoError("open", path);
  absl::Status grown = GrowFile(fd, layout.total, path);
  if (!grown.ok()) {
    close(fd);
    return grown;
  }
  void* base = mmap(nullptr, layout.total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    absl::Status status = ErrnoError(absl::StrFormat("mmap of %u bytes", layout.total), path);
    close(fd);
    return status;
  }
  close(fd);  // the mapping keeps the file alive
  std::unique_ptr<SharedRegion> region(
      new SharedRegion(path, world, chunk_bytes, base, layout.total));

  auto* header = reinterpret_cast<RegionHeader*>(base);
  const uint64_t tag =
      kLayoutMagic | (static_cast<uint64_t>(world) << 32) | static_cast<uint64_t>(chunk_bytes);
  uint64_t existing = 0;
  if (!header->layout_tag.compare_exchange_strong(existing, tag, std::memory_order_acq_rel) &&
      existing != tag) {
    if ((existing & (0xFFFFull << 48)) != kLayoutMagic) {
      return absl::InvalidArgumentError(
          absl::StrFormat("shared collective region %s: the file holds something else (tag "
                          "%016x); pass a fresh path",
                          path, existing));
    }
    return absl::InvalidArgumentError(absl::StrFormat(
        "shared collective region %s was created for world %u with chunk "
        "bytes %u, but this rank opened it with world %d and chunk bytes %u; "
        "all ranks must pass the same world size and options",
        path, (existing >> 32) & 0xFFFF, existing & 0xFFFFFFFFull, world, chunk_bytes));
  }
  return region;
}

SharedRegion::SharedRegion(std::string path, int world, size_t chunk_bytes, void* base, size_t size)
    : path_(std::move(path)),
      world_(world),
      chunk_bytes_(chunk_bytes),
      base_(static_cast<unsigned char*>(base)),
      size_(size) {}

SharedRegion::~SharedRegion() { munmap(base_, size_); }

absl::Status SharedRegion::Unlink() const {
  if (unlink(path_.c_str()) != 0) return ErrnoError("unlink", path_);
  return absl::OkStatus();
}

RankControl& SharedRegion::rank_control(int rank) const {
  const Layout layout = ComputeLayout(world_, chunk_bytes_);
  return reinterpret_cast<RankControl*>(base_ + layout.rank_controls)[rank];
}

ChannelControl& SharedRegion::channel(int sender, int receiver) const {
  const Layout layout = ComputeLayout(world_, chunk_bytes_);
  return reinterpret_cast<ChannelControl*>(
      base_ + layout.channels)[static_cast<size_t>(sender) * world_ + receiver];
}

unsigned char* SharedRegion::rank_slot(int rank) const {
  const Layout layout = ComputeLayout(world_, chunk_bytes_);
  return base_ + layout.rank_slots + static_cast<size_t>(rank) * AlignUp(chunk_bytes_);
}

unsigned char* SharedRegion::channel_buffer(int sender, int receiver) const {
  const Layout layout = ComputeLayout(world_, chunk_bytes_);
  const size_t pair = static_cast<size_t>(sender) * world_ + receiver;
  return base_ + layout.channel_buffers + pair * AlignUp(chunk_bytes_);
}

}  // namespace teplug::reference::collective
