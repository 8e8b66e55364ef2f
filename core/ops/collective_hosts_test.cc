// The host count comm_create runs before selecting: distinct hosts among the
// ranks' published ids, every missing rank named on timeout, a store's own
// error passed on with its key, long ids, and the local id's sources.
#include "core/ops/collective_hosts.h"

#include "core/kernel/host_identity.h"

#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "tests/testing/memory_kv_store.h"

namespace teplug::core {
namespace {

using ::testing::HasSubstr;

TeplugRendezvous Rendezvous(const TeplugKvStore* kv, const char* prefix, int64_t timeout_ms) {
  TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
  rv.kv = kv;
  rv.kv_prefix = prefix;
  rv.timeout_ms = timeout_ms;
  return rv;
}

// Every rank counts with its own id; returns each rank's count (-1: error).
std::vector<int32_t> CountOnThreads(const std::vector<std::string>& ids) {
  teplug::testing::MemoryKvStore store;
  const TeplugKvStore kv = store.Api();
  const TeplugRendezvous rv = Rendezvous(&kv, "p", 20000);
  const int world = static_cast<int>(ids.size());
  std::vector<int32_t> counts(world, -1);
  std::vector<std::thread> ranks;
  for (int r = 0; r < world; ++r) {
    ranks.emplace_back([&, r] {
      int32_t hosts = 0;
      sdk::OwnedError e(CountHosts(rv, r, world, ids[r], 60000, &hosts));
      if (e.ok()) counts[r] = hosts;
    });
  }
  for (auto& t : ranks) t.join();
  return counts;
}

TEST(CollectiveHostsTest, EveryRankCountsTheDistinctHosts) {
  EXPECT_THAT(CountOnThreads({"a", "a", "a"}), ::testing::Each(1));
  EXPECT_THAT(CountOnThreads({"a", "b", "a", "b"}), ::testing::Each(2));
  EXPECT_THAT(CountOnThreads({"x", "y", "z", "x", "w"}), ::testing::Each(4));
  // An id longer than the first read's buffer is read again in full.
  const std::string long_a(1000, 'a'), long_b = std::string(999, 'a') + "b";
  EXPECT_THAT(CountOnThreads({long_a, long_b, long_a}), ::testing::Each(2));
}

TEST(CollectiveHostsTest, EveryMissingRankIsNamedOnTimeout) {
  teplug::testing::MemoryKvStore store;
  const TeplugKvStore kv = store.Api();
  const TeplugRendezvous rv = Rendezvous(&kv, "job7", 100);
  int32_t hosts = -5;
  sdk::OwnedError e(CountHosts(rv, 2, 3, "h", 60000, &hosts));
  EXPECT_EQ(e.code(), TEPLUG_DEADLINE_EXCEEDED);
  EXPECT_THAT(e.message(), HasSubstr("comm_create rank 2 of 3: ranks 0, 1 did not publish their hosts"));
  EXPECT_THAT(e.message(), HasSubstr("(key \"job7/teplug/host/0\", ...) within 100 ms"));
  EXPECT_EQ(hosts, -5) << "nothing written on error";
  EXPECT_THAT(store.Keys(), ::testing::ElementsAre("job7/teplug/host/2"));

  // One missing rank, and the default timeout when the rendezvous sets none.
  const TeplugRendezvous no_timeout = Rendezvous(&kv, "job7", 0);
  e = sdk::OwnedError(CountHosts(no_timeout, 0, 2, "h", 50, &hosts));
  EXPECT_THAT(e.message(), HasSubstr("rank 1 did not publish its host (key \"job7/teplug/host/1\") within 50 ms"));
}

// A store whose put fails: the error keeps its code and says what was asked.
TeplugError* FailingPut(void*, const char*, const void*, size_t) {
  return teplug_error_create(TEPLUG_UNAVAILABLE, "the file system is read-only");
}
TeplugError* NeverGet(void*, const char*, void*, size_t, size_t*, int64_t) {
  return teplug_error_create(TEPLUG_INTERNAL, "not reached");
}

TEST(CollectiveHostsTest, AStoreErrorComesBackWithItsCodeAndKey) {
  TeplugKvStore kv = sdk::Versioned<TeplugKvStore>();
  kv.put = &FailingPut;
  kv.get = &NeverGet;
  const TeplugRendezvous rv = Rendezvous(&kv, nullptr, 100);
  int32_t hosts = 0;
  sdk::OwnedError e(CountHosts(rv, 0, 2, "h", 60000, &hosts));
  EXPECT_EQ(e.code(), TEPLUG_UNAVAILABLE);
  EXPECT_THAT(e.message(), HasSubstr("publishing this rank's host under \"teplug/host/0\": the file system is "
                                     "read-only"));
}

TEST(CollectiveHostsTest, TheLocalIdIsTheOverrideOrThisKernelsSharedMemory) {
  // (LocalHostId is core/kernel/host_identity.h's, shared with `teplug run`.)
  EXPECT_EQ(LocalHostId("rack3-node12"), "rack3-node12");
  const std::string here = LocalHostId("");
  EXPECT_FALSE(here.empty());
  EXPECT_EQ(LocalHostId(""), here) << "stable within a process";
  EXPECT_THAT(here, ::testing::AnyOf(HasSubstr("/shm:"), ::testing::StartsWith("host:")));
  EXPECT_EQ(HostKey("pre", 12), "pre/teplug/host/12");
  EXPECT_EQ(HostKey(nullptr, 0), "teplug/host/0");
  EXPECT_EQ(HostKey("", 3), "teplug/host/3");
}

}  // namespace
}  // namespace teplug::core
