// All-gather(v), broadcast, send/recv, groups and barrier of the Gloo
// ICollective through teplug's kernel, with 2, 3 and 4 ranks as threads and
// as processes. Data is random and never zero; results compare byte for byte
// with what each rank sent.
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/cpu/collective/gloo_test_support.h"
#include "plugins/reference/collective/random_elements.h"
#include "plugins/reference/collective/rank_launcher.h"

namespace teplug::cpu::collective {
namespace {

using reference::collective::DataType;
using reference::collective::testing::AllTopologies;
using reference::collective::testing::RandomElements;
using reference::collective::testing::RankResult;
using reference::collective::testing::RunRanks;
using reference::collective::testing::Topology;
using reference::collective::testing::TopologyName;
using testing::Comm;
using testing::Vector;
using Bytes = std::vector<unsigned char>;

// Rank r's int32 payload of `count` elements for message `tag`.
Bytes Payload(int rank, size_t count, uint64_t tag) {
  return RandomElements(DataType::kInt32, count, 1000 * tag + rank + 1);
}

void Append(Bytes& out, const Bytes& b) { out.insert(out.end(), b.begin(), b.end()); }

class GlooDataMovementTest : public ::testing::TestWithParam<Topology> {
 protected:
  void SetUp() override { ASSERT_NE(testing::KernelCollective(), nullptr); }

