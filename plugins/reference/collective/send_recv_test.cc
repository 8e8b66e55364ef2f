// Send/Recv and groups with 2, 3 and 4 ranks as threads and as processes:
// rings, grouped exchanges of messages many chunks long in both directions
// (which would deadlock without the group's progress loop), message order on
// one channel, send to self, and collectives queued inside a group.
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/reference/collective/communicator.h"
#include "plugins/reference/collective/random_elements.h"
#include "plugins/reference/collective/rank_launcher.h"

namespace teplug::reference::collective {
namespace {

using testing::AllTopologies;
using testing::ExpectAllRanksOk;
using testing::RandomElements;
using testing::RankResult;
using testing::RunOnCommunicators;
using testing::SmallChunkOptions;
using testing::Topology;
using testing::TopologyName;

// Staging size per round: channel buffer size; large messages span several.
constexpr size_t kChunkBytes = 256;

// Random message from `sender` to `receiver` (number `index` between them).
std::vector<unsigned char> Message(int sender, int receiver, int index, size_t count,
                                   DataType type) {
  return RandomElements(type, count, 1000 * sender + 100 * receiver + index + 1);
}

void ExpectOutputs(const std::vector<RankResult>& results,
                   const std::vector<std::vector<unsigned char>>& expected) {
  ASSERT_NO_FATAL_FAILURE(ExpectAllRanksOk(results));
  for (size_t r = 0; r < results.size(); ++r) {
    EXPECT_EQ(results[r].output, expected[r]) << "rank " << r;
  }
}

class SendRecvTest : public ::testing::TestWithParam<Topology> {};

// Ungrouped ring: even ranks send first, odd ranks receive first, with
// single-chunk messages, so it completes without a group.
TEST_P(SendRecvTest, UngroupedRingOfSmallMessages) {
  const Topology topology = GetParam();
  const int world = topology.world;
  constexpr size_t kCount = 50;  // 200 bytes < one 256-byte chunk
  const std::vector<RankResult> results = RunOnCommunicators(
      topology.launch, world, SmallChunkOptions(kChunkBytes),
      [&](int rank, Communicator& communicator) -> absl::StatusOr<std::vector<unsigned char>> {
        const int next = (rank + 1) % world;
        const int previous = (rank + world - 1) % world;
        const auto outgoing = Message(rank, next, 0, kCount, DataType::kInt32);
        std::vector<unsigned char> incoming(outgoing.size());
        auto send = [&] {
          return communicator.Send(outgoing.data(), kCount, DataType::kInt32, next);
        };
        auto recv = [&] {
          return communicator.Recv(incoming.data(), kCount, DataType::kInt32, previous);
        };
        absl::Status first = rank % 2 == 0 ? send() : recv();
        if (!first.ok()) return first;
        absl::Status second = rank % 2 == 0 ? recv() : send();
        if (!second.ok()) return second;
        return incoming;
      });
  std::vector<std::vector<unsigned char>> expected;
  for (int r = 0; r < world; ++r) {
    expected.push_back(Message((r + world - 1) % world, r, 0, kCount, DataType::kInt32));
  }
  ExpectOutputs(results, expected);
}

// Every rank sends a many-chunk message to every rank (itself included) and
// receives one from every rank, all in one group, sends posted first. Each
// send needs its receiver to drain the channel several times, so this only
// completes if the group progresses all transfers together.
TEST_P(SendRecvTest, GroupedAllToAllOfLargeMessagesNeverDeadlocks) {
  const Topology topology = GetParam();
  const int world = topology.world;
  constexpr size_t kCount = 777;  // 1554 bf16 bytes: 7 chunks of 256 bytes
  const std::vector<RankResult> results = RunOnCommunicators(
      topology.launch, world, SmallChunkOptions(kChunkBytes),
      [&](int rank, Communicator& communicator) -> absl::StatusOr<std::vector<unsigned char>> {
        std::vector<std::vector<unsigned char>> outgoing, incoming;
        for (int peer = 0; peer < world; ++peer) {
          outgoing.push_back(Message(rank, peer, 0, kCount, DataType::kBf16));
          incoming.emplace_back(outgoing.back().size());
        }
        absl::Status status = communicator.GroupStart();
        for (int peer = 0; peer < world && status.ok(); ++peer) {
          status = communicator.Send(outgoing[peer].data(), kCount, DataType::kBf16, peer);
        }
        for (int peer = 0; peer < world && status.ok(); ++peer) {
          status = communicator.Recv(incoming[peer].data(), kCount, DataType::kBf16, peer);
        }
        if (!status.ok()) return status;
        status = communicator.GroupEnd();
        if (!status.ok()) return status;
        std::vector<unsigned char> all;
        for (const auto& message : incoming) all.insert(all.end(), message.begin(), message.end());
        return all;
      });
  std::vector<std::vector<unsigned char>> expected(world);
  for (int r = 0; r < world; ++r) {
    for (int sender = 0; sender < world; ++sender) {
      const auto message = Message(sender, r, 0, kCount, DataType::kBf16);
      expected[r].insert(expected[r].end(), message.begin(), message.end());
    }
  }
  ExpectOutputs(results, expected);
}

// Three messages of different sizes to the same peer arrive in send order,
// even though the receiver posts the receives inside a group.
TEST_P(SendRecvTest, MessagesOnOneChannelArriveInOrder) {
  const Topology topology = GetParam();
  const int world = topology.world;
  const size_t kCounts[] = {300, 7, 129};
  const std::vector<RankResult> results = RunOnCommunicators(
      topology.launch, world, SmallChunkOptions(kChunkBytes),
      [&](int rank, Communicator& communicator) -> absl::StatusOr<std::vector<unsigned char>> {
        const int next = (rank + 1) % world;
        const int previous = (rank + world - 1) % world;
        std::vector<std::vector<unsigned char>> outgoing, incoming;
        for (int i = 0; i < 3; ++i) {
          outgoing.push_back(Message(rank, next, i, kCounts[i], DataType::kFp64));
          incoming.emplace_back(Message(previous, rank, i, kCounts[i], DataType::kFp64).size());
        }
        absl::Status status = communicator.GroupStart();
        for (int i = 0; i < 3 && status.ok(); ++i) {
          status = communicator.Recv(incoming[i].data(), kCounts[i], DataType::kFp64, previous);
        }
        for (int i = 0; i < 3 && status.ok(); ++i) {
          status = communicator.Send(outgoing[i].data(), kCounts[i], DataType::kFp64, next);
        }
        if (!status.ok()) return status;
        status = communicator.GroupEnd();
        if (!status.ok()) return status;
        std::vector<unsigned char> all;
        for (const auto& message : incoming) all.insert(all.end(), message.begin(), message.end());
        return all;
      });
  std::vector<std::vector<unsigned char>> expected(world);
  for (int r = 0; r < world; ++r) {
    for (int i = 0; i < 3; ++i) {
      const auto message = Message((r + world - 1) % world, r, i, kCounts[i], DataType::kFp64);
      expected[r].insert(expected[r].end(), message.begin(), message.end());
    }
  }
  ExpectOutputs(results, expected);
}

// A group holding an AllReduce and a ring exchange: the collective runs at
// GroupEnd (the buffer is untouched before) and the exchange completes too.
TEST_P(SendRecvTest, GroupQueuesCollectivesUntilGroupEnd) {
  const Topology topology = GetParam();
  const int world = topology.world;
  const std::vector<RankResult> results = RunOnCommunicators(
      topology.launch, world, SmallChunkOptions(kChunkBytes),
      [&](int rank, Communicator& communicator) -> absl::StatusOr<std::vector<unsigned char>> {
        int64_t value = 10 + rank;
        int64_t sent = 1000 + rank, received = 0;
        absl::Status status = communicator.GroupStart();
        if (status.ok()) {
          status = communicator.AllReduce(&value, &value, 1, DataType::kInt64, ReduceOp::kSum);
        }
        if (status.ok()) {
          status = communicator.Send(&sent, 1, DataType::kInt64, (rank + 1) % world);
        }
        if (status.ok()) {
          status = communicator.Recv(&received, 1, DataType::kInt64, (rank + world - 1) % world);
        }
        if (!status.ok()) return status;
        const int64_t value_before_group_end = value;
        status = communicator.GroupEnd();
        if (!status.ok()) return status;
        std::vector<unsigned char> out(3 * sizeof(int64_t));
        std::memcpy(out.data(), &value_before_group_end, sizeof(int64_t));
        std::memcpy(out.data() + 8, &value, sizeof(int64_t));
        std::memcpy(out.data() + 16, &received, sizeof(int64_t));
        return out;
      });
  ASSERT_NO_FATAL_FAILURE(ExpectAllRanksOk(results));
  for (int r = 0; r < world; ++r) {
    ASSERT_EQ(results[r].output.size(), 3 * sizeof(int64_t));
    int64_t before = 0, after = 0, received = 0;
    std::memcpy(&before, results[r].output.data(), 8);
    std::memcpy(&after, results[r].output.data() + 8, 8);
    std::memcpy(&received, results[r].output.data() + 16, 8);
    EXPECT_EQ(before, 10 + r) << "rank " << r << ": AllReduce ran before GroupEnd";
    EXPECT_EQ(after, 10 * world + world * (world - 1) / 2) << "rank " << r;
    EXPECT_EQ(received, 1000 + (r + world - 1) % world) << "rank " << r;
  }
}

INSTANTIATE_TEST_SUITE_P(Topologies, SendRecvTest, ::testing::ValuesIn(AllTopologies()),
                         TopologyName);

}  // namespace
}  // namespace teplug::reference::collective
