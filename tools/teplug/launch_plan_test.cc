// Where `teplug run` takes its ranks from: threads by default, the launcher
// for --launch processes, --rank for ranks started by hand, and an MPI
// launcher's environment (OpenMPI, PMI); the thread budget per rank process;
// and every conflicting combination refused with the flag or variable named.
#include "tools/teplug/launch_plan.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace teplug::cli {
namespace {

using ::testing::HasSubstr;

EnvironmentLookup Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

LaunchRequest Request(const std::string& launch, int ranks, int rank = -1,
                      const std::string& rendezvous = "") {
  LaunchRequest r;
  r.launch = launch;
  r.ranks = ranks;
  r.rank = rank;
  r.rendezvous = rendezvous;
  return r;
}

TEST(LaunchPlanTest, ThreadsByDefaultWithoutABudget) {
  auto plan = PlanLaunch(Request("threads", 2), Env({}), {8, 8});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->role, LaunchRole::kThreads);
  EXPECT_EQ(plan->world_size, 2);
  EXPECT_EQ(plan->cpu_threads, 0);
  EXPECT_THAT(DescribeLaunch(*plan), HasSubstr("2 ranks (threads of this process)"));
  EXPECT_THAT(DescribeLaunch(*plan), HasSubstr("TEPLUG_CPU_THREADS unset"));
}

TEST(LaunchPlanTest, ProcessesSplitTheCores) {
  auto plan = PlanLaunch(Request("processes", 3), Env({}), {8, 8});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->role, LaunchRole::kLauncher);
  EXPECT_EQ(plan->cpu_threads, 2);  // 8 cores / 3 ranks
  EXPECT_TRUE(plan->rendezvous_dir.empty());  // the launcher makes one
  // More ranks than cores: still one thread each.
  auto crowded = PlanLaunch(Request("processes", 4), Env({}), {2, 2});
  ASSERT_TRUE(crowded.ok());
  EXPECT_EQ(crowded->cpu_threads, 1);
}

TEST(LaunchPlanTest, RankStartedByTheLauncherTakesItsLocalRanks) {
  auto plan = PlanLaunch(Request("processes", 2, 1, "file:/tmp/x"),
                         Env({{"TEPLUG_LOCAL_RANKS", "2"}}), {8, 8});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->role, LaunchRole::kOneRank);
  EXPECT_EQ(plan->rank, 1);
  EXPECT_TRUE(plan->started_by_launcher);
  EXPECT_EQ(plan->rendezvous_dir, "/tmp/x");
  EXPECT_EQ(plan->cpu_threads, 4);
  EXPECT_THAT(DescribeLaunch(*plan),
              HasSubstr("TEPLUG_CPU_THREADS=4 per rank process (8 cores / 2 ranks on this machine)"));
}

TEST(LaunchPlanTest, UserBudgetWins) {
  auto plan = PlanLaunch(Request("processes", 2, 0, "file:/tmp/x"),
                         Env({{"TEPLUG_CPU_THREADS", "3"}, {"TEPLUG_LOCAL_RANKS", "2"}}), {8, 8});
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->cpu_threads_from_user);
  EXPECT_EQ(plan->cpu_threads, 3);
  EXPECT_THAT(DescribeLaunch(*plan), HasSubstr("TEPLUG_CPU_THREADS=3 (set by the user)"));
}

TEST(LaunchPlanTest, RankByHandIsOneRankPerMachine) {
  auto plan = PlanLaunch(Request("threads", 2, 0, "file:/shared/run1"), Env({}), {8, 8});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->role, LaunchRole::kOneRank);
  EXPECT_FALSE(plan->started_by_launcher);
  EXPECT_EQ(plan->local_ranks, 1);
  EXPECT_EQ(plan->cpu_threads, 8);
  EXPECT_THAT(DescribeLaunch(*plan), HasSubstr("rank 0 here (--rank)"));
}

