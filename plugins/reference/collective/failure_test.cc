// Failures must be errors that name the operation and the rank, never hangs:
// peers that never join or die, mismatched calls, mismatched message sizes,
// bad arguments, duplicate ranks and mismatched options. Timeouts here are
// short so the suite stays fast.
#include <sys/stat.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "plugins/reference/collective/communicator.h"
#include "plugins/reference/collective/rank_launcher.h"

namespace teplug::reference::collective {
namespace {

using testing::FreshRegionPath;
using testing::Launch;
using testing::RankResult;
using testing::RunOnCommunicators;

CommunicatorOptions ShortTimeout() {
  CommunicatorOptions options;
  options.chunk_bytes = 256;
  options.timeout = std::chrono::milliseconds(300);
  return options;
}

// Fails the test unless `status` has `code` and mentions every fragment.
void ExpectError(const absl::Status& status, absl::StatusCode code,
                 const std::vector<std::string>& fragments) {
  EXPECT_EQ(status.code(), code) << status;
  for (const std::string& fragment : fragments) {
    EXPECT_TRUE(absl::StrContains(status.message(), fragment))
        << "missing \"" << fragment << "\" in: " << status;
  }
}

bool FileExists(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0;
}

TEST(FailureTest, CreateTimesOutNamingRanksThatNeverJoin) {
  const auto communicator = Communicator::Create(FreshRegionPath(), 0, 3, ShortTimeout());
  ExpectError(communicator.status(), absl::StatusCode::kDeadlineExceeded,
              {"Create", "rank(s) 1, 2", "join"});
}

class DeadPeerTest : public ::testing::TestWithParam<Launch> {};

// Rank 2 joins and then exits (a process that died, or a thread that
// returned); the survivors' AllReduce must time out naming AllReduce and rank
// 2, and the failed communicator must refuse later calls.
TEST_P(DeadPeerTest, CollectiveTimesOutNamingTheOperationAndTheMissingRank) {
  const std::vector<RankResult> results = RunOnCommunicators(
      GetParam(), 3, ShortTimeout(),
      [&](int rank, Communicator& communicator) -> absl::StatusOr<std::vector<unsigned char>> {
        if (rank == 2) return std::vector<unsigned char>{};  // "dies"
        float value = 1.5f;
        absl::Status first =
            communicator.AllReduce(&value, &value, 1, DataType::kFp32, ReduceOp::kSum);
        absl::Status later = communicator.Barrier();
        return absl::Status(first.code(), std::string(first.message()) + " || " +
                                              absl::StatusCodeToString(later.code()) + ": " +
                                              std::string(later.message()));
      });
  ASSERT_TRUE(results[2].status.ok()) << results[2].status;
  for (int r = 0; r < 2; ++r) {
    ExpectError(results[r].status, absl::StatusCode::kDeadlineExceeded,
                {"AllReduce #1", "rank(s) 2", absl::StrCat("on rank ", r, " of 3"),
                 "FAILED_PRECONDITION", "failed earlier"});
  }
}

INSTANTIATE_TEST_SUITE_P(Launches, DeadPeerTest,
                         ::testing::Values(Launch::kThreads, Launch::kProcesses),
                         [](const ::testing::TestParamInfo<Launch>& info) {
                           return std::string(testing::LaunchName(info.param));
                         });

// Runs a two-rank body as threads and returns both statuses.
std::vector<absl::Status> RunPair(
    const CommunicatorOptions& options,
    const std::function<absl::Status(Communicator&, int rank)>& body) {
  const std::vector<RankResult> results = RunOnCommunicators(
      Launch::kThreads, 2, options,
      [&](int rank, Communicator& communicator) -> absl::StatusOr<std::vector<unsigned char>> {
        absl::Status status = body(communicator, rank);
        if (!status.ok()) return status;
        return std::vector<unsigned char>{};
      });
  return {results[0].status, results[1].status};
}

TEST(FailureTest, RecvFromASilentPeerTimesOutNamingThePeer) {
  const std::vector<absl::Status> statuses =
      RunPair(ShortTimeout(), [](Communicator& communicator, int rank) {
        if (rank == 1) return absl::OkStatus();
        int32_t data[4];
        return communicator.Recv(data, 4, DataType::kInt32, 1);
      });
  ExpectError(statuses[0], absl::StatusCode::kDeadlineExceeded,
              {"Recv from rank 1", "Recv of 16 bytes from rank 1", "moved 0 bytes"});
  EXPECT_TRUE(statuses[1].ok()) << statuses[1];
}

// Both ranks send three chunks to each other before receiving, outside a
// group: the first chunk fits, the second waits forever. It must end in a
// timeout naming the stuck Send (the grouped version succeeds, see
// send_recv_test).
TEST(FailureTest, UngroupedLargeExchangeTimesOutInsteadOfHanging) {
  const std::vector<absl::Status> statuses =
      RunPair(ShortTimeout(), [](Communicator& communicator, int rank) {
        std::vector<double> out(96, 1.25 + rank), in(96);  // 768 bytes
        absl::Status status = communicator.Send(out.data(), out.size(), DataType::kFp64, 1 - rank);
        if (!status.ok()) return status;
        return communicator.Recv(in.data(), in.size(), DataType::kFp64, 1 - rank);
      });
  for (int r = 0; r < 2; ++r) {
    ExpectError(statuses[r], absl::StatusCode::kDeadlineExceeded,
                {absl::StrCat("Send of 768 bytes to rank ", 1 - r), "moved 256 bytes",
                 "GroupStart/GroupEnd"});
  }
}

TEST(FailureTest, MismatchedCountsAreReportedOnEveryRank) {
  const std::vector<absl::Status> statuses = RunPair(ShortTimeout(), [](Communicator& communicator,
                                                                        int rank) {
    const size_t count = rank == 0 ? 10 : 12;
    std::vector<float> data(count, 0.75f);
    return communicator.AllReduce(data.data(), data.data(), count, DataType::kFp32, ReduceOp::kMax);
  });
  for (const absl::Status& status : statuses) {
    ExpectError(status, absl::StatusCode::kInvalidArgument,
                {"rank 1 called AllReduce #1 (fp32 max, count 12)",
                 "rank 0 called AllReduce #1 (fp32 max, count 10)"});
  }
}

TEST(FailureTest, DifferentCollectivesAreReportedOnEveryRank) {
  const std::vector<absl::Status> statuses =
      RunPair(ShortTimeout(), [](Communicator& communicator, int rank) {
        std::vector<int8_t> in(4, 3), out(8);
        if (rank == 0) {
          return communicator.AllReduce(in.data(), out.data(), 4, DataType::kInt8, ReduceOp::kSum);
        }
        return communicator.AllGather(in.data(), out.data(), 4, DataType::kInt8);
      });
  for (const absl::Status& status : statuses) {
    ExpectError(status, absl::StatusCode::kInvalidArgument,
                {"rank 1 called AllGather #1", "rank 0 called AllReduce #1"});
  }
}

TEST(FailureTest, DifferentPerRankCountsInAllGatherVAreReported) {
  const std::vector<absl::Status> statuses =
      RunPair(ShortTimeout(), [](Communicator& communicator, int rank) {
        const std::vector<size_t> counts =
            rank == 0 ? std::vector<size_t>{2, 3} : std::vector<size_t>{2, 4};
        std::vector<int32_t> in(counts[rank], 5), out(counts[0] + counts[1]);
        return communicator.AllGatherV(in.data(), out.data(), counts, DataType::kInt32);
      });
  for (const absl::Status& status : statuses) {
    ExpectError(status, absl::StatusCode::kInvalidArgument,
                {"rank 1 called AllGatherV #1", "per-rank counts"});
  }
}

TEST(FailureTest, RecvOfTheWrongSizeIsReported) {
  const std::vector<absl::Status> statuses =
      RunPair(ShortTimeout(), [](Communicator& communicator, int rank) {
        std::vector<int32_t> data(12, 9);
        if (rank == 0) return communicator.Send(data.data(), 10, DataType::kInt32, 1);
        return communicator.Recv(data.data(), 12, DataType::kInt32, 0);
      });
  EXPECT_TRUE(statuses[0].ok()) << statuses[0];
  ExpectError(statuses[1], absl::StatusCode::kInvalidArgument,
              {"Recv from rank 0 expects a 48-byte message but rank 0 sent 40 bytes"});
}

TEST(FailureTest, DuplicateRankIsRejected) {
  const std::string path = FreshRegionPath();
  // The first rank 1 joins, then times out waiting for rank 0 (the file
  // stays, since only rank 0 removes it).
  const auto first = Communicator::Create(path, 1, 2, ShortTimeout());
  ExpectError(first.status(), absl::StatusCode::kDeadlineExceeded, {"rank(s) 0"});
  const auto again = Communicator::Create(path, 1, 2, ShortTimeout());
  ExpectError(again.status(), absl::StatusCode::kAlreadyExists,
              {"rank 1 has already joined", path});
}

TEST(FailureTest, MismatchedWorldSizeIsRejected) {
  const std::string path = FreshRegionPath();
  const auto first = Communicator::Create(path, 0, 2, ShortTimeout());
  EXPECT_FALSE(first.ok());  // rank 1 of world 2 never comes
  const auto other = Communicator::Create(path, 1, 3, ShortTimeout());
  ExpectError(other.status(), absl::StatusCode::kInvalidArgument,
              {"created for world 2", "opened it with world 3"});
}

TEST(FailureTest, BadArgumentsAreRejectedWithoutFailingTheCommunicator) {
  const auto created = Communicator::Create(FreshRegionPath(), 0, 1, ShortTimeout());
  ASSERT_TRUE(created.ok()) << created.status();
  Communicator& communicator = **created;
  float values[4] = {1.5f, -2.0f, 3.25f, 0.5f};
  ExpectError(communicator.Send(values, 4, DataType::kFp32, 1), absl::StatusCode::kInvalidArgument,
              {"Send", "peer 1 is not a rank"});
  ExpectError(communicator.Broadcast(values, values, 4, DataType::kFp32, -1),
              absl::StatusCode::kInvalidArgument, {"Broadcast", "root -1"});
  ExpectError(communicator.AllReduce(nullptr, values, 4, DataType::kFp32, ReduceOp::kSum),
              absl::StatusCode::kInvalidArgument, {"AllReduce", "`in` is null"});
  ExpectError(communicator.AllGather(values, values, 3, DataType::kFp4E2M1),
              absl::StatusCode::kInvalidArgument, {"fp4_e2m1", "even"});
  ExpectError(communicator.AllReduce(values, values, 4, DataType::kFp8E4M3, ReduceOp::kSum),
              absl::StatusCode::kInvalidArgument, {"cannot reduce fp8_e4m3"});
  ExpectError(communicator.AllGatherV(values, values, {1, 2}, DataType::kFp32),
              absl::StatusCode::kInvalidArgument, {"counts has 2 entries"});
  ExpectError(communicator.GroupEnd(), absl::StatusCode::kFailedPrecondition,
              {"GroupEnd without a matching GroupStart"});
  // None of these touched peers, so the communicator still works.
  ASSERT_TRUE(communicator.AllReduce(values, values, 4, DataType::kFp32, ReduceOp::kSum).ok());
  EXPECT_EQ(values[1], -2.0f);  // one rank: the reduction is the identity
}

TEST(FailureTest, BadCreateArgumentsNameTheProblem) {
  const std::string path = FreshRegionPath();
  ExpectError(Communicator::Create(path, 2, 2).status(), absl::StatusCode::kInvalidArgument,
              {"rank 2, world 2"});
  CommunicatorOptions odd_chunk;
  odd_chunk.chunk_bytes = 100;
  ExpectError(Communicator::Create(path, 0, 2, odd_chunk).status(),
              absl::StatusCode::kInvalidArgument, {"chunk_bytes 100"});
  CommunicatorOptions tiny_chunk;
  tiny_chunk.chunk_bytes = 16;
  ExpectError(Communicator::Create(path, 0, 4, tiny_chunk).status(),
              absl::StatusCode::kInvalidArgument, {"at least 8 * world = 32"});
  ExpectError(Communicator::Create("/nonexistent-dir/x", 0, 1).status(),
              absl::StatusCode::kInternal, {"/nonexistent-dir/x", "open"});
}

TEST(FailureTest, RegionFileIsRemovedOnceEveryRankJoined) {
  const std::string removed = FreshRegionPath();
  ASSERT_TRUE(Communicator::Create(removed, 0, 1, ShortTimeout()).ok());
  EXPECT_FALSE(FileExists(removed));
  CommunicatorOptions keep = ShortTimeout();
  keep.unlink_region_after_join = false;
  const std::string kept = FreshRegionPath();
  ASSERT_TRUE(Communicator::Create(kept, 0, 1, keep).ok());
  EXPECT_TRUE(FileExists(kept));
}

}  // namespace
}  // namespace teplug::reference::collective
