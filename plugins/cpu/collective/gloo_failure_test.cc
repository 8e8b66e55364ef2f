// Failures of the Gloo ICollective through teplug's kernel: a rank that never
// arrives is named, an op a peer never joins times out naming the op and the
// ranks that never called it (roll call) and fails the communicator, a
// receive from a silent peer names that peer, bad arguments are refused
// naming the field; and the key-value rendezvous, whose keys carry the
// communicator's prefix.
#include <stdlib.h>

#include <chrono>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/cpu/collective/gloo_collective.h"
#include "plugins/cpu/collective/gloo_test_support.h"
#include "plugins/cpu/collective/memory_kv_store.h"
#include "plugins/reference/collective/rank_launcher.h"
#include "teplug/sdk/implement.hpp"
#include "teplug/sdk/ref.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::cpu::collective {
namespace {

using reference::collective::testing::Launch;
using reference::collective::testing::LaunchName;
using reference::collective::testing::RankResult;
using reference::collective::testing::RunRanks;
using testing::Comm;
using testing::Vector;
using Bytes = std::vector<unsigned char>;
using ::testing::HasSubstr;

constexpr int64_t kShortTimeoutMs = 1500;

class GlooTimeoutTest : public ::testing::TestWithParam<Launch> {
 protected:
  void SetUp() override { ASSERT_NE(testing::KernelCollective(), nullptr); }
};

// World 3, rank 2 never comes: ranks 0 and 1 fail naming it.
TEST_P(GlooTimeoutTest, RendezvousNamesTheRankThatNeverArrived) {
  const std::string blob = testing::FreshFileBlob();
  std::vector<RankResult> results = RunRanks(GetParam(), 2, [&](int rank) -> absl::StatusOr<Bytes> {
    Comm comm(rank, 3, blob, kShortTimeoutMs);
    return comm.status().ok() ? Bytes{} : absl::StatusOr<Bytes>(comm.status());
  });
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(results[r].status.code(), absl::StatusCode::kDeadlineExceeded) << results[r].status;
    EXPECT_THAT(std::string(results[r].status.message()),
                HasSubstr("waiting for rank(s) 2 to arrive"));
    EXPECT_THAT(std::string(results[r].status.message()), HasSubstr("comm_create (rank"));
  }
}

// Rank 1 joins but never calls all_reduce: rank 0 times out naming the op,
// and its next call fails with that first error.
TEST_P(GlooTimeoutTest, OpThatAPeerNeverJoinsTimesOutAndFailsTheCommunicator) {
  const std::string blob = testing::FreshFileBlob();
  std::vector<RankResult> results = RunRanks(GetParam(), 2, [&](int rank) -> absl::StatusOr<Bytes> {
    Comm comm(rank, 2, blob, kShortTimeoutMs);
    if (!comm.status().ok()) return comm.status();
    if (rank == 1) {
      // Stay connected past rank 0's timeout, so it times out rather than
      // seeing a closed connection.
      std::this_thread::sleep_for(std::chrono::milliseconds(3 * kShortTimeoutMs));
      return Bytes{};
    }
    std::vector<float> x = {1.5f, 2.5f};
    TeplugTensor t = Vector(x.data(), TEPLUG_DTYPE_FP32, 2);
    absl::Status first = comm.Run(TEPLUG_OP_ALL_REDUCE, &t, &t, TEPLUG_REDUCE_SUM);
    absl::Status second = comm.Run(TEPLUG_OP_BARRIER, nullptr, nullptr);
    const std::string report = std::string(first.ToString()) + "\n" + second.ToString();
    return Bytes(report.begin(), report.end());
  });
  ASSERT_TRUE(results[0].status.ok()) << results[0].status;
  ASSERT_TRUE(results[1].status.ok()) << results[1].status;
  const std::string report(results[0].output.begin(), results[0].output.end());
  EXPECT_THAT(report, ::testing::StartsWith("DEADLINE_EXCEEDED: "));
  EXPECT_THAT(report, HasSubstr("all_reduce #1 (fp32 sum, count 2) on rank 0 of 2: timed out"));
  EXPECT_THAT(report, HasSubstr("; roll call at the communicator's collective 1: missing rank 1 "
                                "(has called no collective)"));
  EXPECT_THAT(report, HasSubstr("\nFAILED_PRECONDITION: "));
  EXPECT_THAT(report, HasSubstr("barrier #2 (no data) on rank 0 of 2"));
  EXPECT_THAT(report, HasSubstr("the communicator failed earlier: all_reduce #1"));
}

