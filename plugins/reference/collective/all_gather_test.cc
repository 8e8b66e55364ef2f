// AllGather and uneven AllGatherV with 2, 3 and 4 ranks, as threads and as
// processes: outputs must be the exact concatenation of every rank's random
// input, for byte-sized, wide and packed (fp4) types, out of place and in
// place.
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

// Staging size per round: uneven counts span up to 6 rounds.
constexpr size_t kChunkBytes = 512;

constexpr DataType kTypes[] = {DataType::kFp32,    DataType::kBf16,  DataType::kFp8E4M3,
                               DataType::kFp4E2M1, DataType::kInt64, DataType::kUint8};

// Uneven per-rank counts: rank 1 sends nothing, the others differ and span
// several chunks; all even so fp4 (two per byte) works.
std::vector<size_t> UnevenCounts(int world) {
  std::vector<size_t> counts;
  for (int r = 0; r < world; ++r) counts.push_back(r == 1 ? 0 : 38 + 422 * r);
  return counts;
}

// inputs[type index][rank]
std::vector<std::vector<std::vector<unsigned char>>> MakeInputs(const std::vector<size_t>& counts) {
  std::vector<std::vector<std::vector<unsigned char>>> inputs;
  uint64_t seed = 77;
  for (DataType type : kTypes) {
    std::vector<std::vector<unsigned char>> per_rank;
    for (size_t count : counts) per_rank.push_back(RandomElements(type, count, ++seed));
    inputs.push_back(std::move(per_rank));
  }
  return inputs;
}

std::vector<unsigned char> Concatenate(const std::vector<std::vector<unsigned char>>& parts) {
  std::vector<unsigned char> all;
  for (const auto& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

// Runs AllGather (even counts) or AllGatherV on every type, optionally in
// place, and checks every rank's output against the concatenated inputs.
void RunAndCheck(const Topology& topology, const std::vector<size_t>& counts, bool uneven,
                 bool in_place) {
  const auto inputs = MakeInputs(counts);
  const std::vector<RankResult> results = RunOnCommunicators(
      topology.launch, topology.world, SmallChunkOptions(kChunkBytes),
      [&](int rank, Communicator& communicator) -> absl::StatusOr<std::vector<unsigned char>> {
        std::vector<unsigned char> all_outputs;
        for (size_t t = 0; t < std::size(kTypes); ++t) {
          const std::vector<unsigned char>& mine = inputs[t][rank];
          std::vector<unsigned char> out(Concatenate(inputs[t]).size(), 0xA5);
          const unsigned char* in = mine.data();
          if (in_place) {
            size_t offset = 0;
            for (int r = 0; r < rank; ++r) offset += inputs[t][r].size();
            if (!mine.empty()) std::memcpy(out.data() + offset, mine.data(), mine.size());
            in = out.data() + offset;
          }
          absl::Status status = uneven
                                    ? communicator.AllGatherV(in, out.data(), counts, kTypes[t])
                                    : communicator.AllGather(in, out.data(), counts[0], kTypes[t]);
          if (!status.ok()) return status;
          all_outputs.insert(all_outputs.end(), out.begin(), out.end());
        }
        return all_outputs;
      });
  std::vector<unsigned char> expected;
  for (const auto& per_rank : inputs) {
    const std::vector<unsigned char> all = Concatenate(per_rank);
    expected.insert(expected.end(), all.begin(), all.end());
  }
  ASSERT_NO_FATAL_FAILURE(ExpectAllRanksOk(results));
  for (int r = 0; r < topology.world; ++r) {
    EXPECT_EQ(results[r].output, expected) << "rank " << r;
  }
}

class AllGatherTest : public ::testing::TestWithParam<Topology> {};

TEST_P(AllGatherTest, EvenCountsConcatenateInRankOrder) {
  RunAndCheck(GetParam(), std::vector<size_t>(GetParam().world, 302),
              /*uneven=*/false, /*in_place=*/false);
}

TEST_P(AllGatherTest, EvenCountsInPlace) {
  RunAndCheck(GetParam(), std::vector<size_t>(GetParam().world, 302),
              /*uneven=*/false, /*in_place=*/true);
}

TEST_P(AllGatherTest, UnevenCountsIncludingAnEmptyRank) {
  RunAndCheck(GetParam(), UnevenCounts(GetParam().world), /*uneven=*/true,
              /*in_place=*/false);
}

TEST_P(AllGatherTest, UnevenCountsInPlace) {
  RunAndCheck(GetParam(), UnevenCounts(GetParam().world), /*uneven=*/true,
              /*in_place=*/true);
}

INSTANTIATE_TEST_SUITE_P(Topologies, AllGatherTest, ::testing::ValuesIn(AllTopologies()),
                         TopologyName);

}  // namespace
}  // namespace teplug::reference::collective
