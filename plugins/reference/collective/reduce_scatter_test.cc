// ReduceScatter and uneven ReduceScatterV with 2, 3 and 4 ranks, as threads
// and as processes: each rank's block must be the exact oracle's reduction of
// that block over all ranks, for every reducible type and operator, out of
// place and in place.
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/reference/collective/communicator.h"
#include "plugins/reference/collective/rank_launcher.h"
#include "plugins/reference/collective/reduction_oracle.h"

namespace teplug::reference::collective {
namespace {

using testing::AllTopologies;
using testing::CheckReduction;
using testing::ElementBytes;
using testing::ExpectAllRanksOk;
using testing::MakeReduceCases;
using testing::RankResult;
using testing::ReduceCase;
using testing::RunOnCommunicators;
using testing::SmallChunkOptions;
using testing::Topology;
using testing::TopologyName;

// Staging size per round: 4 ranks: 64-byte parts, 8 fp64 per round.
constexpr size_t kChunkBytes = 256;

// Uneven block sizes: one empty block, the others differ and span rounds.
std::vector<size_t> UnevenCounts(int world) {
  std::vector<size_t> counts;
  for (int r = 0; r < world; ++r) counts.push_back(r == world - 1 ? 0 : 13 + 29 * r);
  return counts;
}

void RunAndCheck(const Topology& topology, const std::vector<size_t>& counts, bool uneven,
                 bool in_place) {
  std::vector<size_t> offsets;
  size_t total = 0;
  for (size_t count : counts) {
    offsets.push_back(total);
    total += count;
  }
  // Each rank's input holds every block: `total` elements.
  const std::vector<ReduceCase> cases =
      MakeReduceCases(topology.world, total, 500 * topology.world);
  const std::vector<RankResult> results = RunOnCommunicators(
      topology.launch, topology.world, SmallChunkOptions(kChunkBytes),
      [&](int rank, Communicator& communicator) -> absl::StatusOr<std::vector<unsigned char>> {
        std::vector<unsigned char> all_outputs;
        for (const ReduceCase& c : cases) {
          const size_t bytes = counts[rank] * ElementBytes(c.type);
          std::vector<unsigned char> in = c.inputs[rank];
          std::vector<unsigned char> separate_out(bytes);
          unsigned char* out =
              in_place ? in.data() + offsets[rank] * ElementBytes(c.type) : separate_out.data();
          absl::Status status =
              uneven ? communicator.ReduceScatterV(in.data(), out, counts, c.type, c.op)
                     : communicator.ReduceScatter(in.data(), out, counts[0], c.type, c.op);
          if (!status.ok()) return status;
          all_outputs.insert(all_outputs.end(), out, out + bytes);
        }
        return all_outputs;
      });
  ASSERT_NO_FATAL_FAILURE(ExpectAllRanksOk(results));
  for (int r = 0; r < topology.world; ++r) {
    size_t offset = 0;
    for (const ReduceCase& c : cases) {
      const size_t element_bytes = ElementBytes(c.type);
      std::vector<const unsigned char*> block_inputs;
      for (const auto& input : c.inputs) {
        block_inputs.push_back(input.data() + offsets[r] * element_bytes);
      }
      ASSERT_LE(offset + counts[r] * element_bytes, results[r].output.size());
      EXPECT_EQ(
          CheckReduction(block_inputs, counts[r], c.type, c.op, results[r].output.data() + offset),
          "")
          << "rank " << r;
      offset += counts[r] * element_bytes;
    }
    EXPECT_EQ(offset, results[r].output.size()) << "rank " << r;
  }
}

class ReduceScatterTest : public ::testing::TestWithParam<Topology> {};

TEST_P(ReduceScatterTest, EvenBlocksMatchTheExactOracle) {
  RunAndCheck(GetParam(), std::vector<size_t>(GetParam().world, 45),
              /*uneven=*/false, /*in_place=*/false);
}

TEST_P(ReduceScatterTest, EvenBlocksInPlace) {
  RunAndCheck(GetParam(), std::vector<size_t>(GetParam().world, 45),
              /*uneven=*/false, /*in_place=*/true);
}

TEST_P(ReduceScatterTest, UnevenBlocksIncludingAnEmptyOne) {
  RunAndCheck(GetParam(), UnevenCounts(GetParam().world), /*uneven=*/true,
              /*in_place=*/false);
}

TEST_P(ReduceScatterTest, UnevenBlocksInPlace) {
  RunAndCheck(GetParam(), UnevenCounts(GetParam().world), /*uneven=*/true,
              /*in_place=*/true);
}

INSTANTIATE_TEST_SUITE_P(Topologies, ReduceScatterTest, ::testing::ValuesIn(AllTopologies()),
                         TopologyName);

}  // namespace
}  // namespace teplug::reference::collective