// World 3: rank 2 finishes the first all-reduce and never calls the second.
// Both ranks that called it fail (the first to time out closes its
// connections, so the other may see them close instead) naming rank 2 and
// where it is, and each says where the other caller stands.
TEST_P(GlooTimeoutTest, FailedCollectiveNamesTheRankThatNeverCalledIt) {
  const std::string blob = testing::FreshFileBlob();
  std::vector<RankResult> results = RunRanks(GetParam(), 3, [&](int rank) -> absl::StatusOr<Bytes> {
    Comm comm(rank, 3, blob, kShortTimeoutMs);
    if (!comm.status().ok()) return comm.status();
    int64_t v = rank;
    TeplugTensor t = Vector(&v, TEPLUG_DTYPE_INT64, 1);
    if (absl::Status st = comm.Run(TEPLUG_OP_ALL_REDUCE, &t, &t); !st.ok()) return st;
    if (rank == 2) {
      std::this_thread::sleep_for(std::chrono::milliseconds(4 * kShortTimeoutMs));
      // Its comm_destroy waits for ranks that already left; that it fails is
      // the destroy test's subject, not this one's.
      const std::string report = comm.Destroy().ToString();
      return Bytes(report.begin(), report.end());
    }
    const std::string report = comm.Run(TEPLUG_OP_ALL_REDUCE, &t, &t).ToString();
    return Bytes(report.begin(), report.end());
  });
  for (int r = 0; r < 2; ++r) {
    ASSERT_TRUE(results[r].status.ok()) << results[r].status;
    const std::string report(results[r].output.begin(), results[r].output.end());
    EXPECT_THAT(report, ::testing::AnyOf(::testing::StartsWith("DEADLINE_EXCEEDED: "),
                                         ::testing::StartsWith("UNAVAILABLE: ")));
    EXPECT_THAT(report, HasSubstr(absl::StrCat("all_reduce #2 (int64 sum, count 1) on rank ", r)));
    EXPECT_THAT(report, HasSubstr("; roll call at the communicator's collective 2: missing "));
    EXPECT_THAT(report,
                HasSubstr("rank 2 (last at all_reduce, the communicator's collective 1, done)"));
    // The other caller is in it or failed in it; if it failed first and
    // left, this rank still knows from the question it asked.
    const std::string other = "rank " + std::to_string(1 - r);
    EXPECT_THAT(report, ::testing::AnyOf(HasSubstr(other + " is in it"),
                                         HasSubstr(other + " failed in it")));
  }
}

// Ranks that call different collectives: the roll call says which op the
// other rank is in.
TEST_P(GlooTimeoutTest, FailedCollectiveSaysWhenRanksCalledDifferentOps) {
  const std::string blob = testing::FreshFileBlob();
  std::vector<RankResult> results = RunRanks(GetParam(), 2, [&](int rank) -> absl::StatusOr<Bytes> {
    Comm comm(rank, 2, blob, kShortTimeoutMs);
    if (!comm.status().ok()) return comm.status();
    float x = 1.0f;
    TeplugTensor t = Vector(&x, TEPLUG_DTYPE_FP32, 1);
    const absl::Status st = rank == 0 ? comm.Run(TEPLUG_OP_ALL_REDUCE, &t, &t)
                                      : comm.Run(TEPLUG_OP_BROADCAST, &t, &t, 0, nullptr, 1);
    const std::string report = st.ToString();
    return Bytes(report.begin(), report.end());
  });
  ASSERT_TRUE(results[0].status.ok()) << results[0].status;
  const std::string report(results[0].output.begin(), results[0].output.end());
  EXPECT_THAT(report, HasSubstr("all_reduce #1 (fp32 sum, count 1) on rank 0 of 2"));
  EXPECT_THAT(report, HasSubstr("missing rank 1 (at broadcast, the communicator's collective 1, "));
  EXPECT_THAT(report, HasSubstr(": the ranks called different ops)"));
}

