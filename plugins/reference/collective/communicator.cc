#include "plugins/reference/collective/communicator.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "plugins/reference/collective/backoff_wait.h"
#include "plugins/reference/collective/reduction.h"

namespace teplug::reference::collective {
namespace {

// Fails when a buffer that must hold `bytes` bytes is null.
absl::Status CheckBuffer(const void* buffer, size_t bytes, const std::string& what,
                         const char* name) {
  if (bytes > 0 && buffer == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: buffer `%s` is null but must hold %u bytes", what, name, bytes));
  }
  return absl::OkStatus();
}

// Sum of per-rank counts, failing on overflow or a count vector whose length
// is not the world size.
absl::StatusOr<size_t> TotalCount(const std::vector<size_t>& counts, int world,
                                  const std::string& what) {
  if (counts.size() != static_cast<size_t>(world)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: counts has %u entries but the world size is %d (one count per "
                        "rank is required)",
                        what, counts.size(), world));
  }
  size_t total = 0;
  for (size_t count : counts) {
    if (count > std::numeric_limits<size_t>::max() - total) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: the sum of counts overflows size_t", what));
    }
    total += count;
  }
  return total;
}

// Number of chunk-sized rounds needed to move the largest of `sizes`.
size_t RoundsFor(const std::vector<size_t>& sizes, size_t per_round) {
  size_t rounds = 0;
  for (size_t size : sizes) {
    rounds = std::max(rounds, (size + per_round - 1) / per_round);
  }
  return rounds;
}

// Part of a block of `size` units that falls into round `round` of
// `per_round` units.
size_t PartInRound(size_t size, size_t round, size_t per_round) {
  const size_t begin = round * per_round;
  return size > begin ? std::min(per_round, size - begin) : 0;
}

OpDescriptor MakeDescriptor(CollectiveKind kind, DataType type, ReduceOp op, int root,
                            uint64_t count, uint64_t counts_fingerprint) {
  OpDescriptor descriptor;
  descriptor.kind = kind;
  descriptor.type = type;
  descriptor.op = op;
  descriptor.root = root;
  descriptor.count = count;
  descriptor.counts_fingerprint = counts_fingerprint;
  descriptor.call_number = 0;  // set by BeginCollective
  return descriptor;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Communicator>> Communicator::Create(
    const std::string& region_path, int rank, int world, const CommunicatorOptions& options) {
  const std::string where = absl::StrFormat("Communicator::Create(rank %d, world %d, region %s)",
                                            rank, world, region_path);
  if (world < 1 || rank < 0 || rank >= world) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: rank must be in [0, world) and world at least 1", where));
  }
  if (region_path.empty()) {
    return absl::InvalidArgumentError(absl::StrFormat("%s: the region path is empty", where));
  }
  if (options.chunk_bytes % 8 != 0 || options.chunk_bytes < 8 * static_cast<size_t>(world)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: chunk_bytes %u must be a multiple of 8 and at least 8 * world = "
                        "%d",
                        where, options.chunk_bytes, 8 * world));
  }
  if (options.timeout <= std::chrono::nanoseconds::zero()) {
    return absl::InvalidArgumentError(absl::StrFormat("%s: timeout must be positive", where));
  }
  absl::StatusOr<std::unique_ptr<SharedRegion>> region =
      SharedRegion::Map(region_path, world, options.chunk_bytes);
  if (!region.ok()) return region.status();
  std::unique_ptr<Communicator> communicator(new Communicator(std::move(*region), rank, options));

  uint64_t not_joined = 0;
  if (!communicator->region_->rank_control(rank).joined.compare_exchange_strong(
          not_joined, 1, std::memory_order_acq_rel)) {
    return absl::AlreadyExistsError(
        absl::StrFormat("%s: rank %d has already joined this region; two callers passed the "
                        "same rank, or the path names a region left by an earlier run (use a "
                        "fresh path, see rendezvous.h)",
                        where, rank));
  }
  if (absl::Status joined = communicator->WaitForAllRanksToJoin(); !joined.ok()) {
    return absl::DeadlineExceededError(absl::StrFormat("%s: %s", where, joined.message()));
  }
  if (rank == 0 && options.unlink_region_after_join) {
    if (absl::Status unlinked = communicator->region_->Unlink(); !unlinked.ok()) {
      return unlinked;
    }
  }
  return communicator;
}

