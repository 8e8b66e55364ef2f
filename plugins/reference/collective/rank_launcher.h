// Test support: runs one body per rank, either as threads of this process or
// as forked child processes, and collects each rank's status and output bytes.
// Forked children write their result to a file in $TEST_TMPDIR and _exit();
// the parent reads it back, so every check runs in the parent (gtest
// assertions never run in a child).
#ifndef TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_RANK_LAUNCHER_H_
#define TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_RANK_LAUNCHER_H_

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "plugins/reference/collective/communicator.h"

namespace teplug::reference::collective::testing {

enum class Launch { kThreads, kProcesses };

// "threads" / "processes", for test names.
const char* LaunchName(Launch launch);

// What one rank returned: its status, and its output bytes when ok.
struct RankResult {
  absl::Status status;
  std::vector<unsigned char> output;
};

// The work of one rank; returns the bytes the test will check.
using RankBody = std::function<absl::StatusOr<std::vector<unsigned char>>(int rank)>;

// Runs body(0) .. body(world-1) concurrently as `launch` says and waits for
// all. A child process that crashes or exits without a result yields an
// Internal status naming the rank and how it ended.
std::vector<RankResult> RunRanks(Launch launch, int world, const RankBody& body);

// One way to run a multi-rank test.
struct Topology {
  Launch launch;
  int world;
};

// Prints "threads, world 3" in gtest failure messages.
void PrintTo(const Topology& topology, std::ostream* out);

// Every topology the suites run: 2, 3 and 4 ranks, as threads and processes.
std::vector<Topology> AllTopologies();

// gtest parameter name, e.g. "processes_world3".
std::string TopologyName(const ::testing::TestParamInfo<Topology>& info);

// Options for multi-rank tests: small chunks (so modest buffers span several
// rounds) and a 30 s timeout (generous for 4 processes on 2 loaded cores).
CommunicatorOptions SmallChunkOptions(size_t chunk_bytes);

// $TEST_TMPDIR, or /tmp outside Bazel (or when it is set but empty).
std::string TestDirectory();

// A fresh region path in TestDirectory().
std::string FreshRegionPath();

// The work of one rank on its already created communicator; returns the
// bytes the test will check.
using CommunicatorBody =
    std::function<absl::StatusOr<std::vector<unsigned char>>(int rank, Communicator& communicator)>;

// The usual start of a multi-rank test, written once: every rank joins one
// fresh region with `options` and then runs body(rank, communicator). A rank
// whose Create fails returns that status without running body.
std::vector<RankResult> RunOnCommunicators(Launch launch, int world,
                                           const CommunicatorOptions& options,
                                           const CommunicatorBody& body);

// Fails the test with the rank and its status for the first rank that did not
// return ok. It uses ASSERT, which only leaves this function, so callers write
// ASSERT_NO_FATAL_FAILURE(ExpectAllRanksOk(results)) to skip the output checks
// that would only repeat the failure.
void ExpectAllRanksOk(const std::vector<RankResult>& results);

}  // namespace teplug::reference::collective::testing

#endif  // TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_RANK_LAUNCHER_H_
