// The redis: rendezvous against a real Redis server started here on a free
// port (skipped, saying so, where redis-server is not installed;
// tools/setup.sh installs it): keys set once and read by another rank, a
// timeout naming the ranks that never arrived, an abort note stopping a
// waiting rank, a rank arriving twice, a finished RUN refused, no server.
#include "tools/teplug/redis_rendezvous.h"

#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

extern char** environ;

namespace teplug::cli {
namespace {

using ::testing::HasSubstr;

// A port nothing listens on right now.
int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

bool Accepts(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

class RedisRendezvousTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::system("command -v redis-server >/dev/null 2>&1") != 0) {
      GTEST_SKIP() << "redis-server is not installed (tools/setup.sh installs it)";
    }
    port_ = FreePort();
    const std::string port = std::to_string(port_);
    const char* argv[] = {"redis-server", "--port", port.c_str(), "--bind", "127.0.0.1",
                          "--save", "", "--appendonly", "no", nullptr};
    ASSERT_EQ(::posix_spawnp(&server_, "redis-server", nullptr, nullptr,
                             const_cast<char* const*>(argv), environ),
              0);
    for (int i = 0; i < 200 && !Accepts(port_); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_TRUE(Accepts(port_)) << "redis-server did not start on port " << port_;
  }
  void TearDown() override {
    if (server_ > 0) {
      ::kill(server_, SIGTERM);
      ::waitpid(server_, nullptr, 0);
    }
  }
  RedisAddress Address(const std::string& run) const { return {"127.0.0.1", port_, run}; }

  int port_ = 0;
  pid_t server_ = 0;
};

TEST_F(RedisRendezvousTest, RanksMeetAndKeysAreSetOnce) {
  auto r0 = RedisRendezvous::Open(Address("meet"), 0, 2);
  ASSERT_TRUE(r0.ok()) << r0.status();
  EXPECT_EQ((*r0)->MissingRanks(), std::vector<int>{1});
  auto r1 = RedisRendezvous::Open(Address("meet"), 1, 2);
  ASSERT_TRUE(r1.ok()) << r1.status();
  EXPECT_TRUE((*r0)->MissingRanks().empty());
  EXPECT_EQ((*r0)->where(), absl::StrCat("redis:127.0.0.1:", port_, "/meet"));

  const std::string bytes("a\0b\xff", 4);
  ASSERT_TRUE((*r1)->Set("x/1", bytes).ok());
  absl::StatusOr<std::string> got = (*r0)->Get("x/1", 1000);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, bytes);
  absl::Status again = (*r1)->Set("x/1", "other");
  EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(again.message(), HasSubstr("key \"x/1\" is already set"));

  // A value set while the other rank waits arrives.
  std::thread late([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_TRUE((*r1)->Set("late", "v").ok());
  });
  got = (*r0)->Get("late", 5000);
  late.join();
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, "v");

  // A rank given twice is refused.
  auto twice = RedisRendezvous::Open(Address("meet"), 1, 2);
  EXPECT_EQ(twice.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(twice.status().message(), HasSubstr("rank 1 already arrived"));

  // Finished: the same RUN is refused.
  ASSERT_TRUE((*r0)->MarkFinished().ok());
  ASSERT_TRUE((*r1)->MarkFinished().ok());
  auto reused = RedisRendezvous::Open(Address("meet"), 0, 2);
  EXPECT_EQ(reused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(reused.status().message(), HasSubstr("holds a finished run"));
}

TEST_F(RedisRendezvousTest, TimeoutNamesMissingRanksAndAbortStopsWaiters) {
  auto r0 = RedisRendezvous::Open(Address("wait"), 0, 3);
  ASSERT_TRUE(r0.ok()) << r0.status();
  auto r1 = RedisRendezvous::Open(Address("wait"), 1, 3);
  ASSERT_TRUE(r1.ok()) << r1.status();
  absl::StatusOr<std::string> got = (*r0)->Get("never", 200);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(got.status().message(),
              HasSubstr(absl::StrCat("rendezvous redis:127.0.0.1:", port_,
                                     "/wait: key \"never\" did not appear within 200 ms; rank 2 "
                                     "of 3 never arrived")));

  std::thread failing([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    (*r1)->Abort("rank 1: out of memory");
  });
  const auto start = std::chrono::steady_clock::now();
  got = (*r0)->Get("never", 30000);
  failing.join();
  EXPECT_EQ(got.status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(got.status().message(), HasSubstr("stopped waiting for key \"never\": rank 1: out of memory"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));

  // Through the ABI callbacks: the abort is UNAVAILABLE, not a timeout.
  const TeplugKvStore* kv = (*r0)->kv_store();
  char buffer[8];
  size_t size = 0;
  TeplugError* error = kv->get(kv->ctx, "never", buffer, sizeof buffer, &size, 1000);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->code, TEPLUG_UNAVAILABLE);
  error->destroy(error);
}

TEST_F(RedisRendezvousTest, NoServerIsUnavailableNamingTheAddress) {
  const int nothing = FreePort();
  auto r = RedisRendezvous::Open({"127.0.0.1", nothing, "none"}, 0, 2);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(r.status().message(),
              HasSubstr(absl::StrCat("rendezvous redis:127.0.0.1:", nothing,
                                     "/none: cannot reach the Redis server")));
}

TEST(RedisAddressTest, ParsesAndRefusesNamingWhatIsWrong) {
  absl::StatusOr<RedisAddress> a = ParseRedisAddress("host.example:6380/run/with/slash");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->host, "host.example");
  EXPECT_EQ(a->port, 6380);
  EXPECT_EQ(a->run, "run/with/slash");
  EXPECT_THAT(ParseRedisAddress("host/run").status().message(), HasSubstr("expected redis:HOST"));
  EXPECT_THAT(ParseRedisAddress("host:x/run").status().message(), HasSubstr("port \"x\""));
  EXPECT_THAT(ParseRedisAddress("host:70000/run").status().message(), HasSubstr("not 1..65535"));
  EXPECT_THAT(ParseRedisAddress("host:1/").status().message(), HasSubstr("no RUN"));
}

}  // namespace
}  // namespace teplug::cli