Communicator::Communicator(std::unique_ptr<SharedRegion> region, int rank,
                           const CommunicatorOptions& options)
    : region_(std::move(region)), rank_(rank), options_(options) {}

absl::Status Communicator::WaitForAllRanksToJoin() {
  BackoffWait wait(options_.timeout);
  for (int r = 0; r < world(); ++r) {
    while (region_->rank_control(r).joined.load(std::memory_order_acquire) == 0) {
      if (wait.Expired()) {
        std::vector<int> missing;
        for (int m = 0; m < world(); ++m) {
          if (region_->rank_control(m).joined.load(std::memory_order_acquire) == 0) {
            missing.push_back(m);
          }
        }
        return absl::DeadlineExceededError(absl::StrFormat(
            "timed out after %.3f s waiting for rank(s) %s to join; they were "
            "never started, died, or were given a different region path",
            std::chrono::duration<double>(wait.Elapsed()).count(), absl::StrJoin(missing, ", ")));
      }
      wait.Pause();
    }
  }
  return absl::OkStatus();
}

std::string Communicator::Context(const std::string& what) const {
  return absl::StrFormat("%s on rank %d of %d (region %s)", what, rank_, world(), region_->path());
}

absl::Status Communicator::Fail(absl::Status status) {
  if (failure_.ok()) failure_ = status;
  return status;
}

absl::Status Communicator::CheckHealthy() const {
  if (failure_.ok()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrFormat("communicator rank %d of %d failed earlier and cannot be used: %s", rank_,
                      world(), failure_.message()));
}

absl::Status Communicator::CheckRank(int peer, const char* what, const char* role) const {
  if (peer < 0 || peer >= world()) {
    return absl::InvalidArgumentError(absl::StrFormat("%s: %s %d is not a rank (world size %d)",
                                                      Context(what), role, peer, world()));
  }
  return absl::OkStatus();
}

absl::Status Communicator::BarrierStep(const std::string& what) {
  ++barrier_epoch_;
  region_->rank_control(rank_).barrier_epoch.store(barrier_epoch_, std::memory_order_release);
  BackoffWait wait(options_.timeout);
  for (int r = 0; r < world(); ++r) {
    while (region_->rank_control(r).barrier_epoch.load(std::memory_order_acquire) <
           barrier_epoch_) {
      if (wait.Expired()) {
        std::vector<int> lagging;
        for (int m = 0; m < world(); ++m) {
          if (region_->rank_control(m).barrier_epoch.load(std::memory_order_acquire) <
              barrier_epoch_) {
            lagging.push_back(m);
          }
        }
        return absl::DeadlineExceededError(
            absl::StrFormat("%s: timed out after %.3f s waiting for rank(s) %s to reach "
                            "synchronisation step %u; they died, hang, or are running a "
                            "different sequence of collective calls",
                            Context(what), std::chrono::duration<double>(wait.Elapsed()).count(),
                            absl::StrJoin(lagging, ", "), barrier_epoch_));
      }
      wait.Pause();
    }
  }
  return absl::OkStatus();
}

absl::Status Communicator::BeginCollective(OpDescriptor descriptor) {
  descriptor.call_number = ++collective_calls_;
  region_->rank_control(rank_).descriptor = descriptor;
  const std::string what = DescribeOp(descriptor);
  if (absl::Status step = BarrierStep(what); !step.ok()) return step;
  const OpDescriptor reference = region_->rank_control(0).descriptor;
  for (int r = 1; r < world(); ++r) {
    const std::string mismatch =
        DescribeMismatch(reference, region_->rank_control(r).descriptor, r);
    if (!mismatch.empty()) {
      return absl::InvalidArgumentError(absl::StrFormat("%s: %s", Context(what), mismatch));
    }
  }
  return absl::OkStatus();
}