TEST(LaunchPlanTest, RankByHandMeetsOnARedisServer) {
  auto plan = PlanLaunch(Request("threads", 3, 2, "redis:10.0.0.5:6379/job-7"), Env({}), {8, 8});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->role, LaunchRole::kOneRank);
  ASSERT_TRUE(plan->redis.has_value());
  EXPECT_EQ(plan->redis->host, "10.0.0.5");
  EXPECT_EQ(plan->redis->port, 6379);
  EXPECT_EQ(plan->redis->run, "job-7");
  EXPECT_TRUE(plan->rendezvous_dir.empty());
  EXPECT_THAT(DescribeLaunch(*plan),
              HasSubstr("(processes, rendezvous redis:10.0.0.5:6379/job-7), rank 2 here"));
}

TEST(LaunchPlanTest, OpenMpiEnvironmentNamesRankAndSize) {
  auto plan = PlanLaunch(Request("threads", 2, -1, "file:/shared/r"),
                         Env({{"OMPI_COMM_WORLD_RANK", "2"},
                              {"OMPI_COMM_WORLD_SIZE", "4"},
                              {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}}), {8, 8});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->role, LaunchRole::kOneRank);
  EXPECT_EQ(plan->rank, 2);
  EXPECT_EQ(plan->world_size, 4);  // the --ranks default gives way
  EXPECT_EQ(plan->local_ranks, 2);
  EXPECT_EQ(plan->cpu_threads, 4);
  EXPECT_THAT(DescribeLaunch(*plan), HasSubstr("rank 2 here (OMPI_COMM_WORLD_RANK)"));
}

TEST(LaunchPlanTest, PmiEnvironmentNamesRankAndSize) {
  auto plan = PlanLaunch(Request("threads", 2, -1, "file:/shared/r"),
                         Env({{"PMI_RANK", "1"}, {"PMI_SIZE", "3"}}), {6, 6});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->rank, 1);
  EXPECT_EQ(plan->world_size, 3);
  EXPECT_EQ(plan->local_ranks, 3);  // placement unknown: assume all here
  EXPECT_EQ(plan->cpu_threads, 2);
  EXPECT_EQ(plan->rank_source, "PMI_RANK");
}

TEST(LaunchPlanTest, MpiRefusals) {
  const auto mpi = Env({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "2"}});
  auto no_rendezvous = PlanLaunch(Request("threads", 2), mpi, {4, 4});
  EXPECT_THAT(no_rendezvous.status().message(), HasSubstr("--rendezvous file:DIR is required"));
  EXPECT_THAT(no_rendezvous.status().message(), HasSubstr("OMPI_COMM_WORLD_RANK=0"));
  EXPECT_THAT(PlanLaunch(Request("processes", 2, -1, "file:/d"), mpi, {4, 4}).status().message(),
              HasSubstr("drop --launch"));
  EXPECT_THAT(PlanLaunch(Request("threads", 2, 1, "file:/d"), mpi, {4, 4}).status().message(),
              HasSubstr("drop --rank"));
  LaunchRequest three = Request("threads", 3, -1, "file:/d");
  three.ranks_set = true;
  EXPECT_THAT(PlanLaunch(three, mpi, {4, 4}).status().message(),
              HasSubstr("--ranks 3 differs from OMPI_COMM_WORLD_SIZE=2"));
  EXPECT_THAT(PlanLaunch(Request("threads", 2, -1, "file:/d"),
                         Env({{"OMPI_COMM_WORLD_RANK", "x"}, {"OMPI_COMM_WORLD_SIZE", "2"}}), {4, 4})
                  .status()
                  .message(),
              HasSubstr("OMPI_COMM_WORLD_RANK=\"x\" is not an integer"));
  EXPECT_THAT(PlanLaunch(Request("threads", 2, -1, "file:/d"),
                         Env({{"OMPI_COMM_WORLD_RANK", "1"}}), {4, 4})
                  .status()
                  .message(),
              HasSubstr("OMPI_COMM_WORLD_SIZE=\"\""));
  EXPECT_THAT(PlanLaunch(Request("threads", 2, -1, "file:/d"),
                         Env({{"PMI_RANK", "3"}, {"PMI_SIZE", "2"}}), {4, 4})
                  .status()
                  .message(),
              HasSubstr("not below the world size"));
}