  // Runs body on every rank of a fresh communicator and checks they all
  // succeeded; returns each rank's output.
  std::vector<Bytes> Run(const std::function<absl::StatusOr<Bytes>(int, Comm&)>& body) {
    const int world = GetParam().world;
    const std::string blob = testing::FreshFileBlob();
    std::vector<RankResult> results =
        RunRanks(GetParam().launch, world, [&](int rank) -> absl::StatusOr<Bytes> {
          Comm comm(rank, world, blob);
          if (!comm.status().ok()) return comm.status();
          return body(rank, comm);
        });
    std::vector<Bytes> out;
    for (int r = 0; r < world; ++r) {
      EXPECT_TRUE(results[r].status.ok()) << "rank " << r << ": " << results[r].status;
      out.push_back(results[r].output);
    }
    return out;
  }
};

// Even, uneven (with an empty rank) and in place.
TEST_P(GlooDataMovementTest, AllGatherEvenUnevenAndInPlace) {
  const int world = GetParam().world;
  const std::vector<int64_t> all_counts = {4, 0, 7, 1};
  const std::vector<int64_t> counts(all_counts.begin(), all_counts.begin() + world);
  constexpr size_t kEven = 5;
  Bytes expected;
  for (int r = 0; r < world; ++r) Append(expected, Payload(r, kEven, 1));
  for (int r = 0; r < world; ++r) Append(expected, Payload(r, counts[r], 2));
  for (int r = 0; r < world; ++r) Append(expected, Payload(r, kEven, 3));
  std::vector<Bytes> got = Run([&](int rank, Comm& comm) -> absl::StatusOr<Bytes> {
    Bytes out;
    Bytes even = Payload(rank, kEven, 1);
    Bytes recv(world * kEven * 4, 0xA5);
    TeplugTensor s = Vector(even.data(), TEPLUG_DTYPE_INT32, kEven);
    TeplugTensor d = Vector(recv.data(), TEPLUG_DTYPE_INT32, world * kEven);
    if (absl::Status st = comm.Run(TEPLUG_OP_ALL_GATHER, &s, &d); !st.ok()) return st;
    Append(out, recv);
    Bytes uneven = Payload(rank, counts[rank], 2);
    size_t total = 0;
    for (int64_t c : counts) total += c;
    Bytes vrecv(total * 4, 0xA5);
    TeplugTensor vs = Vector(uneven.data(), TEPLUG_DTYPE_INT32, counts[rank]);
    TeplugTensor vd = Vector(vrecv.data(), TEPLUG_DTYPE_INT32, total);
    if (absl::Status st = comm.Run(TEPLUG_OP_ALL_GATHER, &vs, &vd, 0, counts.data()); !st.ok()) {
      return st;
    }
    Append(out, vrecv);
    Bytes inplace(world * kEven * 4, 0xA5);
    const Bytes mine = Payload(rank, kEven, 3);
    std::memcpy(inplace.data() + rank * kEven * 4, mine.data(), mine.size());
    TeplugTensor is = Vector(inplace.data() + rank * kEven * 4, TEPLUG_DTYPE_INT32, kEven);
    TeplugTensor id = Vector(inplace.data(), TEPLUG_DTYPE_INT32, world * kEven);
    if (absl::Status st = comm.Run(TEPLUG_OP_ALL_GATHER, &is, &id); !st.ok()) return st;
    Append(out, inplace);
    return out;
  });
  for (int r = 0; r < world; ++r) EXPECT_EQ(got[r], expected) << "rank " << r;
}

// From every root; the root broadcasts in place (send NULL) on odd roots.
TEST_P(GlooDataMovementTest, BroadcastFromEveryRoot) {
  const int world = GetParam().world;
  constexpr size_t kCount = 9;
  Bytes expected;
  for (int root = 0; root < world; ++root) Append(expected, Payload(root, kCount, 10 + root));
  std::vector<Bytes> got = Run([&](int rank, Comm& comm) -> absl::StatusOr<Bytes> {
    Bytes out;
    for (int root = 0; root < world; ++root) {
      const bool in_place = root % 2 == 1;
      Bytes send = Payload(rank, kCount, 10 + root);
      Bytes recv = rank == root && in_place ? send : Bytes(kCount * 4, 0xA5);
      TeplugTensor s = Vector(send.data(), TEPLUG_DTYPE_INT32, kCount);
      TeplugTensor d = Vector(recv.data(), TEPLUG_DTYPE_INT32, kCount);
      const bool pass_send = rank == root && !in_place;
      absl::Status st =
          comm.Run(TEPLUG_OP_BROADCAST, pass_send ? &s : nullptr, &d, 0, nullptr, root);
      if (!st.ok()) return st;
      Append(out, recv);
    }
    return out;
  });
  for (int r = 0; r < world; ++r) EXPECT_EQ(got[r], expected) << "rank " << r;
}

// Each rank sends to the next and receives from the previous, twice, inside
// one group (every rank sends before it receives: only a group completes it);
// then one plain send/recv pair between ranks 0 and 1, and a zero-byte pair.
TEST_P(GlooDataMovementTest, SendRecvRingInGroupAndPlainPair) {
  const int world = GetParam().world;
  constexpr size_t kCount = 200000;  // 800 KB, far more than a socket buffer holds
  std::vector<Bytes> got = Run([&](int rank, Comm& comm) -> absl::StatusOr<Bytes> {
    const int next = (rank + 1) % world, prev = (rank + world - 1) % world;
    Bytes first = Payload(rank, kCount, 20), second = Payload(rank, kCount, 21);
    Bytes r1(kCount * 4), r2(kCount * 4);
    TeplugTensor s1 = Vector(first.data(), TEPLUG_DTYPE_INT32, kCount);
    TeplugTensor s2 = Vector(second.data(), TEPLUG_DTYPE_INT32, kCount);
    TeplugTensor d1 = Vector(r1.data(), TEPLUG_DTYPE_INT32, kCount);
    TeplugTensor d2 = Vector(r2.data(), TEPLUG_DTYPE_INT32, kCount);
    if (absl::Status st = comm.GroupStart(); !st.ok()) return st;
    for (auto* s : {&s1, &s2}) {
      if (absl::Status st = comm.Run(TEPLUG_OP_SEND, s, nullptr, 0, nullptr, 0, next); !st.ok()) {
        return st;
      }
    }
    for (auto* d : {&d1, &d2}) {
      if (absl::Status st = comm.Run(TEPLUG_OP_RECV, nullptr, d, 0, nullptr, 0, prev); !st.ok()) {
        return st;
      }
    }
    if (absl::Status st = comm.GroupEnd(); !st.ok()) return st;
    Bytes out = r1;
    Append(out, r2);
    if (rank <= 1) {
      Bytes plain = Payload(rank, 3, 22), plain_recv(3 * 4, 0xA5);
      TeplugTensor ps = Vector(plain.data(), TEPLUG_DTYPE_INT32, 3);
      TeplugTensor pd = Vector(plain_recv.data(), TEPLUG_DTYPE_INT32, 3);
      TeplugTensor empty = Vector(nullptr, TEPLUG_DTYPE_INT32, 0);
      absl::Status st = rank == 0 ? comm.Run(TEPLUG_OP_SEND, &ps, nullptr, 0, nullptr, 0, 1)
                                  : comm.Run(TEPLUG_OP_RECV, nullptr, &pd, 0, nullptr, 0, 0);
      if (!st.ok()) return st;
      st = rank == 0 ? comm.Run(TEPLUG_OP_SEND, &empty, nullptr, 0, nullptr, 0, 1)
                     : comm.Run(TEPLUG_OP_RECV, nullptr, &empty, 0, nullptr, 0, 0);
      if (!st.ok()) return st;
      if (rank == 1) Append(out, plain_recv);
    }
    return out;
  });
  for (int r = 0; r < world; ++r) {
    const int prev = (r + world - 1) % world;
    Bytes expected = Payload(prev, kCount, 20);
    Append(expected, Payload(prev, kCount, 21));
    if (r == 1) Append(expected, Payload(0, 3, 22));
    EXPECT_EQ(got[r], expected) << "rank " << r;
  }
}

// A group holding an all-reduce, a broadcast and a send/recv exchange with
// both neighbours: the collectives run first, in call order, then the
// transfers; a barrier and a zero-count all-reduce after it keep ranks in step.
TEST_P(GlooDataMovementTest, GroupOfCollectivesAndTransfers) {
  const int world = GetParam().world;
  std::vector<Bytes> got = Run([&](int rank, Comm& comm) -> absl::StatusOr<Bytes> {
    const int next = (rank + 1) % world, prev = (rank + world - 1) % world;
    std::vector<int32_t> sum_in = {rank + 1, 10 * (rank + 1)}, sum_out(2, -1);
    Bytes bcast = rank == 0 ? Payload(0, 4, 30) : Bytes(16, 0xA5);
    Bytes to_next = Payload(rank, 6, 31), from_prev(24, 0xA5);
    TeplugTensor as = Vector(sum_in.data(), TEPLUG_DTYPE_INT32, 2);
    TeplugTensor ad = Vector(sum_out.data(), TEPLUG_DTYPE_INT32, 2);
    TeplugTensor b = Vector(bcast.data(), TEPLUG_DTYPE_INT32, 4);
    TeplugTensor ts = Vector(to_next.data(), TEPLUG_DTYPE_INT32, 6);
    TeplugTensor td = Vector(from_prev.data(), TEPLUG_DTYPE_INT32, 6);
    const std::vector<std::function<absl::Status()>> calls = {
        [&] { return comm.GroupStart(); },
        [&] { return comm.Run(TEPLUG_OP_RECV, nullptr, &td, 0, nullptr, 0, prev); },
        [&] { return comm.Run(TEPLUG_OP_ALL_REDUCE, &as, &ad, TEPLUG_REDUCE_SUM); },
        [&] { return comm.Run(TEPLUG_OP_SEND, &ts, nullptr, 0, nullptr, 0, next); },
        [&] { return comm.Run(TEPLUG_OP_BROADCAST, nullptr, &b, 0, nullptr, 0); },
        [&] { return comm.GroupEnd(); },
        [&] { return comm.Run(TEPLUG_OP_BARRIER, nullptr, nullptr); },
        [&] {
          TeplugTensor empty = Vector(nullptr, TEPLUG_DTYPE_FP32, 0);
          return comm.Run(TEPLUG_OP_ALL_REDUCE, &empty, &empty, TEPLUG_REDUCE_AVG);
        },
    };
    for (const auto& call : calls) {
      if (absl::Status st = call(); !st.ok()) return st;
    }
    Bytes out(reinterpret_cast<unsigned char*>(sum_out.data()),
              reinterpret_cast<unsigned char*>(sum_out.data() + 2));
    Append(out, bcast);
    Append(out, from_prev);
    return out;
  });
  const int32_t n = world * (world + 1) / 2;
  for (int r = 0; r < world; ++r) {
    const std::vector<int32_t> sums = {n, 10 * n};
    Bytes expected(reinterpret_cast<const unsigned char*>(sums.data()),
                   reinterpret_cast<const unsigned char*>(sums.data() + 2));
    Append(expected, Payload(0, 4, 30));
    Append(expected, Payload((r + world - 1) % world, 6, 31));
    EXPECT_EQ(got[r], expected) << "rank " << r;
  }
}

INSTANTIATE_TEST_SUITE_P(Topologies, GlooDataMovementTest, ::testing::ValuesIn(AllTopologies()),
                         TopologyName);

}  // namespace
}  // namespace teplug::cpu::collective
