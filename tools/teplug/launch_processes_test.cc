// The rank process launcher: N processes start and their statuses come back
// in rank order; a failing rank is reported by rank; ranks still running
// after the grace period are killed (the launch never hangs on them) and an
// abort note tells ranks waiting in the rendezvous; each child sees the
// environment overrides.
#include "tools/teplug/launch_processes.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/teplug/file_rendezvous.h"

namespace teplug::cli {
namespace {

using ::testing::HasSubstr;

std::string TestDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  return absl::StrCat(base != nullptr ? base : "/tmp", "/launch-", name, "-", ::getpid());
}

// Rank r runs `/bin/sh -c SCRIPT r`; the script sees its rank as $0.
RankProcessesSpec Shell(int ranks, const std::string& script) {
  RankProcessesSpec spec;
  spec.ranks = ranks;
  spec.program = "/bin/sh";
  spec.argv = [script](int rank) {
    return std::vector<std::string>{"sh", "-c", script, absl::StrCat(rank)};
  };
  return spec;
}

TEST(LaunchProcessesTest, EveryRankRunsWithItsArgumentsAndEnvironment) {
  const std::string dir = TestDir("env");
  ASSERT_EQ(system(absl::StrCat("mkdir -p ", dir).c_str()), 0);
  RankProcessesSpec spec =
      Shell(3, absl::StrCat("echo \"$TEPLUG_LOCAL_RANKS $HOME\" > ", dir, "/out.$0"));
  spec.environment = {"TEPLUG_LOCAL_RANKS=3", "HOME=/teplug-home"};
  auto exits = RunRankProcesses(spec);
  ASSERT_TRUE(exits.ok()) << exits.status();
  ASSERT_EQ(exits->size(), 3u);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ((*exits)[static_cast<size_t>(r)].rank, r);
    EXPECT_TRUE((*exits)[static_cast<size_t>(r)].ok());
    std::ifstream in(absl::StrCat(dir, "/out.", r));
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "3 /teplug-home") << "rank " << r;  // overrides replace inherited values
  }
}

TEST(LaunchProcessesTest, FailingRankIsReportedByRank) {
  auto exits = RunRankProcesses(Shell(3, "if [ \"$0\" = 1 ]; then exit 3; fi; exit 0"));
  ASSERT_TRUE(exits.ok());
  EXPECT_TRUE((*exits)[0].ok());
  EXPECT_FALSE((*exits)[1].ok());
  EXPECT_EQ((*exits)[1].status, 3);
  EXPECT_EQ(DescribeRankExit((*exits)[1], std::chrono::seconds(1)), "exit status 3");
  EXPECT_TRUE((*exits)[2].ok());
}

TEST(LaunchProcessesTest, CrashIsReportedWithItsSignal) {
  auto exits = RunRankProcesses(Shell(2, "if [ \"$0\" = 0 ]; then kill -SEGV $$; fi; exit 0"));
  ASSERT_TRUE(exits.ok());
  EXPECT_EQ((*exits)[0].signal, 11);
  EXPECT_THAT(DescribeRankExit((*exits)[0], std::chrono::seconds(1)),
              HasSubstr("killed by signal 11"));
}

TEST(LaunchProcessesTest, HangingRanksAreKilledAfterTheGracePeriod) {
  const std::string dir = TestDir("hang");
  auto store = FileRendezvous::Open(dir, 0, 3);
  ASSERT_TRUE(store.ok());
  // Ranks 0 and 2 would wait forever for rank 1, which fails.
  RankProcessesSpec spec =
      Shell(3, "if [ \"$0\" = 1 ]; then exit 1; fi; exec sleep 1000");
  spec.grace = std::chrono::milliseconds(200);
  spec.rendezvous_dir = dir;
  auto exits = RunRankProcesses(spec);
  ASSERT_TRUE(exits.ok());
  EXPECT_EQ((*exits)[1].status, 1);
  for (int r : {0, 2}) {
    const RankExit& e = (*exits)[static_cast<size_t>(r)];
    EXPECT_TRUE(e.killed_by_launcher) << r;
    EXPECT_EQ(e.failed_first, 1);
    EXPECT_EQ(DescribeRankExit(e, spec.grace),
              "killed by the launcher: still running 0.2 s after rank 1 failed");
  }
  // The note a crashed rank could not post itself.
  absl::StatusOr<std::string> got = (*store)->Get("anything", 10000);
  ASSERT_EQ(got.status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(got.status().message(), HasSubstr("rank 1 ended: exit status 1"));
}

TEST(LaunchProcessesTest, ProgramThatCannotStartFailsItsRank) {
  RankProcessesSpec spec;
  spec.ranks = 2;
  spec.program = "/nonexistent/teplug";
  spec.argv = [](int) { return std::vector<std::string>{"teplug"}; };
  auto exits = RunRankProcesses(spec);
  ASSERT_TRUE(exits.ok());
  EXPECT_EQ((*exits)[0].status, 127);
  EXPECT_EQ((*exits)[1].status, 127);
}

}  // namespace
}  // namespace teplug::cli