TEST(LaunchPlanTest, FlagRefusals) {
  EXPECT_THAT(PlanLaunch(Request("threads", 2, 0), Env({}), {4, 4}).status().message(),
              HasSubstr("--rank needs --rendezvous"));
  EXPECT_THAT(PlanLaunch(Request("threads", 2, 2, "file:/d"), Env({}), {4, 4}).status().message(),
              HasSubstr("--rank 2 is not below --ranks 2"));
  EXPECT_THAT(PlanLaunch(Request("threads", 2, -1, "file:/d"), Env({}), {4, 4}).status().message(),
              HasSubstr("add --launch processes"));
  EXPECT_THAT(PlanLaunch(Request("processes", 2, -1, "file:"), Env({}), {4, 4}).status().message(),
              HasSubstr("names no directory"));
  EXPECT_THAT(PlanLaunch(Request("processes", 2, -1, "redis:h"), Env({}), {4, 4}).status().message(),
              HasSubstr("expected redis:HOST:PORT/RUN"));
  EXPECT_THAT(PlanLaunch(Request("processes", 2, 0, "redis:h:0/run"), Env({}), {4, 4})
                  .status()
                  .message(),
              HasSubstr("port \"0\" is not 1..65535"));
  EXPECT_THAT(PlanLaunch(Request("processes", 2, 0, "redis:h:6379/"), Env({}), {4, 4})
                  .status()
                  .message(),
              HasSubstr("no RUN after the port"));
  EXPECT_THAT(PlanLaunch(Request("processes", 2, -1, "redis:h:6379/run"), Env({}), {4, 4})
                  .status()
                  .message(),
              HasSubstr("redis:HOST:PORT/RUN is for ranks started one per host"));
  EXPECT_THAT(PlanLaunch(Request("threads", 2, -1, "nfs:/d"), Env({}), {4, 4}).status().message(),
              HasSubstr("expected file:DIR or redis:HOST:PORT/RUN"));
  auto tcp = PlanLaunch(Request("processes", 2, -1, "tcp:host:29500"), Env({}), {4, 4});
  EXPECT_EQ(tcp.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(tcp.status().message(), HasSubstr("no TCP store"));
  EXPECT_THAT(PlanLaunch(Request("processes", 2, 0, "file:/d"),
                         Env({{"TEPLUG_LOCAL_RANKS", "0"}}), {4, 4})
                  .status()
                  .message(),
              HasSubstr("TEPLUG_LOCAL_RANKS=\"0\""));
}

TEST(LaunchPlanTest, RankBoundByMpiTakesItsOwnCores) {
  // mpirun bound this rank to 2 of the machine's 8 CPUs: those are its own.
  auto plan = PlanLaunch(Request("threads", 2, -1, "file:/shared/r"),
                         Env({{"OMPI_COMM_WORLD_RANK", "0"},
                              {"OMPI_COMM_WORLD_SIZE", "4"},
                              {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"}}),
                         {2, 8});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->bound_by_mpi);
  EXPECT_EQ(plan->cpu_threads, 2);
  EXPECT_THAT(DescribeLaunch(*plan),
              HasSubstr("TEPLUG_CPU_THREADS=2 per rank process (the 2 cores the MPI launcher "
                        "bound this rank to)"));
  // The launcher's own children share its CPUs: always a share.
  auto child = PlanLaunch(Request("processes", 2, 1, "file:/tmp/x"),
                          Env({{"TEPLUG_LOCAL_RANKS", "2"}}), {4, 8});
  ASSERT_TRUE(child.ok());
  EXPECT_FALSE(child->bound_by_mpi);
  EXPECT_EQ(child->cpu_threads, 2);
}

TEST(LaunchPlanTest, CoresAvailableIsPositive) {
  const CoreCount cores = CoresAvailable();
  EXPECT_GE(cores.usable, 1);
  EXPECT_LE(cores.usable, cores.online);
}

}  // namespace
}  // namespace teplug::cli
