// All-reduce and reduce-scatter of the Gloo ICollective through teplug's
// kernel, with 2, 3 and 4 ranks as threads and as processes: every served
// dtype x every reduction on random non-zero inputs, checked against the
// exact oracle of the reference collectives (reduction_oracle.h). Tolerance:
// Gloo's ring reduces in an order other than rank order, so floating sums
// are held to the order-independent bound world * u_acc * sum|x| (+ one
// rounding of the output format); min, max and every integer result are
// exact (integer sum/prod wrap, avg truncates toward zero).
#include <cmath>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "plugins/cpu/collective/gloo_test_support.h"
#include "plugins/reference/collective/random_elements.h"
#include "plugins/reference/collective/rank_launcher.h"
#include "plugins/reference/collective/reduction_oracle.h"

namespace teplug::cpu::collective {
namespace {

using reference::collective::DataType;
using reference::collective::ReduceOp;
using reference::collective::testing::AllTopologies;
using reference::collective::testing::CheckReduction;
using reference::collective::testing::ElementBytes;
using reference::collective::testing::MakeReduceCases;
using reference::collective::testing::RandomElements;
using reference::collective::testing::RankResult;
using reference::collective::testing::ReduceCase;
using reference::collective::testing::RunRanks;
using reference::collective::testing::Topology;
using reference::collective::testing::TopologyName;
using testing::AbiDType;
using testing::Comm;
using testing::Vector;

// Cases for the ABI's types only (the oracle also knows fp64).
std::vector<ReduceCase> AbiCases(int world, size_t count, uint64_t seed) {
  std::vector<ReduceCase> out;
  for (ReduceCase& c : MakeReduceCases(world, count, seed)) {
    if (AbiDType(c.type) != TEPLUG_DTYPE_INVALID) out.push_back(std::move(c));
  }
  return out;
}

std::vector<const unsigned char*> InputsAt(const ReduceCase& c, size_t offset) {
  std::vector<const unsigned char*> in;
  for (const auto& buffer : c.inputs) in.push_back(buffer.data() + offset * ElementBytes(c.type));
  return in;
}

std::string CaseName(const ReduceCase& c) {
  return absl::StrCat(reference::collective::DataTypeName(c.type), " ",
                      reference::collective::ReduceOpName(c.op));
}

void ExpectAllOk(const std::vector<RankResult>& results) {
  for (size_t r = 0; r < results.size(); ++r) {
    ASSERT_TRUE(results[r].status.ok()) << "rank " << r << ": " << results[r].status;
  }
}

class GlooReductionTest : public ::testing::TestWithParam<Topology> {
 protected:
  void SetUp() override { ASSERT_NE(testing::KernelCollective(), nullptr); }
};

// Out of place and in place; every rank must get the same bytes.
TEST_P(GlooReductionTest, AllReduceEveryTypeAndOperator) {
  const int world = GetParam().world;
  constexpr size_t kCount = 37;
  const std::vector<ReduceCase> cases = AbiCases(world, kCount, 100);
  const std::string blob = testing::FreshFileBlob();
  auto results = RunRanks(
      GetParam().launch, world, [&](int rank) -> absl::StatusOr<std::vector<unsigned char>> {
        Comm comm(rank, world, blob);
        if (!comm.status().ok()) return comm.status();
        std::vector<unsigned char> out;
        for (const ReduceCase& c : cases) {
          const size_t bytes = kCount * ElementBytes(c.type);
          const int32_t dtype = AbiDType(c.type);
          std::vector<unsigned char> recv(bytes, 0xA5);
          TeplugTensor s = Vector(c.inputs[rank].data(), dtype, kCount);
          TeplugTensor d = Vector(recv.data(), dtype, kCount);
          absl::Status st = comm.Run(TEPLUG_OP_ALL_REDUCE, &s, &d, static_cast<int32_t>(c.op));
          if (!st.ok()) return st;
          out.insert(out.end(), recv.begin(), recv.end());
          std::vector<unsigned char> inplace = c.inputs[rank];
          TeplugTensor io = Vector(inplace.data(), dtype, kCount);
          st = comm.Run(TEPLUG_OP_ALL_REDUCE, &io, &io, static_cast<int32_t>(c.op));
          if (!st.ok()) return st;
          out.insert(out.end(), inplace.begin(), inplace.end());
        }
        return out;
      });
  ASSERT_NO_FATAL_FAILURE(ExpectAllOk(results));
  for (int r = 0; r < world; ++r) {
    EXPECT_EQ(results[r].output, results[0].output) << "rank " << r << " differs from rank 0";
    size_t at = 0;
    for (const ReduceCase& c : cases) {
      const size_t bytes = kCount * ElementBytes(c.type);
      for (const char* how : {"out of place", "in place"}) {
        EXPECT_EQ(
            CheckReduction(InputsAt(c, 0), kCount, c.type, c.op, results[r].output.data() + at), "")
            << CaseName(c) << ", " << how << ", rank " << r;
        at += bytes;
      }
    }
  }
}

// Uneven blocks, one of them empty; in place for rank 0's block layout
// (recv = send + offset(rank)).
TEST_P(GlooReductionTest, ReduceScatterUnevenEveryTypeAndOperator) {
  const int world = GetParam().world;
  const std::vector<int64_t> all_counts = {3, 0, 5, 2};
  std::vector<int64_t> counts(all_counts.begin(), all_counts.begin() + world);
  std::vector<size_t> offsets;
  size_t total = 0;
  for (int64_t c : counts) {
    offsets.push_back(total);
    total += static_cast<size_t>(c);
  }
  const std::vector<ReduceCase> cases = AbiCases(world, total, 200);
  const std::string blob = testing::FreshFileBlob();
  auto results = RunRanks(
      GetParam().launch, world, [&](int rank) -> absl::StatusOr<std::vector<unsigned char>> {
        Comm comm(rank, world, blob);
        if (!comm.status().ok()) return comm.status();
        std::vector<unsigned char> out;
        for (const ReduceCase& c : cases) {
          const size_t eb = ElementBytes(c.type);
          const int32_t dtype = AbiDType(c.type);
          const size_t mine = static_cast<size_t>(counts[rank]);
          std::vector<unsigned char> recv(mine * eb, 0xA5);
          TeplugTensor s = Vector(c.inputs[rank].data(), dtype, total);
          TeplugTensor d = Vector(recv.data(), dtype, mine);
          absl::Status st =
              comm.Run(TEPLUG_OP_REDUCE_SCATTER, &s, &d, static_cast<int32_t>(c.op), counts.data());
          if (!st.ok()) return st;
          out.insert(out.end(), recv.begin(), recv.end());
          std::vector<unsigned char> inplace = c.inputs[rank];
          TeplugTensor io = Vector(inplace.data(), dtype, total);
          TeplugTensor block = Vector(inplace.data() + offsets[rank] * eb, dtype, mine);
          st = comm.Run(TEPLUG_OP_REDUCE_SCATTER, &io, &block, static_cast<int32_t>(c.op),
                        counts.data());
          if (!st.ok()) return st;
          out.insert(out.end(), inplace.begin() + offsets[rank] * eb,
                     inplace.begin() + (offsets[rank] + mine) * eb);
        }
        return out;
      });
  ASSERT_NO_FATAL_FAILURE(ExpectAllOk(results));
  for (int r = 0; r < world; ++r) {
    size_t at = 0;
    const size_t mine = static_cast<size_t>(counts[r]);
    for (const ReduceCase& c : cases) {
      for (const char* how : {"out of place", "in place"}) {
        EXPECT_EQ(CheckReduction(InputsAt(c, offsets[r]), mine, c.type, c.op,
                                 results[r].output.data() + at),
                  "")
            << CaseName(c) << ", " << how << ", rank " << r;
        at += mine * ElementBytes(c.type);
      }
    }
    EXPECT_EQ(at, results[r].output.size());
  }
}

// More than Gloo's 1 MiB segment, so the ring runs several segments.
TEST_P(GlooReductionTest, AllReduceSpanningSegments) {
  const int world = GetParam().world;
  constexpr size_t kCount = 300001;
  std::vector<ReduceCase> cases;
  for (DataType type : {DataType::kFp32, DataType::kBf16}) {
    ReduceCase c{type, ReduceOp::kSum, {}};
    for (int r = 0; r < world; ++r) c.inputs.push_back(RandomElements(type, kCount, 300 + r));
    cases.push_back(std::move(c));
  }
  const std::string blob = testing::FreshFileBlob();
  auto results = RunRanks(
      GetParam().launch, world, [&](int rank) -> absl::StatusOr<std::vector<unsigned char>> {
        Comm comm(rank, world, blob);
        if (!comm.status().ok()) return comm.status();
        std::vector<unsigned char> out;
        for (const ReduceCase& c : cases) {
          std::vector<unsigned char> recv(kCount * ElementBytes(c.type));
          TeplugTensor s = Vector(c.inputs[rank].data(), AbiDType(c.type), kCount);
          TeplugTensor d = Vector(recv.data(), AbiDType(c.type), kCount);
          absl::Status st = comm.Run(TEPLUG_OP_ALL_REDUCE, &s, &d, TEPLUG_REDUCE_SUM);
          if (!st.ok()) return st;
          out.insert(out.end(), recv.begin(), recv.end());
        }
        return out;
      });
  ASSERT_NO_FATAL_FAILURE(ExpectAllOk(results));
  for (int r = 0; r < world; ++r) {
    size_t at = 0;
    for (const ReduceCase& c : cases) {
      EXPECT_EQ(CheckReduction(InputsAt(c, 0), kCount, c.type, c.op, results[r].output.data() + at),
                "")
          << CaseName(c) << ", rank " << r;
      at += kCount * ElementBytes(c.type);
    }
  }
}

// Every rank sums each case's input in place, placed `offset` bytes past an
// aligned address; returns each rank's results, concatenated.
std::vector<RankResult> SumInPlace(const Topology& topology, const std::vector<ReduceCase>& cases,
                                   size_t offset) {
  const std::string blob = testing::FreshFileBlob();
  return RunRanks(
      topology.launch, topology.world,
      [&](int rank) -> absl::StatusOr<std::vector<unsigned char>> {
        Comm comm(rank, topology.world, blob);
        if (!comm.status().ok()) return comm.status();
        std::vector<unsigned char> out;
        for (const ReduceCase& c : cases) {
          const std::vector<unsigned char>& in = c.inputs[rank];
          std::vector<unsigned char> storage(in.size() + offset);
          std::memcpy(storage.data() + offset, in.data(), in.size());
          TeplugTensor t = Vector(storage.data() + offset, AbiDType(c.type), in.size() / ElementBytes(c.type));
          absl::Status st = comm.Run(TEPLUG_OP_ALL_REDUCE, &t, &t, TEPLUG_REDUCE_SUM);
          if (!st.ok()) return st;
          out.insert(out.end(), storage.begin() + offset, storage.end());
        }
        return out;
      });
}

// Every rank got the same bytes, and each case's sum is within the oracle's bound.
void ExpectSameSums(const std::vector<RankResult>& results, const std::vector<ReduceCase>& cases) {
  ASSERT_NO_FATAL_FAILURE(ExpectAllOk(results));
  for (size_t r = 0; r < results.size(); ++r) {
    EXPECT_EQ(results[r].output, results[0].output) << "rank " << r << " differs from rank 0";
    size_t at = 0;
    for (const ReduceCase& c : cases) {
      const size_t count = c.inputs[0].size() / ElementBytes(c.type);
      EXPECT_EQ(CheckReduction(InputsAt(c, 0), count, c.type, c.op, results[r].output.data() + at), "")
          << CaseName(c) << ", " << count << " elements, rank " << r;
      at += c.inputs[0].size();
    }
  }
}

// Floating sums give every rank the same bits on either side of the size
// where few ranks stop gathering and folding (1 MiB, where the rings end and
// gloo::allreduce takes over); below it the result is the rank-order fold
// ((x0 + x1) + x2) ..., computed here in fp32.
TEST_P(GlooReductionTest, FloatSumsGiveEveryRankTheSameBits) {
  const int world = GetParam().world;
  std::vector<ReduceCase> cases;
  for (size_t count : {1000, 262145}) {  // 4000 bytes, 1 MiB + 4
    ReduceCase c{DataType::kFp32, ReduceOp::kSum, {}};
    for (int r = 0; r < world; ++r) c.inputs.push_back(RandomElements(c.type, count, 700 + count + r));
    cases.push_back(std::move(c));
  }
  const std::vector<RankResult> results = SumInPlace(GetParam(), cases, 0);
  ASSERT_NO_FATAL_FAILURE(ExpectSameSums(results, cases));
  const size_t count = 1000;
  std::vector<float> folded(count);
  for (int r = 0; r < world; ++r) {
    for (size_t e = 0; e < count; ++e) {
      float x;
      std::memcpy(&x, cases[0].inputs[r].data() + e * sizeof(float), sizeof x);
      folded[e] = r == 0 ? x : folded[e] + x;
    }
  }
  for (int r = 0; r < world; ++r) {
    EXPECT_EQ(std::memcmp(results[r].output.data(), folded.data(), count * sizeof(float)), 0)
        << "rank " << r << ": 1000 elements differ from the rank-order fold";
  }
}

// Five ranks, more than gather and fold: floating sums up to 1 MiB run
// halving-doubling, which reduces each block on one rank and copies it to
// all, so every rank gets the same bits too.
TEST(GlooReductionFiveRanksTest, HalvingDoublingGivesEveryRankTheSameBits) {
  ASSERT_NE(testing::KernelCollective(), nullptr);
  constexpr int kWorld = 5;
  std::vector<ReduceCase> cases;
  for (size_t count : {1000, 65536}) {
    ReduceCase c{DataType::kFp32, ReduceOp::kSum, {}};
    for (int r = 0; r < kWorld; ++r)
      c.inputs.push_back(RandomElements(c.type, count, 800 + count + r));
    cases.push_back(std::move(c));
  }
  ExpectSameSums(
      SumInPlace(Topology{reference::collective::testing::Launch::kThreads, kWorld}, cases, 0),
      cases);
}

// One communicator alternating messages its rings serve (pair buffers bound
// once: the reducing ring for int32, gathering or halving-doubling for fp32)
// with messages gloo::allreduce serves (unbound buffers).
TEST_P(GlooReductionTest, RingAndUnboundAllReducesInterleave) {
  std::vector<ReduceCase> cases;
  for (int i = 0; i < 2; ++i) {
    // 1 KiB, then 1.08 MB (past the rings' 1 MiB)
    for (auto [type, count] : {std::pair{DataType::kInt32, size_t{256}}, {DataType::kFp32, size_t{256}},
                               {DataType::kFp32, size_t{270000}}}) {
      ReduceCase c{type, ReduceOp::kSum, {}};
      for (int r = 0; r < GetParam().world; ++r) c.inputs.push_back(RandomElements(type, count, 1000 + 7 * i + r));
      cases.push_back(std::move(c));
    }
  }
  ExpectSameSums(SumInPlace(GetParam(), cases, 0), cases);
}

// Buffers one byte past an element boundary (the ABI does not promise
// alignment): every ring reduces them as it does aligned ones.
TEST_P(GlooReductionTest, MisalignedBuffers) {
  std::vector<ReduceCase> cases;
  for (DataType type : {DataType::kFp32, DataType::kInt32}) {
    ReduceCase c{type, ReduceOp::kSum, {}};
    for (int r = 0; r < GetParam().world; ++r) c.inputs.push_back(RandomElements(type, 100, 900 + r));
    cases.push_back(std::move(c));
  }
  ExpectSameSums(SumInPlace(GetParam(), cases, 1), cases);
}

// NaN on one rank wins min and max on every rank; the other elements are exact.
TEST_P(GlooReductionTest, MinMaxPropagateNaN) {
  const int world = GetParam().world;
  const std::string blob = testing::FreshFileBlob();
  auto results = RunRanks(
      GetParam().launch, world, [&](int rank) -> absl::StatusOr<std::vector<unsigned char>> {
        Comm comm(rank, world, blob);
        if (!comm.status().ok()) return comm.status();
        // Element 0 is NaN on the last rank only; element 1 is rank + 0.5.
        std::vector<float> in = {rank == world - 1 ? std::nanf("") : 1.0f, rank + 0.5f};
        std::vector<unsigned char> out;
        for (int32_t op : {TEPLUG_REDUCE_MIN, TEPLUG_REDUCE_MAX}) {
          std::vector<float> recv(2);
          TeplugTensor s = Vector(in.data(), TEPLUG_DTYPE_FP32, 2);
          TeplugTensor d = Vector(recv.data(), TEPLUG_DTYPE_FP32, 2);
          absl::Status st = comm.Run(TEPLUG_OP_ALL_REDUCE, &s, &d, op);
          if (!st.ok()) return st;
          const auto* b = reinterpret_cast<const unsigned char*>(recv.data());
          out.insert(out.end(), b, b + sizeof(float) * 2);
        }
        return out;
      });
  ASSERT_NO_FATAL_FAILURE(ExpectAllOk(results));
  for (int r = 0; r < world; ++r) {
    float got[4];
    ASSERT_EQ(results[r].output.size(), sizeof got);
    std::memcpy(got, results[r].output.data(), sizeof got);
    EXPECT_TRUE(std::isnan(got[0])) << "min, rank " << r;
    EXPECT_EQ(got[1], 0.5f) << "min, rank " << r;
    EXPECT_TRUE(std::isnan(got[2])) << "max, rank " << r;
    EXPECT_EQ(got[3], world - 0.5f) << "max, rank " << r;
  }
}

INSTANTIATE_TEST_SUITE_P(Topologies, GlooReductionTest, ::testing::ValuesIn(AllTopologies()),
                         TopologyName);

}  // namespace
}  // namespace teplug::cpu::collective
