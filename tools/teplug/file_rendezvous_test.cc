// The file rendezvous: values round-trip through the directory (any bytes,
// any key), a timeout names the key and the ranks that never arrived, an
// abort note stops waiting ranks, a finished directory is refused, the ABI
// callbacks follow the TeplugKvStore contract, and ranks that are separate
// processes exchange vectors through it (RankGroup over the store).
#include "tools/teplug/file_rendezvous.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "teplug/sdk/error.hpp"
#include "tools/teplug/rank_group.h"

namespace teplug::cli {
namespace {

using ::testing::HasSubstr;

// A fresh directory per test (below TEST_TMPDIR), not yet created.
std::string FreshDirectory(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  static int counter = 0;
  return absl::StrCat(base != nullptr ? base : "/tmp", "/rendezvous-", name, "-", ::getpid(), "-",
                      counter++, "/nested");
}

TEST(FileRendezvousTest, ValuesRoundTripWithAnyKeyAndBytes) {
  auto store = FileRendezvous::Open(FreshDirectory("roundtrip"), 0, 1);
  ASSERT_TRUE(store.ok()) << store.status();
  std::string bytes;
  std::mt19937 rng(7);
  for (int i = 0; i < 1000; ++i) bytes.push_back(static_cast<char>(rng()));
  bytes[10] = '\0';
  const std::string key = "prefix/gloo/rank 1:addr%x";
  ASSERT_TRUE((*store)->Set(key, bytes).ok());
  absl::StatusOr<std::string> got = (*store)->Get(key, 1000);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, bytes);
  EXPECT_TRUE((*store)->Has(key));
  EXPECT_FALSE((*store)->Has("prefix/gloo/rank 1:addr"));
  // A second Set replaces the value.
  ASSERT_TRUE((*store)->Set(key, "second").ok());
  EXPECT_EQ(*(*store)->Get(key, 1000), "second");
  EXPECT_EQ(EncodeKeyAsFileName("a/b c"), "k.a%2Fb%20c");
}

TEST(FileRendezvousTest, TimeoutNamesTheKeyAndTheRanksThatNeverArrived) {
  const std::string dir = FreshDirectory("timeout");
  auto rank0 = FileRendezvous::Open(dir, 0, 4);
  ASSERT_TRUE(rank0.ok());
  auto rank2 = FileRendezvous::Open(dir, 2, 4);
  ASSERT_TRUE(rank2.ok());
  EXPECT_EQ((*rank0)->MissingRanks(), (std::vector<int>{1, 3}));
  absl::StatusOr<std::string> got = (*rank0)->Get("job/key-from-rank-1", 30);
  ASSERT_EQ(got.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(got.status().message(), HasSubstr("key \"job/key-from-rank-1\""));
  EXPECT_THAT(got.status().message(), HasSubstr("within 30 ms"));
  EXPECT_THAT(got.status().message(), HasSubstr("ranks 1, 3 of 4 never arrived"));
  EXPECT_THAT(got.status().message(), HasSubstr(dir));
}

TEST(FileRendezvousTest, TimeoutWhenEveryRankArrivedSaysSo) {
  const std::string dir = FreshDirectory("all-arrived");
  auto rank0 = FileRendezvous::Open(dir, 0, 2);
  auto rank1 = FileRendezvous::Open(dir, 1, 2);
  ASSERT_TRUE(rank0.ok() && rank1.ok());
  absl::StatusOr<std::string> got = (*rank1)->Get("never", 10);
  ASSERT_EQ(got.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(got.status().message(), HasSubstr("every rank of 2 arrived"));
}

TEST(FileRendezvousTest, AbortNoteStopsAWaitingRank) {
  const std::string dir = FreshDirectory("abort");
  auto rank0 = FileRendezvous::Open(dir, 0, 2);
  auto rank1 = FileRendezvous::Open(dir, 1, 2);
  ASSERT_TRUE(rank0.ok() && rank1.ok());
  std::thread failing([&] { (*rank1)->Abort("rank 1: out of memory"); });
  // Without the note this would wait the full 20 s and time out.
  absl::StatusOr<std::string> got = (*rank0)->Get("result", 20000);
  failing.join();
  ASSERT_EQ(got.status().code(), absl::StatusCode::kAborted) << got.status();
  EXPECT_THAT(got.status().message(), HasSubstr("rank 1: out of memory"));
  EXPECT_THAT(got.status().message(), HasSubstr("\"result\""));
  // The first note stays.
  PostAbortNote(dir, "rank 0 ended: exit status 1");
  EXPECT_THAT((*rank0)->Get("result", 10).status().message(), HasSubstr("out of memory"));
}

TEST(FileRendezvousTest, FinishedDirectoryIsRefused) {
  const std::string dir = FreshDirectory("finished");
  auto first = FileRendezvous::Open(dir, 0, 1);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE((*first)->MarkFinished().ok());
  auto again = FileRendezvous::Open(dir, 0, 1);
  ASSERT_EQ(again.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(again.status().message(), HasSubstr("holds a finished run"));
  EXPECT_THAT(again.status().message(), HasSubstr(dir));
}

TEST(FileRendezvousTest, BadArgumentsAreNamed) {
  EXPECT_THAT(FileRendezvous::Open(FreshDirectory("bad"), 2, 2).status().message(),
              HasSubstr("rank 2 is not in 0..1"));
  EXPECT_THAT(FileRendezvous::Open("", 0, 1).status().message(), HasSubstr("file:DIR"));
  auto store = FileRendezvous::Open(FreshDirectory("long"), 0, 1);
  ASSERT_TRUE(store.ok());
  absl::Status s = (*store)->Set(std::string(300, 'x'), "v");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("too long"));
  // A directory that cannot be made is named.
  EXPECT_THAT(FileRendezvous::Open("/proc/teplug-no/such", 0, 1).status().message(),
              HasSubstr("/proc/teplug-no"));
}

TEST(FileRendezvousTest, AbiCallbacksFollowTheKvContract) {
  auto store = FileRendezvous::Open(FreshDirectory("abi"), 0, 1);
  ASSERT_TRUE(store.ok());
  const TeplugKvStore* kv = (*store)->kv_store();
  ASSERT_EQ(sdk::OwnedError(kv->put(kv->ctx, "k", "hello", 5)).ok(), true);
  char small[2];
  size_t size = 0;
  sdk::OwnedError too_small(kv->get(kv->ctx, "k", small, sizeof(small), &size, 100));
  EXPECT_EQ(too_small.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(size, 5u);  // written even when too small, so the caller can retry
  char buffer[8];
  ASSERT_TRUE(sdk::OwnedError(kv->get(kv->ctx, "k", buffer, sizeof(buffer), &size, 100)).ok());
  EXPECT_EQ(std::string(buffer, size), "hello");
  sdk::OwnedError missing(kv->get(kv->ctx, "absent", buffer, sizeof(buffer), &size, 5));
  EXPECT_EQ(missing.code(), TEPLUG_DEADLINE_EXCEEDED);
  EXPECT_THAT(missing.message(), HasSubstr("\"absent\""));
  (*store)->Abort("rank 0: stopped");
  sdk::OwnedError aborted(kv->get(kv->ctx, "absent", buffer, sizeof(buffer), &size, 20000));
  EXPECT_EQ(aborted.code(), TEPLUG_UNAVAILABLE);
  EXPECT_THAT(aborted.message(), HasSubstr("rank 0: stopped"));
}

// Each rank a forked process: three exchange rounds of random vectors of
// different lengths through RankGroup over the store; every rank checks it
// got every rank's vector, in rank order. Exit 0 only when all matched.
std::vector<double> VectorOf(int rank, int round) {
  std::mt19937_64 rng(static_cast<uint64_t>(rank * 100 + round));
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> v(static_cast<size_t>(3 + rank + round));
  for (double& x : v) x = dist(rng);
  return v;
}

int ExchangeAsRank(const std::string& dir, int rank, int world) {
  auto store = FileRendezvous::Open(dir, rank, world);
  if (!store.ok()) return 10;
  RankGroup group(store->get());
  if (group.local_ranks() != std::vector<int>{rank}) return 11;
  for (int round = 0; round < 3; ++round) {
    auto all = group.Exchange(rank, VectorOf(rank, round), 20000);
    if (!all.ok() || static_cast<int>(all->size()) != world) return 12;
    for (int r = 0; r < world; ++r) {
      if ((*all)[static_cast<size_t>(r)] != VectorOf(r, round)) return 13;
    }
  }
  return 0;
}

TEST(FileRendezvousTest, RanksAsProcessesExchangeThroughTheDirectory) {
  const std::string dir = FreshDirectory("processes");
  constexpr int kWorld = 4;
  std::vector<pid_t> pids;
  for (int r = 0; r < kWorld; ++r) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) _exit(ExchangeAsRank(dir, r, kWorld));
    pids.push_back(pid);
  }
  for (int r = 0; r < kWorld; ++r) {
    int status = 0;
    ASSERT_EQ(waitpid(pids[static_cast<size_t>(r)], &status, 0), pids[static_cast<size_t>(r)]);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "rank " << r << " status " << status;
  }
}

TEST(FileRendezvousTest, ExchangeTimeoutNamesTheMissingRank) {
  auto store = FileRendezvous::Open(FreshDirectory("exchange-timeout"), 0, 3);
  ASSERT_TRUE(store.ok());
  auto rank2 = FileRendezvous::Open((*store)->directory(), 2, 3);
  ASSERT_TRUE(rank2.ok());
  ASSERT_TRUE((*rank2)->Set("teplug-exchange/0/2", std::string(8, '\0')).ok());
  RankGroup group(store->get());
  auto all = group.Exchange(0, {1.0}, 50);
  ASSERT_EQ(all.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(all.status().message(), HasSubstr("rank 0: exchange 0"));
  EXPECT_THAT(all.status().message(), HasSubstr("no values from rank 1 (never arrived: 1)"));
}

TEST(FileRendezvousTest, FailingRankPostsItsErrorForTheOthers) {
  const std::string dir = FreshDirectory("run-fails");
  auto rank0 = FileRendezvous::Open(dir, 0, 2);
  auto rank1 = FileRendezvous::Open(dir, 1, 2);
  ASSERT_TRUE(rank0.ok() && rank1.ok());
  RankGroup group1(rank1->get());
  absl::Status s = group1.Run([](int rank) {
    return rank == 1 ? absl::InternalError("gemm failed") : absl::OkStatus();
  });
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(s.message(), "rank 1: gemm failed");
  RankGroup group0(rank0->get());
  auto all = group0.Exchange(0, {1.0}, 20000);
  ASSERT_EQ(all.status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(all.status().message(), HasSubstr("abandoned"));
  EXPECT_THAT(all.status().message(), HasSubstr("rank 1: gemm failed"));
}

}  // namespace
}  // namespace teplug::cli