absl::Status Communicator::RunOrQueue(std::function<absl::Status()> body) {
  if (absl::Status healthy = CheckHealthy(); !healthy.ok()) return healthy;
  if (group_depth_ > 0) {
    queued_collectives_.push_back(std::move(body));
    return absl::OkStatus();
  }
  absl::Status status = body();
  if (!status.ok()) return Fail(status);
  return status;
}

absl::Status Communicator::AllReduce(const void* in, void* out, size_t count, DataType type,
                                     ReduceOp op) {
  if (absl::Status s = CheckReducible(type, op, Context("AllReduce")); !s.ok()) {
    return s;
  }
  absl::StatusOr<size_t> bytes = BufferBytes(type, count, Context("AllReduce"));
  if (!bytes.ok()) return bytes.status();
  for (auto [buffer, name] : {std::pair<const void*, const char*>{in, "in"}, {out, "out"}}) {
    if (absl::Status s = CheckBuffer(buffer, *bytes, Context("AllReduce"), name); !s.ok()) {
      return s;
    }
  }
  const auto* source = static_cast<const unsigned char*>(in);
  auto* target = static_cast<unsigned char*>(out);
  return RunOrQueue([this, source, target, count, type, op]() -> absl::Status {
    const OpDescriptor descriptor =
        MakeDescriptor(CollectiveKind::kAllReduce, type, op, 0, count, 0);
    if (absl::Status s = BeginCollective(descriptor); !s.ok()) return s;
    const std::string what = DescribeOp(region_->rank_control(rank_).descriptor);
    const size_t element_bytes = static_cast<size_t>(ElementBits(type) / 8);
    const size_t per_round = region_->chunk_bytes() / element_bytes;
    const size_t rounds = RoundsFor({count}, per_round);
    std::vector<const void*> slots(world());
    for (int r = 0; r < world(); ++r) slots[r] = region_->rank_slot(r);
    for (size_t round = 0; round < rounds; ++round) {
      const size_t offset = round * per_round * element_bytes;
      const size_t elements = PartInRound(count, round, per_round);
      CopyBytes(region_->rank_slot(rank_), source + offset, elements * element_bytes);
      if (absl::Status s = BarrierStep(what); !s.ok()) return s;
      ReduceInRankOrder(slots.data(), world(), elements, type, op, target + offset);
      if (absl::Status s = BarrierStep(what); !s.ok()) return s;
    }
    return rounds == 0 ? BarrierStep(what) : absl::OkStatus();
  });
}

absl::Status Communicator::AllGather(const void* in, void* out, size_t count, DataType type) {
  absl::StatusOr<size_t> bytes = BufferBytes(type, count, Context("AllGather"));
  if (!bytes.ok()) return bytes.status();
  if (count > std::numeric_limits<size_t>::max() / world()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: count %u times world overflows size_t", Context("AllGather"), count));
  }
  if (absl::Status s = CheckBuffer(in, *bytes, Context("AllGather"), "in"); !s.ok()) return s;
  if (absl::Status s = CheckBuffer(out, *bytes * world(), Context("AllGather"), "out"); !s.ok()) {
    return s;
  }
  const std::vector<size_t> counts(world(), count);
  const auto* source = static_cast<const unsigned char*>(in);
  auto* target = static_cast<unsigned char*>(out);
  return RunOrQueue([this, source, target, counts, count, type]() {
    return RunAllGather(
        MakeDescriptor(CollectiveKind::kAllGather, type, ReduceOp::kSum, 0, count, 0), source,
        target, counts);
  });
}