// A receive from a peer that sends nothing names the peer.
TEST_P(GlooTimeoutTest, ReceiveFromASilentPeerNamesThePeer) {
  const std::string blob = testing::FreshFileBlob();
  std::vector<RankResult> results = RunRanks(GetParam(), 2, [&](int rank) -> absl::StatusOr<Bytes> {
    Comm comm(rank, 2, blob, kShortTimeoutMs);
    if (!comm.status().ok()) return comm.status();
    if (rank == 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(3 * kShortTimeoutMs));
      return Bytes{};
    }
    std::vector<int32_t> x(4);
    TeplugTensor t = Vector(x.data(), TEPLUG_DTYPE_INT32, 4);
    absl::Status st = comm.Run(TEPLUG_OP_RECV, nullptr, &t, 0, nullptr, 0, 1);
    const std::string report = st.ToString();
    return Bytes(report.begin(), report.end());
  });
  ASSERT_TRUE(results[0].status.ok()) << results[0].status;
  const std::string report(results[0].output.begin(), results[0].output.end());
  EXPECT_THAT(report, ::testing::StartsWith("DEADLINE_EXCEEDED: "));
  EXPECT_THAT(report, HasSubstr("recv #1 (int32, count 4, from rank 1) on rank 0 of 2: timed out "
                                "after 1500 ms waiting for rank 1"));
}

// After a small all-reduce (a ring), comm_destroy waits for every rank; a rank
// whose peer does not come in time still frees its communicator and says so.
TEST_P(GlooTimeoutTest, DestroyWaitsForEveryRankAfterRingsAndFreesOnTimeout) {
  const std::string blob = testing::FreshFileBlob();
  std::vector<RankResult> results = RunRanks(GetParam(), 2, [&](int rank) -> absl::StatusOr<Bytes> {
    Comm comm(rank, 2, blob, kShortTimeoutMs);
    if (!comm.status().ok()) return comm.status();
    int32_t v = rank + 1;
    TeplugTensor t = Vector(&v, TEPLUG_DTYPE_INT32, 1);
    if (absl::Status st = comm.Run(TEPLUG_OP_ALL_REDUCE, &t, &t, TEPLUG_REDUCE_SUM); !st.ok()) {
      return st;
    }
    if (rank == 1) std::this_thread::sleep_for(std::chrono::milliseconds(2 * kShortTimeoutMs));
    const std::string report = comm.Destroy().ToString() + "\nsum " + std::to_string(v);
    return Bytes(report.begin(), report.end());
  });
  ASSERT_TRUE(results[0].status.ok()) << results[0].status;
  const std::string report(results[0].output.begin(), results[0].output.end());
  EXPECT_THAT(report, ::testing::StartsWith("DEADLINE_EXCEEDED: "));
  EXPECT_THAT(report, HasSubstr("comm_destroy on rank 0 of 2: waiting for every rank to finish"));
  EXPECT_THAT(report, HasSubstr("missing rank 1 (last at all_reduce, the communicator's "
                                "collective 1, done)"));
  EXPECT_THAT(report, HasSubstr("(the communicator is freed)"));
  EXPECT_THAT(report, HasSubstr("\nsum 3"));
}

INSTANTIATE_TEST_SUITE_P(Launches, GlooTimeoutTest,
                         ::testing::Values(Launch::kThreads, Launch::kProcesses),
                         [](const ::testing::TestParamInfo<Launch>& info) {
                           return std::string(LaunchName(info.param));
                         });

// Two communicators of three ranks share one store under different prefixes,
// concurrently; each all-reduces its own values.
// Every rank destroys its communicator as soon as it is created: comm_create
// returns on no rank before every rank's meshes are connected, so a fast
// rank's destroy never closes a connection a slow rank is still making.
TEST(GlooCreateTest, DestroyRightAfterCreateFailsNoRank) {
  ASSERT_NE(testing::KernelCollective(), nullptr);
  constexpr int kWorld = 4;
  for (int round = 0; round < 8; ++round) {
    const std::string blob = testing::FreshFileBlob();
    std::vector<RankResult> results = RunRanks(Launch::kThreads, kWorld, [&](int rank) -> absl::StatusOr<Bytes> {
      Comm comm(rank, kWorld, blob);
      if (!comm.status().ok()) return comm.status();
      absl::Status destroyed = comm.Destroy();
      if (!destroyed.ok()) return destroyed;
      return Bytes{};
    });
    for (int r = 0; r < kWorld; ++r) {
      EXPECT_TRUE(results[r].status.ok()) << "round " << round << ", rank " << r << ": " << results[r].status;
    }
  }
}

