// AllReduce with 2, 3 and 4 ranks, as threads and as processes: every
// reducible type and operator on random data checked against the exact
// oracle, bit-identical results on every rank, in place, and empty buffers.
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

// Staging size per round: kCount fp64 elements span 5 chunks.
constexpr size_t kChunkBytes = 512;

// Not a multiple of any chunk's element count, and several chunks long.
constexpr size_t kCount = 301;

// Every type x operator with kCount random elements per rank.
std::vector<ReduceCase> MakeCases(int world) {
  return MakeReduceCases(world, kCount, 1000 * world);
}

class AllReduceTest : public ::testing::TestWithParam<Topology> {};

TEST_P(AllReduceTest, EveryTypeAndOperatorMatchesTheExactOracleOnEveryRank) {
  const Topology topology = GetParam();
  const std::vector<ReduceCase> cases = MakeCases(topology.world);
  const std::vector<RankResult> results = RunOnCommunicators(
      topology.launch, topology.world, SmallChunkOptions(kChunkBytes),
      [&](int rank, Communicator& communicator) -> absl::StatusOr<std::vector<unsigned char>> {
        std::vector<unsigned char> all_outputs;
        for (const ReduceCase& c : cases) {
          std::vector<unsigned char> out(kCount * ElementBytes(c.type));
          absl::Status status =
              communicator.AllReduce(c.inputs[rank].data(), out.data(), kCount, c.type, c.op);
          if (!status.ok()) return status;
          all_outputs.insert(all_outputs.end(), out.begin(), out.end());
        }
        return all_outputs;
      });
  ASSERT_NO_FATAL_FAILURE(ExpectAllRanksOk(results));
  for (int r = 1; r < topology.world; ++r) {
    EXPECT_EQ(results[r].output, results[0].output)
        << "rank " << r << " differs from rank 0: results must be bit-identical";
  }
  size_t offset = 0;
  for (const ReduceCase& c : cases) {
    std::vector<const unsigned char*> inputs;
    for (const auto& input : c.inputs) inputs.push_back(input.data());
    ASSERT_LE(offset + kCount * ElementBytes(c.type), results[0].output.size());
    EXPECT_EQ(CheckReduction(inputs, kCount, c.type, c.op, results[0].output.data() + offset), "");
    offset += kCount * ElementBytes(c.type);
  }
  EXPECT_EQ(offset, results[0].output.size());
}

TEST_P(AllReduceTest, InPlaceGivesTheSameBitsAsOutOfPlace) {
  const Topology topology = GetParam();
  const std::vector<ReduceCase> cases = MakeCases(topology.world);
  // Output per rank: for every case, the out-of-place result then the
  // in-place one.
  const std::vector<RankResult> results = RunOnCommunicators(
      topology.launch, topology.world, SmallChunkOptions(kChunkBytes),
      [&](int rank, Communicator& communicator) -> absl::StatusOr<std::vector<unsigned char>> {
        std::vector<unsigned char> all_outputs;
        for (const ReduceCase& c : cases) {
          std::vector<unsigned char> out(c.inputs[rank].size());
          absl::Status status =
              communicator.AllReduce(c.inputs[rank].data(), out.data(), kCount, c.type, c.op);
          if (!status.ok()) return status;
          std::vector<unsigned char> in_place = c.inputs[rank];
          status = communicator.AllReduce(in_place.data(), in_place.data(), kCount, c.type, c.op);
          if (!status.ok()) return status;
          all_outputs.insert(all_outputs.end(), out.begin(), out.end());
          all_outputs.insert(all_outputs.end(), in_place.begin(), in_place.end());
        }
        return all_outputs;
      });
  ASSERT_NO_FATAL_FAILURE(ExpectAllRanksOk(results));
  for (int r = 0; r < topology.world; ++r) {
    size_t offset = 0;
    for (const ReduceCase& c : cases) {
      const size_t bytes = kCount * ElementBytes(c.type);
      ASSERT_LE(offset + 2 * bytes, results[r].output.size());
      const unsigned char* out_of_place = results[r].output.data() + offset;
      const unsigned char* in_place = out_of_place + bytes;
      EXPECT_EQ(std::memcmp(out_of_place, in_place, bytes), 0)
          << "rank " << r << " " << DataTypeName(c.type) << " " << ReduceOpName(c.op);
      std::vector<const unsigned char*> inputs;
      for (const auto& input : c.inputs) inputs.push_back(input.data());
      EXPECT_EQ(CheckReduction(inputs, kCount, c.type, c.op, in_place), "") << "rank " << r;
      offset += 2 * bytes;
    }
  }
}

TEST_P(AllReduceTest, EmptyBufferIsANoOpThatKeepsRanksInStep) {
  const Topology topology = GetParam();
  const std::vector<RankResult> results = RunOnCommunicators(
      topology.launch, topology.world, SmallChunkOptions(kChunkBytes),
      [&](int rank, Communicator& communicator) -> absl::StatusOr<std::vector<unsigned char>> {
        absl::Status status =
            communicator.AllReduce(nullptr, nullptr, 0, DataType::kFp32, ReduceOp::kSum);
        if (!status.ok()) return status;
        // A real reduction after the empty one still lines up on all ranks.
        int32_t value = rank + 1;
        status = communicator.AllReduce(&value, &value, 1, DataType::kInt32, ReduceOp::kSum);
        if (!status.ok()) return status;
        std::vector<unsigned char> bytes(sizeof(value));
        std::memcpy(bytes.data(), &value, sizeof(value));
        return bytes;
      });
  ASSERT_NO_FATAL_FAILURE(ExpectAllRanksOk(results));
  const int32_t expected = topology.world * (topology.world + 1) / 2;
  for (int r = 0; r < topology.world; ++r) {
    int32_t got = 0;
    ASSERT_EQ(results[r].output.size(), sizeof(got));
    std::memcpy(&got, results[r].output.data(), sizeof(got));
    EXPECT_EQ(got, expected) << "rank " << r;
  }
}

INSTANTIATE_TEST_SUITE_P(Topologies, AllReduceTest, ::testing::ValuesIn(AllTopologies()),
                         TopologyName);

}  // namespace
}  // namespace teplug::reference::collective