absl::Status Communicator::AllGatherV(const void* in, void* out, const std::vector<size_t>& counts,
                                      DataType type) {
  absl::StatusOr<size_t> total = TotalCount(counts, world(), Context("AllGatherV"));
  if (!total.ok()) return total.status();
  absl::StatusOr<size_t> in_bytes = BufferBytes(type, counts[rank_], Context("AllGatherV input"));
  if (!in_bytes.ok()) return in_bytes.status();
  absl::StatusOr<size_t> out_bytes = BufferBytes(type, *total, Context("AllGatherV output"));
  if (!out_bytes.ok()) return out_bytes.status();
  for (int r = 0; r < world(); ++r) {
    absl::StatusOr<size_t> part =
        BufferBytes(type, counts[r], Context(absl::StrFormat("AllGatherV counts[%d]", r)));
    if (!part.ok()) return part.status();
  }
  if (absl::Status s = CheckBuffer(in, *in_bytes, Context("AllGatherV"), "in"); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckBuffer(out, *out_bytes, Context("AllGatherV"), "out"); !s.ok()) {
    return s;
  }
  const auto* source = static_cast<const unsigned char*>(in);
  auto* target = static_cast<unsigned char*>(out);
  return RunOrQueue([this, source, target, counts, type]() {
    return RunAllGather(MakeDescriptor(CollectiveKind::kAllGatherV, type, ReduceOp::kSum, 0, 0,
                                       FingerprintCounts(counts)),
                        source, target, counts);
  });
}

absl::Status Communicator::RunAllGather(const OpDescriptor& descriptor, const unsigned char* in,
                                        unsigned char* out, const std::vector<size_t>& counts) {
  if (absl::Status s = BeginCollective(descriptor); !s.ok()) return s;
  const std::string what = DescribeOp(region_->rank_control(rank_).descriptor);
  // Sizes were validated before queueing, so BufferBytes cannot fail here.
  std::vector<size_t> bytes(world());
  std::vector<size_t> offsets(world());
  size_t offset = 0;
  for (int r = 0; r < world(); ++r) {
    bytes[r] = *BufferBytes(descriptor.type, counts[r], what);
    offsets[r] = offset;
    offset += bytes[r];
  }
  const size_t per_round = region_->chunk_bytes();
  const size_t rounds = RoundsFor(bytes, per_round);
  for (size_t round = 0; round < rounds; ++round) {
    const size_t begin = round * per_round;
    CopyBytes(region_->rank_slot(rank_), in + begin, PartInRound(bytes[rank_], round, per_round));
    if (absl::Status s = BarrierStep(what); !s.ok()) return s;
    for (int r = 0; r < world(); ++r) {
      CopyBytes(out + offsets[r] + begin, region_->rank_slot(r),
                  PartInRound(bytes[r], round, per_round));
    }
    if (absl::Status s = BarrierStep(what); !s.ok()) return s;
  }
  return rounds == 0 ? BarrierStep(what) : absl::OkStatus();
}

absl::Status Communicator::ReduceScatter(const void* in, void* out, size_t count, DataType type,
                                         ReduceOp op) {
  if (count > std::numeric_limits<size_t>::max() / world()) {
    return absl::InvalidArgumentError(absl::StrFormat("%s: count %u times world overflows size_t",
                                                      Context("ReduceScatter"), count));
  }
  const std::vector<size_t> counts(world(), count);
  if (absl::Status s = CheckReducible(type, op, Context("ReduceScatter")); !s.ok()) {
    return s;
  }
  absl::StatusOr<size_t> out_bytes = BufferBytes(type, count, Context("ReduceScatter"));
  if (!out_bytes.ok()) return out_bytes.status();
  if (absl::Status s = CheckBuffer(in, *out_bytes * world(), Context("ReduceScatter"), "in");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckBuffer(out, *out_bytes, Context("ReduceScatter"), "out"); !s.ok()) {
    return s;
  }
  const auto* source = static_cast<const unsigned char*>(in);
  auto* target = static_cast<unsigned char*>(out);
  return RunOrQueue([this, source, target, counts, count, type, op]() {
    return RunReduceScatter(MakeDescriptor(CollectiveKind::kReduceScatter, type, op, 0, count, 0),
                            source, target, counts);
  });
}