TEST(GlooKvRendezvousTest, TwoCommunicatorsShareOneStoreByPrefix) {
  ASSERT_NE(testing::KernelCollective(), nullptr);
  testing::MemoryKvStore store;
  constexpr int kWorld = 3;
  std::vector<std::thread> threads;
  std::vector<absl::Status> status(2 * kWorld);
  std::vector<int64_t> sums(2 * kWorld, -1);
  for (int c = 0; c < 2; ++c) {
    for (int rank = 0; rank < kWorld; ++rank) {
      threads.emplace_back([&, c, rank] {
        const std::string prefix = c == 0 ? "job/a" : "job/b";
        TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
        rv.kv = store.kv();
        rv.kv_prefix = prefix.c_str();
        rv.timeout_ms = 20000;
        Comm comm(rank, kWorld, rv);
        status[c * kWorld + rank] = comm.status();
        if (!comm.status().ok()) return;
        int64_t v = (c + 1) * 100 + rank;
        TeplugTensor t = Vector(&v, TEPLUG_DTYPE_INT64, 1);
        status[c * kWorld + rank] = comm.Run(TEPLUG_OP_ALL_REDUCE, &t, &t, TEPLUG_REDUCE_SUM);
        sums[c * kWorld + rank] = v;
      });
    }
  }
  for (auto& t : threads) t.join();
  for (int c = 0; c < 2; ++c) {
    for (int rank = 0; rank < kWorld; ++rank) {
      ASSERT_TRUE(status[c * kWorld + rank].ok()) << status[c * kWorld + rank];
      EXPECT_EQ(sums[c * kWorld + rank], 3 * (c + 1) * 100 + 0 + 1 + 2);
    }
  }
  // Gloo's keys, and the kernel's host count's, each under its communicator's prefix.
  for (const auto& [key, value] : store.Snapshot()) {
    EXPECT_TRUE(absl::StartsWith(key, "job/a/gloo/") || absl::StartsWith(key, "job/b/gloo/") ||
                absl::StartsWith(key, "job/a/teplug/host/") || absl::StartsWith(key, "job/b/teplug/host/"))
        << key;
  }
}

// The key-value rendezvous names a missing rank too: Gloo's own, when the
// caller gives the host count, and the kernel's count's, when it does not.
TEST(GlooKvRendezvousTest, MissingRankIsNamed) {
  ASSERT_NE(testing::KernelCollective(), nullptr);
  testing::MemoryKvStore store;
  TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
  rv.kv = store.kv();
  rv.kv_prefix = "p";
  rv.timeout_ms = 300;
  Comm counted(0, 2, rv, /*num_hosts=*/1);
  EXPECT_EQ(counted.status().code(), absl::StatusCode::kDeadlineExceeded) << counted.status();
  EXPECT_THAT(std::string(counted.status().message()), HasSubstr("waiting for rank(s) 1 to arrive"));
  rv.kv_prefix = "q";
  Comm uncounted(0, 2, rv);
  EXPECT_EQ(uncounted.status().code(), absl::StatusCode::kDeadlineExceeded) << uncounted.status();
  EXPECT_THAT(std::string(uncounted.status().message()),
              HasSubstr("rank 1 did not publish its host (key \"q/teplug/host/1\") within 300 ms"));
}

// One rank is a world: bad arguments on its communicator.
class GlooArgumentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(testing::KernelCollective(), nullptr);
    comm_ = std::make_unique<Comm>(0, 1, testing::FreshFileBlob());
    ASSERT_TRUE(comm_->status().ok()) << comm_->status();
  }
  std::unique_ptr<Comm> comm_;
};

TEST_F(GlooArgumentTest, RefusesWhatItDoesNotServeNamingTheField) {
  std::vector<float> f(4, 1.0f);
  std::vector<unsigned char> fp8(4, 0x38);
  TeplugTensor a = Vector(f.data(), TEPLUG_DTYPE_FP32, 4);
  TeplugTensor b = Vector(f.data(), TEPLUG_DTYPE_FP32, 3);
  TeplugTensor q = Vector(fp8.data(), TEPLUG_DTYPE_FP8_E4M3, 4);
  // The kernel checks the descriptor before the implementation sees the call.
  absl::Status s = comm_->Run(TEPLUG_OP_ALL_REDUCE, &q, &q);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("send dtype fp8_e4m3 not in"));
  s = comm_->Run(TEPLUG_OP_ALL_REDUCE, &a, &b);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("recv: 3 elements but send has 4"));
  const int64_t negative[] = {-1};
  s = comm_->Run(TEPLUG_OP_ALL_GATHER, &a, &a, 0, negative);
  EXPECT_THAT(std::string(s.message()), HasSubstr("counts[0] is -1"));
  s = comm_->Run(TEPLUG_OP_SEND, &a, nullptr, 0, nullptr, 0, 1);
  EXPECT_THAT(std::string(s.message()), HasSubstr("peer 1 is not a rank of world_size 1"));
  s = comm_->Run(TEPLUG_OP_BROADCAST, &a, &a, 0, nullptr, 2);
  EXPECT_THAT(std::string(s.message()), HasSubstr("root 2 is not a rank of world_size 1"));
  // Argument errors leave the communicator usable.
  s = comm_->Run(TEPLUG_OP_ALL_REDUCE, &a, &a, TEPLUG_REDUCE_PROD);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(f[0], 1.0f);
}

