#include "plugins/reference/collective/rank_launcher.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <thread>

#include "absl/strings/str_format.h"
#include "plugins/reference/collective/rendezvous.h"

namespace teplug::reference::collective::testing {
namespace {

// Result file layout: int32 status code, uint64 message length, message,
// then the output bytes up to the end of the file.
bool WriteResult(const std::string& path,
                 const absl::StatusOr<std::vector<unsigned char>>& result) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  const int32_t code = static_cast<int32_t>(result.status().code());
  const std::string message(result.status().message());
  const uint64_t length = message.size();
  file.write(reinterpret_cast<const char*>(&code), sizeof(code));
  file.write(reinterpret_cast<const char*>(&length), sizeof(length));
  file.write(message.data(), static_cast<std::streamsize>(message.size()));
  if (result.ok()) {
    file.write(reinterpret_cast<const char*>(result->data()),
               static_cast<std::streamsize>(result->size()));
  }
  file.close();
  return static_cast<bool>(file);
}

RankResult ReadResult(const std::string& path, int rank) {
  std::ifstream file(path, std::ios::binary);
  int32_t code = 0;
  uint64_t length = 0;
  file.read(reinterpret_cast<char*>(&code), sizeof(code));
  file.read(reinterpret_cast<char*>(&length), sizeof(length));
  std::string message(length, '\0');
  file.read(message.data(), static_cast<std::streamsize>(length));
  if (!file) {
    return {absl::InternalError(
                absl::StrFormat("rank %d: result file %s is missing or truncated", rank, path)),
            {}};
  }
  RankResult result;
  result.status = absl::Status(static_cast<absl::StatusCode>(code), message);
  result.output.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  return result;
}

std::vector<RankResult> RunAsThreads(int world, const RankBody& body) {
  std::vector<RankResult> results(world);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < world; ++rank) {
    threads.emplace_back([&body, &results, rank] {
      absl::StatusOr<std::vector<unsigned char>> result = body(rank);
      results[rank].status = result.status();
      if (result.ok()) results[rank].output = *std::move(result);
    });
  }
  for (std::thread& thread : threads) thread.join();
  return results;
}

std::vector<RankResult> RunAsProcesses(int world, const RankBody& body) {
  const std::string prefix = MakeUniqueRegionPath(TestDirectory()) + "-result-";
  std::vector<pid_t> children(world, -1);
  std::vector<RankResult> results(world);
  for (int rank = 0; rank < world; ++rank) {
    std::fflush(nullptr);  // no buffered output duplicated into the child
    const pid_t pid = fork();
    if (pid == 0) {
      const bool written = WriteResult(prefix + std::to_string(rank), body(rank));
      _exit(written ? 0 : 3);
    }
    if (pid < 0) {
      results[rank].status = absl::InternalError(absl::StrFormat("rank %d: fork failed", rank));
    }
    children[rank] = pid;
  }
  for (int rank = 0; rank < world; ++rank) {
    if (children[rank] < 0) continue;
    int wait_status = 0;
    if (waitpid(children[rank], &wait_status, 0) != children[rank]) {
      results[rank].status = absl::InternalError(absl::StrFormat("rank %d: waitpid failed", rank));
      continue;
    }
    const std::string path = prefix + std::to_string(rank);
    if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0) {
      results[rank] = ReadResult(path, rank);
    } else if (WIFSIGNALED(wait_status)) {
      results[rank].status = absl::InternalError(
          absl::StrFormat("rank %d process was killed by signal %d", rank, WTERMSIG(wait_status)));
    } else {
      results[rank].status = absl::InternalError(absl::StrFormat(
          "rank %d process exited with code %d without a result", rank, WEXITSTATUS(wait_status)));
    }
    std::remove(path.c_str());
  }
  return results;
}

}  // namespace

const char* LaunchName(Launch launch) {
  return launch == Launch::kThreads ? "threads" : "processes";
}

std::vector<RankResult> RunRanks(Launch launch, int world, const RankBody& body) {
  return launch == Launch::kThreads ? RunAsThreads(world, body) : RunAsProcesses(world, body);
}

void PrintTo(const Topology& topology, std::ostream* out) {
  *out << LaunchName(topology.launch) << ", world " << topology.world;
}

std::vector<Topology> AllTopologies() {
  std::vector<Topology> topologies;
  for (Launch launch : {Launch::kThreads, Launch::kProcesses}) {
    for (int world : {2, 3, 4}) topologies.push_back({launch, world});
  }
  return topologies;
}

std::string TopologyName(const ::testing::TestParamInfo<Topology>& info) {
  return absl::StrFormat("%s_world%d", LaunchName(info.param.launch), info.param.world);
}

CommunicatorOptions SmallChunkOptions(size_t chunk_bytes) {
  CommunicatorOptions options;
  options.chunk_bytes = chunk_bytes;
  options.timeout = std::chrono::seconds(30);
  return options;
}

std::string TestDirectory() {
  const char* directory = std::getenv("TEST_TMPDIR");
  return directory != nullptr && directory[0] != '\0' ? directory : "/tmp";
}

std::string FreshRegionPath() { return MakeUniqueRegionPath(TestDirectory()); }

std::vector<RankResult> RunOnCommunicators(Launch launch, int world,
                                           const CommunicatorOptions& options,
                                           const CommunicatorBody& body) {
  const std::string path = FreshRegionPath();
  return RunRanks(launch, world, [&](int rank) -> absl::StatusOr<std::vector<unsigned char>> {
    auto communicator = Communicator::Create(path, rank, world, options);
    if (!communicator.ok()) return communicator.status();
    return body(rank, **communicator);
  });
}

void ExpectAllRanksOk(const std::vector<RankResult>& results) {
  for (size_t r = 0; r < results.size(); ++r) {
    ASSERT_TRUE(results[r].status.ok()) << "rank " << r << ": " << results[r].status;
  }
}

}  // namespace teplug::reference::collective::testing