absl::Status Communicator::ReduceScatterV(const void* in, void* out,
                                          const std::vector<size_t>& counts, DataType type,
                                          ReduceOp op) {
  absl::StatusOr<size_t> total = TotalCount(counts, world(), Context("ReduceScatterV"));
  if (!total.ok()) return total.status();
  if (absl::Status s = CheckReducible(type, op, Context("ReduceScatterV")); !s.ok()) {
    return s;
  }
  absl::StatusOr<size_t> in_bytes = BufferBytes(type, *total, Context("ReduceScatterV input"));
  if (!in_bytes.ok()) return in_bytes.status();
  const size_t out_bytes = counts[rank_] * static_cast<size_t>(ElementBits(type) / 8);
  if (absl::Status s = CheckBuffer(in, *in_bytes, Context("ReduceScatterV"), "in"); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckBuffer(out, out_bytes, Context("ReduceScatterV"), "out"); !s.ok()) {
    return s;
  }
  const auto* source = static_cast<const unsigned char*>(in);
  auto* target = static_cast<unsigned char*>(out);
  return RunOrQueue([this, source, target, counts, type, op]() {
    return RunReduceScatter(
        MakeDescriptor(CollectiveKind::kReduceScatterV, type, op, 0, 0, FingerprintCounts(counts)),
        source, target, counts);
  });
}

absl::Status Communicator::RunReduceScatter(const OpDescriptor& descriptor, const unsigned char* in,
                                            unsigned char* out, const std::vector<size_t>& counts) {
  if (absl::Status s = BeginCollective(descriptor); !s.ok()) return s;
  const std::string what = DescribeOp(region_->rank_control(rank_).descriptor);
  const size_t element_bytes = static_cast<size_t>(ElementBits(descriptor.type) / 8);
  // Each slot is split into one part per destination rank.
  const size_t part_bytes = region_->chunk_bytes() / world();
  const size_t per_round = part_bytes / element_bytes;
  std::vector<size_t> offsets(world());
  size_t offset = 0;
  for (int r = 0; r < world(); ++r) {
    offsets[r] = offset;
    offset += counts[r];
  }
  const size_t rounds = RoundsFor(counts, per_round);
  std::vector<const void*> parts(world());
  for (int r = 0; r < world(); ++r) {
    parts[r] = region_->rank_slot(r) + static_cast<size_t>(rank_) * part_bytes;
  }
  for (size_t round = 0; round < rounds; ++round) {
    const size_t begin = round * per_round;
    for (int destination = 0; destination < world(); ++destination) {
      CopyBytes(region_->rank_slot(rank_) + static_cast<size_t>(destination) * part_bytes,
                  in + (offsets[destination] + begin) * element_bytes,
                  PartInRound(counts[destination], round, per_round) * element_bytes);
    }
    if (absl::Status s = BarrierStep(what); !s.ok()) return s;
    ReduceInRankOrder(parts.data(), world(), PartInRound(counts[rank_], round, per_round),
                      descriptor.type, descriptor.op, out + begin * element_bytes);
    if (absl::Status s = BarrierStep(what); !s.ok()) return s;
  }
  return rounds == 0 ? BarrierStep(what) : absl::OkStatus();
}