TEST_F(GlooArgumentTest, GroupsDoNotNest) {
  ASSERT_TRUE(comm_->GroupStart().ok());
  absl::Status s = comm_->GroupStart();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_TRUE(comm_->GroupEnd().ok());
  s = comm_->GroupEnd();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("group_end without a group_start"));
}

TEST(GlooRendezvousArgumentTest, RefusesMalformedRendezvous) {
  ASSERT_NE(testing::KernelCollective(), nullptr);
  Comm bad_blob(0, 1, std::string("teplug-collective-v1:/dev/shm/x"));
  EXPECT_EQ(bad_blob.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad_blob.status().message()), HasSubstr("a Gloo blob is \"gloo-file:"));
  testing::MemoryKvStore store;
  const std::string blob = testing::FreshFileBlob();
  TeplugRendezvous both = sdk::Versioned<TeplugRendezvous>();
  both.bootstrap = blob.data();
  both.bootstrap_size = blob.size();
  both.kv = store.kv();
  Comm with_both(0, 1, both);
  EXPECT_THAT(std::string(with_both.status().message()), HasSubstr("both are"));
  Comm bad_rank(2, 2, testing::FreshFileBlob());
  EXPECT_THAT(std::string(bad_rank.status().message()), HasSubstr("rank 2 of world_size 2"));
}

// Without the kernel in front, the implementation refuses what its
// descriptor leaves out by itself, naming the field.
TEST(GlooImplementationTest, RefusesUnservedDTypeAndReduceOpItself) {
  setenv("TEPLUG_GLOO_IFNAME", "lo", 1);
  sdk::Ref<TeplugCollectiveV1> c =
      sdk::Ref<TeplugCollectiveV1>::Adopt(sdk::MakeCollective(NewGlooCollective()));
  const std::string blob = testing::FreshFileBlob();
  TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
  rv.bootstrap = blob.data();
  rv.bootstrap_size = blob.size();
  TeplugCommCreateArgs create = sdk::Versioned<TeplugCommCreateArgs>();
  create.world_size = 1;
  create.rendezvous = &rv;
  TeplugCommunicator* comm = nullptr;
  ASSERT_TRUE(testing::StatusFrom(c->vtbl->comm_create(c.get(), &create, &comm)).ok());
  std::vector<unsigned char> fp8(4, 0x38);
  std::vector<float> f(4, 1.0f);
  TeplugTensor q = Vector(fp8.data(), TEPLUG_DTYPE_FP8_E4M3, 4);
  TeplugTensor a = Vector(f.data(), TEPLUG_DTYPE_FP32, 4);
  TeplugCollectiveArgs args = sdk::Versioned<TeplugCollectiveArgs>();
  args.comm = comm;
  args.send = &q;
  args.recv = &q;
  absl::Status s = testing::StatusFrom(c->vtbl->run(c.get(), TEPLUG_OP_ALL_REDUCE, &args));
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("send: dtype fp8_e4m3 is not served"));
  args.send = &a;
  args.recv = &a;
  args.reduce_op = 7;
  s = testing::StatusFrom(c->vtbl->run(c.get(), TEPLUG_OP_ALL_REDUCE, &args));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("reduce_op 7 is not a TeplugReduceOp"));
  EXPECT_TRUE(testing::StatusFrom(c->vtbl->comm_destroy(c.get(), comm)).ok());
  // A destroyed handle is refused, not used.
  s = testing::StatusFrom(c->vtbl->comm_destroy(c.get(), nullptr));
  EXPECT_THAT(std::string(s.message()), HasSubstr("comm is NULL"));
}

}  // namespace
}  // namespace teplug::cpu::collective
