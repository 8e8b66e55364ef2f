// Broadcast from every root (out of place and in place) and Barrier, with 2,
// 3 and 4 ranks as threads and as processes.
#include <chrono>
#include <cstring>
#include <thread>
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

// Staging size per round: kCount fp32 elements span 8 chunks.
constexpr size_t kChunkBytes = 512;

// Spans several 512-byte chunks and ends in a partial one.
constexpr size_t kCount = 1001;

class BroadcastBarrierTest : public ::testing::TestWithParam<Topology> {};

TEST_P(BroadcastBarrierTest, BroadcastFromEveryRootDeliversTheRootsData) {
  const Topology topology = GetParam();
  // payloads[root][rank]: every rank has different data; only root's counts.
  std::vector<std::vector<std::vector<unsigned char>>> payloads(topology.world);
  uint64_t seed = 9;
  for (int root = 0; root < topology.world; ++root) {
    for (int r = 0; r < topology.world; ++r) {
      payloads[root].push_back(RandomElements(DataType::kFp32, kCount, ++seed));
    }
  }
  // Per root: out-of-place result, then in-place result.
  const std::vector<RankResult> results = RunOnCommunicators(
      topology.launch, topology.world, SmallChunkOptions(kChunkBytes),
      [&](int rank, Communicator& communicator) -> absl::StatusOr<std::vector<unsigned char>> {
        std::vector<unsigned char> all_outputs;
        for (int root = 0; root < topology.world; ++root) {
          const std::vector<unsigned char>& mine = payloads[root][rank];
          std::vector<unsigned char> out(mine.size(), 0x5A);
          absl::Status status =
              communicator.Broadcast(mine.data(), out.data(), kCount, DataType::kFp32, root);
          if (!status.ok()) return status;
          std::vector<unsigned char> in_place = mine;
          status = communicator.Broadcast(in_place.data(), in_place.data(), kCount, DataType::kFp32,
                                          root);
          if (!status.ok()) return status;
          all_outputs.insert(all_outputs.end(), out.begin(), out.end());
          all_outputs.insert(all_outputs.end(), in_place.begin(), in_place.end());
        }
        return all_outputs;
      });
  std::vector<unsigned char> expected;
  for (int root = 0; root < topology.world; ++root) {
    for (int copy = 0; copy < 2; ++copy) {
      expected.insert(expected.end(), payloads[root][root].begin(), payloads[root][root].end());
    }
  }
  ASSERT_NO_FATAL_FAILURE(ExpectAllRanksOk(results));
  for (int r = 0; r < topology.world; ++r) {
    EXPECT_EQ(results[r].output, expected) << "rank " << r;
  }
}

// Ranks arrive at the barrier staggered by 30 ms each; no rank may leave
// before the last one arrived. Steady-clock times are comparable across
// processes on one host (CLOCK_MONOTONIC).
TEST_P(BroadcastBarrierTest, NoRankLeavesBarrierBeforeTheLastArrives) {
  const Topology topology = GetParam();
  const std::vector<RankResult> results = RunOnCommunicators(
      topology.launch, topology.world, SmallChunkOptions(kChunkBytes),
      [&](int rank, Communicator& communicator) -> absl::StatusOr<std::vector<unsigned char>> {
        std::this_thread::sleep_for(std::chrono::milliseconds(30 * rank));
        const int64_t arrived = std::chrono::steady_clock::now().time_since_epoch().count();
        absl::Status status = communicator.Barrier();
        if (!status.ok()) return status;
        const int64_t left = std::chrono::steady_clock::now().time_since_epoch().count();
        std::vector<unsigned char> times(2 * sizeof(int64_t));
        std::memcpy(times.data(), &arrived, sizeof(arrived));
        std::memcpy(times.data() + sizeof(arrived), &left, sizeof(left));
        return times;
      });
  int64_t last_arrival = 0;
  std::vector<int64_t> departures;
  ASSERT_NO_FATAL_FAILURE(ExpectAllRanksOk(results));
  for (int r = 0; r < topology.world; ++r) {
    ASSERT_EQ(results[r].output.size(), 2 * sizeof(int64_t));
    int64_t arrived = 0, left = 0;
    std::memcpy(&arrived, results[r].output.data(), sizeof(arrived));
    std::memcpy(&left, results[r].output.data() + sizeof(arrived), sizeof(left));
    last_arrival = std::max(last_arrival, arrived);
    departures.push_back(left);
  }
  for (int r = 0; r < topology.world; ++r) {
    EXPECT_GE(departures[r], last_arrival) << "rank " << r << " left too early";
  }
}

INSTANTIATE_TEST_SUITE_P(Topologies, BroadcastBarrierTest, ::testing::ValuesIn(AllTopologies()),
                         TopologyName);

}  // namespace
}  // namespace teplug::reference::collective