absl::Status Communicator::Broadcast(const void* in, void* out, size_t count, DataType type,
                                     int root) {
  if (absl::Status s = CheckRank(root, "Broadcast", "root"); !s.ok()) return s;
  absl::StatusOr<size_t> bytes = BufferBytes(type, count, Context("Broadcast"));
  if (!bytes.ok()) return bytes.status();
  if (rank_ == root) {
    if (absl::Status s = CheckBuffer(in, *bytes, Context("Broadcast"), "in"); !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = CheckBuffer(out, *bytes, Context("Broadcast"), "out"); !s.ok()) {
    return s;
  }
  const auto* source = static_cast<const unsigned char*>(in);
  auto* target = static_cast<unsigned char*>(out);
  const size_t total = *bytes;
  return RunOrQueue([this, source, target, total, count, type, root]() -> absl::Status {
    const OpDescriptor descriptor =
        MakeDescriptor(CollectiveKind::kBroadcast, type, ReduceOp::kSum, root, count, 0);
    if (absl::Status s = BeginCollective(descriptor); !s.ok()) return s;
    const std::string what = DescribeOp(region_->rank_control(rank_).descriptor);
    const size_t per_round = region_->chunk_bytes();
    const size_t rounds = RoundsFor({total}, per_round);
    for (size_t round = 0; round < rounds; ++round) {
      const size_t begin = round * per_round;
      const size_t part = PartInRound(total, round, per_round);
      if (rank_ == root) CopyBytes(region_->rank_slot(root), source + begin, part);
      if (absl::Status s = BarrierStep(what); !s.ok()) return s;
      if (rank_ != root) {
        CopyBytes(target + begin, region_->rank_slot(root), part);
      } else if (target != source) {
        CopyBytes(target + begin, source + begin, part);
      }
      if (absl::Status s = BarrierStep(what); !s.ok()) return s;
    }
    return rounds == 0 ? BarrierStep(what) : absl::OkStatus();
  });
}

absl::Status Communicator::Barrier() {
  return RunOrQueue([this]() -> absl::Status {
    const OpDescriptor descriptor =
        MakeDescriptor(CollectiveKind::kBarrier, DataType::kUint8, ReduceOp::kSum, 0, 0, 0);
    if (absl::Status s = BeginCollective(descriptor); !s.ok()) return s;
    // A second step so that no rank overwrites its descriptor (next call)
    // before every rank has checked this one.
    return BarrierStep(DescribeOp(region_->rank_control(rank_).descriptor));
  });
}

absl::Status Communicator::Send(const void* data, size_t count, DataType type, int peer) {
  if (absl::Status s = CheckRank(peer, "Send", "peer"); !s.ok()) return s;
  absl::StatusOr<size_t> bytes = BufferBytes(type, count, Context("Send"));
  if (!bytes.ok()) return bytes.status();
  if (absl::Status s = CheckBuffer(data, *bytes, Context("Send"), "data"); !s.ok()) return s;
  Transfer transfer;
  transfer.is_send = true;
  transfer.peer = peer;
  // Never written through: sends only read from the buffer.
  transfer.buffer = const_cast<unsigned char*>(static_cast<const unsigned char*>(data));
  transfer.bytes = *bytes;
  return SubmitTransfer(transfer);
}

absl::Status Communicator::Recv(void* data, size_t count, DataType type, int peer) {
  if (absl::Status s = CheckRank(peer, "Recv", "peer"); !s.ok()) return s;
  absl::StatusOr<size_t> bytes = BufferBytes(type, count, Context("Recv"));
  if (!bytes.ok()) return bytes.status();
  if (absl::Status s = CheckBuffer(data, *bytes, Context("Recv"), "data"); !s.ok()) return s;
  Transfer transfer;
  transfer.is_send = false;
  transfer.peer = peer;
  transfer.buffer = static_cast<unsigned char*>(data);
  transfer.bytes = *bytes;
  return SubmitTransfer(transfer);
}

absl::Status Communicator::SubmitTransfer(Transfer transfer) {
  if (absl::Status healthy = CheckHealthy(); !healthy.ok()) return healthy;
  if (group_depth_ > 0) {
    queued_transfers_.push_back(transfer);
    return absl::OkStatus();
  }
  std::vector<Transfer> single = {transfer};
  const std::string what = absl::StrFormat("%s %s rank %d", transfer.is_send ? "Send" : "Recv",
                                           transfer.is_send ? "to" : "from", transfer.peer);
  absl::Status status = RunTransfers(*region_, rank_, single, options_.timeout, Context(what));
  if (!status.ok()) return Fail(status);
  return status;
}

absl::Status Communicator::GroupStart() {
  ++group_depth_;
  return absl::OkStatus();
}

absl::Status Communicator::GroupEnd() {
  if (group_depth_ == 0) {
    return absl::FailedPreconditionError(
        absl::StrFormat("%s: GroupEnd without a matching GroupStart", Context("GroupEnd")));
  }
  if (--group_depth_ > 0) return absl::OkStatus();
  std::vector<std::function<absl::Status()>> collectives = std::move(queued_collectives_);
  std::vector<Transfer> transfers = std::move(queued_transfers_);
  queued_collectives_.clear();
  queued_transfers_.clear();
  if (absl::Status healthy = CheckHealthy(); !healthy.ok()) return healthy;
  for (const auto& collective : collectives) {
    if (absl::Status s = collective(); !s.ok()) return Fail(s);
  }
  absl::Status status =
      RunTransfers(*region_, rank_, transfers, options_.timeout, Context("GroupEnd"));
  if (!status.ok()) return Fail(status);
  return status;
}

}  // namespace teplug::reference::collective
