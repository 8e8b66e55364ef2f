// Rendezvous helpers: unique region paths, the bootstrap blob, and creating
// communicators through a host key-value store (threads sharing an in-memory
// store, as an adapter's callbacks would).
#include "plugins/reference/collective/rendezvous.h"

#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "plugins/reference/collective/rank_launcher.h"

namespace teplug::reference::collective {
namespace {

using testing::ExpectAllRanksOk;
using testing::Launch;
using testing::RankResult;
using testing::RunRanks;
using testing::TestDirectory;

TEST(RendezvousTest, UniquePathsDifferAndLiveInTheDirectory) {
  std::set<std::string> paths;
  for (int i = 0; i < 1000; ++i) paths.insert(MakeUniqueRegionPath("/some/dir"));
  EXPECT_EQ(paths.size(), 1000u);
  for (const std::string& path : paths) {
    EXPECT_TRUE(absl::StartsWith(path, "/some/dir/teplug-collective-")) << path;
  }
}

TEST(RendezvousTest, BootstrapBlobRoundTripsAndRejectsForeignBytes) {
  const std::string path = MakeUniqueRegionPath(kDefaultRegionDirectory);
  const absl::StatusOr<std::string> decoded = DecodeBootstrapBlob(EncodeBootstrapBlob(path));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, path);
  EXPECT_EQ(DecodeBootstrapBlob("nccl-unique-id-bytes").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(DecodeBootstrapBlob(EncodeBootstrapBlob("")).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// An in-memory store shared by threads; get blocks until the key appears.
class MemoryStore {
 public:
  KeyValueStore Callbacks() {
    KeyValueStore store;
    store.put = [this](const std::string& key, const std::string& value) {
      std::lock_guard<std::mutex> lock(mutex_);
      values_[key] = value;
      changed_.notify_all();
      return absl::OkStatus();
    };
    store.get = [this](const std::string& key,
                       std::chrono::nanoseconds timeout) -> absl::StatusOr<std::string> {
      std::unique_lock<std::mutex> lock(mutex_);
      if (!changed_.wait_for(lock, timeout, [&] { return values_.count(key) > 0; })) {
        return absl::DeadlineExceededError("key " + key + " never appeared");
      }
      return values_[key];
    };
    return store;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, std::string> values_;
};

TEST(RendezvousTest, KeyValueStoreConnectsThreeRanks) {
  MemoryStore memory;
  const KeyValueStore store = memory.Callbacks();
  const std::vector<RankResult> results =
      RunRanks(Launch::kThreads, 3, [&](int rank) -> absl::StatusOr<std::vector<unsigned char>> {
        auto communicator = CreateWithKeyValueStore(store, "group/7", rank, 3, TestDirectory());
        if (!communicator.ok()) return communicator.status();
        int32_t value = 7 * (rank + 2);
        absl::Status status =
            (*communicator)->AllReduce(&value, &value, 1, DataType::kInt32, ReduceOp::kMax);
        if (!status.ok()) return status;
        std::vector<unsigned char> bytes(sizeof(value));
        std::memcpy(bytes.data(), &value, sizeof(value));
        return bytes;
      });
  ASSERT_NO_FATAL_FAILURE(ExpectAllRanksOk(results));
  for (int r = 0; r < 3; ++r) {
    int32_t got = 0;
    ASSERT_EQ(results[r].output.size(), sizeof(got));
    std::memcpy(&got, results[r].output.data(), sizeof(got));
    EXPECT_EQ(got, 28) << "rank " << r;
  }
}

TEST(RendezvousTest, StoreErrorsNameTheKeyAndRank) {
  MemoryStore memory;  // rank 0 never puts
  CommunicatorOptions options;
  options.timeout = std::chrono::milliseconds(50);
  const auto communicator =
      CreateWithKeyValueStore(memory.Callbacks(), "group/missing", 2, 3, TestDirectory(), options);
  EXPECT_EQ(communicator.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_TRUE(
      absl::StrContains(communicator.status().message(), "rank 2 could not get key group/missing"))
      << communicator.status();
  EXPECT_EQ(CreateWithKeyValueStore(KeyValueStore{}, "k", 0, 1, TestDirectory()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace teplug::reference::collective
