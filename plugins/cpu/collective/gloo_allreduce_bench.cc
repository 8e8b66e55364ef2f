// All-reduce (fp32 sum, in place) with N ranks as N processes over loopback
// TCP (--ranks=N, default 2): through teplug (the kernel's dispatching
// ICollective, served by the Gloo implementation) against three direct Gloo
// algorithms, gloo::allreduce (what the implementation calls above 1 MiB),
// gloo::AllreduceRing (the ring whose data messages it sends below, without
// the ring's per-round handshake for two ranks and for the gather of three or
// four) and gloo::AllreduceHalvingDoubling (what it calls for floating sums
// of five or more ranks), 1 KiB .. 64 MiB, and
// reports it against the reference provider's shared-memory transport
// (called directly: what serves ranks on one host by default). This
// process is rank 0 and runs Google Benchmark; forked children are ranks 1 ..
// N-1 and run the same op the same number of times, each told which over its
// pipe at the start of each run.
//
// Two kinds of benchmark: `<variant>/<bytes>` runs one variant's ops back to
// back; `rotation/<bytes>` runs rounds of one op of every variant in a
// shuffled order and reports each variant's median op time. The rotation is
// the one to trust on a loaded machine: with more ranks than cores every op
// waits on the scheduler, and variants measured apart meet different waits.
//   bazel build -c opt //plugins/cpu/collective:gloo_allreduce_bench
//   TEST_SRCDIR=bazel-bin/plugins/cpu/collective/gloo_allreduce_bench.runfiles \
//     bazel-bin/plugins/cpu/collective/gloo_allreduce_bench [--ranks=4] \
//     --benchmark_filter='^rotation/' --benchmark_repetitions=5
// It prints, per size, each variant's median and teplug's throughput
// relative to the fastest direct algorithm (target >= 0.95).
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "gloo/allreduce.h"
#include "gloo/allreduce_ring.h"
#include "gloo/allreduce_halving_doubling.h"
#include "gloo/math.h"
#include "gloo/rendezvous/context.h"
#include "gloo/rendezvous/file_store.h"
#include "gloo/transport/tcp/device.h"
#include "plugins/cpu/collective/gloo_test_support.h"
#include "plugins/reference/collective/communicator.h"
#include "plugins/reference/collective/data_type.h"
#include "plugins/reference/collective/rendezvous.h"

namespace teplug::cpu::collective {
namespace {

enum Variant : int {
  kTeplug = 0,
  kGlooAllreduce = 1,
  kGlooRing = 2,
  kGlooHalvingDoubling = 3,
  kSharedMemory = 4,
  kRotation = 5,  // every variant above, one op each per round (RunRotation)
  kQuit = 6
};
constexpr int kNumVariants = kRotation;
const char* const kVariantNames[] = {"teplug", "gloo_allreduce", "gloo_ring",
                                     "gloo_halving_doubling", "shared_memory"};

struct Command {
  int variant;
  size_t bytes;
  int64_t iterations;
};

// One rank's communicators: teplug's, and plain Gloo contexts for the baselines.
struct Rank {
  std::unique_ptr<testing::Comm> teplug;
  std::shared_ptr<gloo::Context> gloo;
  // gloo::allreduce's own context. Sharing `gloo` with the ring objects, it
  // took about 0.5 s per 1 MiB op at 4 processes and twice never returned on
  // some ranks (gdb: one rank had already left the op); on its own, 5.5 ms.
  std::shared_ptr<gloo::Context> gloo_unbound;
  std::vector<float> buffer;
  // One AllreduceRing per size, built on first use (the same order on both
  // ranks) and kept: Gloo's ring objects are built once and run many times.
  std::map<size_t, std::unique_ptr<gloo::AllreduceRing<float>>> rings;
  std::map<size_t, std::unique_ptr<gloo::AllreduceHalvingDoubling<float>>> halving_doublings;
  // The tag of the next direct gloo::allreduce (as the implementation does,
  // one per op, so consecutive ops' messages never share a slot).
  uint32_t next_tag = 0;
  // The reference provider's shared-memory transport, called directly.
  std::unique_ptr<reference::collective::Communicator> shared_memory;
};

std::shared_ptr<gloo::Context> DirectGlooContext(int rank, int ranks, const std::string& dir) {
  gloo::transport::tcp::attr attr;
  attr.iface = "lo";
  auto device = gloo::transport::tcp::CreateDevice(attr);
  gloo::rendezvous::FileStore store(dir);
  auto context = std::make_shared<gloo::rendezvous::Context>(rank, ranks);
  context->setTimeout(std::chrono::seconds(60));
  context->connectFullMesh(store, device);
  return context;
}

// Runs `iterations` all-reduces of `bytes` with one variant; returns false
// (after printing why) when teplug's call fails.
bool RunVariant(Rank& rank, const Command& c) {
  const size_t count = c.bytes / sizeof(float);
  // Sized once for the largest message: the rings keep pointers into it.
  if (rank.buffer.empty()) rank.buffer.assign((64u << 20) / sizeof(float), 1.0f);
  float* data = rank.buffer.data();
  switch (c.variant) {
    case kTeplug: {
      TeplugTensor t = testing::Vector(data, TEPLUG_DTYPE_FP32, count);
      for (int64_t i = 0; i < c.iterations; ++i) {
        absl::Status s = rank.teplug->Run(TEPLUG_OP_ALL_REDUCE, &t, &t, TEPLUG_REDUCE_SUM);
        if (!s.ok()) {
          std::fprintf(stderr, "teplug all_reduce failed: %s\n", s.ToString().c_str());
          return false;
        }
      }
      return true;
    }
    case kGlooAllreduce: {
      for (int64_t i = 0; i < c.iterations; ++i) {
        gloo::AllreduceOptions opts(rank.gloo_unbound);
        opts.setOutput(data, count);
        opts.setReduceFunction(
            static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
        opts.setTag(rank.next_tag++);
        gloo::allreduce(opts);
      }
      return true;
    }
    case kSharedMemory: {
      for (int64_t i = 0; i < c.iterations; ++i) {
        absl::Status s =
            rank.shared_memory->AllReduce(data, data, count, reference::collective::DataType::kFp32,
                                          reference::collective::ReduceOp::kSum);
        if (!s.ok()) {
          std::fprintf(stderr, "shared-memory all_reduce failed: %s\n", s.ToString().c_str());
          return false;
        }
      }
      return true;
    }
    case kGlooHalvingDoubling: {
      auto& ring = rank.halving_doublings[c.bytes];
      if (!ring) {
        ring = std::make_unique<gloo::AllreduceHalvingDoubling<float>>(
            rank.gloo, std::vector<float*>{data}, static_cast<int>(count));
      }
      for (int64_t i = 0; i < c.iterations; ++i) ring->run();
      return true;
    }
    case kGlooRing: {
      auto& ring = rank.rings[c.bytes];
      if (!ring) {
        ring = std::make_unique<gloo::AllreduceRing<float>>(rank.gloo, std::vector<float*>{data},
                                                            static_cast<int>(count));
      }
      for (int64_t i = 0; i < c.iterations; ++i) ring->run();
      return true;
    }
    default:
      std::fprintf(stderr, "unknown variant %d\n", c.variant);
      return false;
  }
}

// The order of the variants in round `round` of a rotation: a permutation
// drawn from a generator seeded with the round, so every rank computes the
// same one, and each variant follows each other one about equally often.
std::array<int, kNumVariants> RoundOrder(int64_t round) {
  std::array<int, kNumVariants> order;
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 generator(static_cast<uint64_t>(round) * 0x9e3779b97f4a7c15ull + 1);
  for (int i = kNumVariants - 1; i > 0; --i) {
    const int j = static_cast<int>(generator() % static_cast<uint64_t>(i + 1));
    std::swap(order[i], order[j]);
  }
  return order;
}

// Runs one untimed round (building the persistent rings), then `rounds`
// rounds of one op of every variant in RoundOrder. When `times` is given
// (rank 0), appends each op's wall time in microseconds to its variant's list.
// Alternating single ops puts every variant in the same moments of the
// machine's load: with more ranks than cores, ops wait on the scheduler for
// milliseconds, and variants measured apart meet different waits.
bool RunRotation(Rank& rank, size_t bytes, int64_t rounds,
                 std::array<std::vector<double>, kNumVariants>* times) {
  for (int64_t round = -1; round < rounds; ++round) {
    for (int variant : RoundOrder(round)) {
      const auto start = std::chrono::steady_clock::now();
      if (!RunVariant(rank, Command{variant, bytes, 1})) return false;
      const std::chrono::duration<double, std::micro> took =
          std::chrono::steady_clock::now() - start;
      if (times != nullptr && round >= 0) (*times)[variant].push_back(took.count());
    }
  }
  return true;
}

double MedianOf(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 == 1 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

std::vector<int> g_command_pipes;  // rank 0 writes commands to ranks 1 .. N-1
Rank* g_rank0 = nullptr;
// Per size, one entry per repetition of its rotation: each variant's median
// op time (us) in that repetition.
std::map<size_t, std::vector<std::array<double, kNumVariants>>> g_rotation_medians;

// Sends `c` to every other rank; false when one cannot be reached.
bool Broadcast(const Command& c) {
  for (int fd : g_command_pipes) {
    if (write(fd, &c, sizeof c) != static_cast<ssize_t>(sizeof c)) return false;
  }
  return true;
}

void BM_AllReduce(benchmark::State& state, int variant, size_t bytes) {
  const Command c{variant, bytes, static_cast<int64_t>(state.max_iterations)};
  if (!Broadcast(c)) {
    state.SkipWithError("cannot reach the other ranks");
    return;
  }
  // One pass of the loop runs all iterations, so the others run the same count.
  Command mine = c;
  for (auto _ : state) {
    if (!RunVariant(*g_rank0, mine)) {
      state.SkipWithError("all_reduce failed");
      break;
    }
    mine.iterations = 0;  // done in the first pass
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * bytes);
}

// One repetition of a rotation (`rounds` rounds of every variant at `bytes`);
// records the variants' median op times in g_rotation_medians.
void BM_Rotation(benchmark::State& state, size_t bytes, int64_t rounds) {
  const Command c{kRotation, bytes, rounds};
  if (!Broadcast(c)) {
    state.SkipWithError("cannot reach the other ranks");
    return;
  }
  std::array<std::vector<double>, kNumVariants> times;
  for (auto _ : state) {
    if (!RunRotation(*g_rank0, bytes, rounds, &times)) {
      state.SkipWithError("all_reduce failed");
      return;
    }
  }
  std::array<double, kNumVariants> medians;
  for (int v = 0; v < kNumVariants; ++v) {
    medians[v] = MedianOf(times[v]);
    state.counters[kVariantNames[v]] = medians[v];
  }
  g_rotation_medians[bytes].push_back(medians);
}

// Keeps every repetition's real time per benchmark, for medians.
class MedianReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.run_type == Run::RT_Iteration && !r.error_occurred) {
        std::string name = r.run_name.function_name;
        times_[name].push_back(r.GetAdjustedRealTime());
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  double Median(const std::string& name) const {
    auto it = times_.find(name);
    if (it == times_.end() || it->second.empty()) return 0;
    std::vector<double> v = it->second;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }

 private:
  std::map<std::string, std::vector<double>> times_;
};

// The direct algorithm whose data messages teplug's Gloo implementation
// sends for an fp32 sum of `bytes` among `ranks` (RingAllreduceCache): the
// ring's up to 1 MiB for two to four ranks (for three or four an all-gather
// ring and a fold in rank order), halving-doubling's for more ranks up to
// 1 MiB, gloo::allreduce's above.
int SameMessages(size_t bytes, int ranks) {
  if (bytes > (size_t{1} << 20)) return kGlooAllreduce;
  if (ranks <= 4) return kGlooRing;
  return kGlooHalvingDoubling;
}

// Prints, per size, the median over repetitions of each variant's per-op
// median, and per repetition the ratios teplug / the fastest direct Gloo
// algorithm and teplug / the algorithm whose messages it sends (throughput: their time /
// teplug's), as "median [lowest .. highest]".
void PrintRotationTable(int ranks) {
  std::printf(
      "\nRotation (one op of every variant per round, in a shuffled order; %d processes): "
      "median over repetitions of each variant's median op time (us); ratios per repetition, "
      "median [range]\n",
      ranks);
  std::printf("%10s %9s %9s %9s %9s %9s %26s %26s\n", "bytes", "teplug", "allreduce", "ring",
              "halv_dbl", "shm", "teplug/fastest_gloo", "teplug/same_messages");
  for (const auto& [bytes, reps] : g_rotation_medians) {
    std::array<double, kNumVariants> medians;
    for (int v = 0; v < kNumVariants; ++v) {
      std::vector<double> per_rep;
      for (const auto& rep : reps) per_rep.push_back(rep[v]);
      medians[v] = MedianOf(per_rep);
    }
    std::vector<double> to_fastest, to_same;
    for (const auto& rep : reps) {
      if (rep[kTeplug] <= 0) continue;
      to_fastest.push_back(std::min({rep[kGlooAllreduce], rep[kGlooRing], rep[kGlooHalvingDoubling]}) /
                           rep[kTeplug]);
      to_same.push_back(rep[SameMessages(bytes, ranks)] / rep[kTeplug]);
    }
    auto cell = [](const std::vector<double>& v) {
      if (v.empty()) return std::string("-");
      char text[64];
      std::snprintf(text, sizeof text, "%.2f [%.2f .. %.2f]", MedianOf(v),
                    *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()));
      return std::string(text);
    };
    std::printf("%10zu %9.1f %9.1f %9.1f %9.1f %9.1f %26s %26s\n", bytes, medians[kTeplug],
                medians[kGlooAllreduce], medians[kGlooRing], medians[kGlooHalvingDoubling],
                medians[kSharedMemory], cell(to_fastest).c_str(), cell(to_same).c_str());
  }
}

std::string Name(int variant, size_t bytes) {
  return std::string(kVariantNames[variant]) + "/" + std::to_string(bytes);
}

int RunFollower(int command_pipe, Rank& rank) {
  Command c;
  while (read(command_pipe, &c, sizeof c) == static_cast<ssize_t>(sizeof c) && c.variant != kQuit) {
    const bool ok = c.variant == kRotation ? RunRotation(rank, c.bytes, c.iterations, nullptr)
                                           : RunVariant(rank, c);
    if (!ok) return 1;
  }
  return 0;
}

// --ranks=N from the command line (removed from argv), 2 without it.
int TakeRanks(int* argc, char** argv) {
  int ranks = 2;
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    if (std::strncmp(argv[i], "--ranks=", 8) == 0) {
      ranks = std::atoi(argv[i] + 8);
    } else {
      argv[out++] = argv[i];
    }
  }
  *argc = out;
  return ranks;
}

int Main(int argc, char** argv) {
  const int ranks = TakeRanks(&argc, argv);
  if (ranks < 2 || ranks > 16) {
    std::fprintf(stderr, "--ranks must be 2..16, not %d\n", ranks);
    return 2;
  }
  if (testing::KernelCollective() == nullptr) return 1;
  const std::string teplug_blob = testing::FreshFileBlob();
  const std::string gloo_dir = testing::FreshFileBlob().substr(sizeof("gloo-file:") - 1);
  const std::string gloo_unbound_dir = gloo_dir + "/unbound";
  mkdir(gloo_unbound_dir.c_str(), 0700);
  const std::string region = reference::collective::MakeUniqueRegionPath("/dev/shm");
  std::vector<pid_t> children;
  for (int r = 1; r < ranks; ++r) {
    int fds[2];
    if (pipe(fds) != 0) return 1;
    const pid_t child = fork();
    if (child == 0) {
      close(fds[1]);
      for (int fd : g_command_pipes) close(fd);
      Rank rank;
      rank.teplug = std::make_unique<testing::Comm>(r, ranks, teplug_blob, 120000);
      if (!rank.teplug->status().ok()) _exit(2);
      rank.gloo = DirectGlooContext(r, ranks, gloo_dir);
      rank.gloo_unbound = DirectGlooContext(r, ranks, gloo_unbound_dir);
      auto shared_memory = reference::collective::Communicator::Create(region, r, ranks);
      if (!shared_memory.ok()) _exit(4);
      rank.shared_memory = std::move(*shared_memory);
      const int code = RunFollower(fds[0], rank);
      // comm_destroy meets rank 0's (it waits for every rank after rings).
      const absl::Status destroyed = rank.teplug->Destroy();
      _exit(code != 0 ? code : destroyed.ok() ? 0 : 3);
    }
    close(fds[0]);
    g_command_pipes.push_back(fds[1]);
    children.push_back(child);
  }
  Rank rank;
  rank.teplug = std::make_unique<testing::Comm>(0, ranks, teplug_blob, 120000);
  if (!rank.teplug->status().ok()) {
    std::fprintf(stderr, "comm_create: %s\n", rank.teplug->status().ToString().c_str());
    return 1;
  }
  rank.gloo = DirectGlooContext(0, ranks, gloo_dir);
  rank.gloo_unbound = DirectGlooContext(0, ranks, gloo_unbound_dir);
  absl::StatusOr<std::unique_ptr<reference::collective::Communicator>> shared_memory =
      reference::collective::Communicator::Create(region, 0, ranks);
  if (!shared_memory.ok()) {
    std::fprintf(stderr, "shared-memory communicator: %s\n", shared_memory.status().ToString().c_str());
    return 1;
  }
  rank.shared_memory = std::move(*shared_memory);
  g_rank0 = &rank;

  std::vector<size_t> sizes;
  for (size_t b = 1024; b <= (64u << 20); b *= 4) sizes.push_back(b);
  for (size_t bytes : sizes) {
    // Enough iterations for a stable time, few for the large sizes; with
    // more ranks than cores every op waits on the scheduler, so fewer.
    const int64_t most = ranks > 2 ? 50 : 1000;
    const int64_t iterations = std::clamp<int64_t>((int64_t{256} << 20) / bytes, 8, most);
    for (int v = kTeplug; v <= kSharedMemory; ++v) {
      benchmark::RegisterBenchmark(Name(v, bytes).c_str(), &BM_AllReduce, v, bytes)
          ->Iterations(iterations)
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
    }
    // Rounds of one op per variant: about as many ops as the iterations above.
    const int64_t rounds = std::clamp<int64_t>((int64_t{256} << 20) / bytes, 8, ranks > 2 ? 200 : 1000);
    benchmark::RegisterBenchmark(("rotation/" + std::to_string(bytes)).c_str(), &BM_Rotation,
                                 bytes, rounds)
        ->Iterations(1)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  MedianReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const Command quit{kQuit, 0, 0};
  if (!Broadcast(quit)) return 1;
  const absl::Status destroyed = rank.teplug->Destroy();
  if (!destroyed.ok()) std::fprintf(stderr, "comm_destroy: %s\n", destroyed.ToString().c_str());
  bool children_ok = true;
  for (pid_t child : children) {
    int status = 0;
    waitpid(child, &status, 0);
    children_ok = children_ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }

  bool header_printed = false;
  for (size_t bytes : sizes) {
    const double t = reporter.Median(Name(kTeplug, bytes));
    const double a = reporter.Median(Name(kGlooAllreduce, bytes));
    const double r = reporter.Median(Name(kGlooRing, bytes));
    const double k = reporter.Median(Name(kGlooHalvingDoubling, bytes));
    const double m = reporter.Median(Name(kSharedMemory, bytes));
    if (std::max({t, a, r, k, m}) == 0) continue;  // filtered out
    if (!header_printed) {
      std::printf(
          "\nfp32 sum all-reduce, %d processes, loopback TCP: medians (us); ratio: teplug's "
          "throughput / the fastest direct Gloo algorithm's (target >= 0.95); vs_shm: teplug's "
          "throughput / the shared-memory transport's\n",
          ranks);
      std::printf("%10s %10s %15s %10s %22s %14s %7s %11s\n", "bytes", "teplug", "gloo_allreduce",
                  "gloo_ring", "gloo_halving_doubling", "shared_memory", "ratio", "vs_shm");
      header_printed = true;
    }
    const double best = std::min({a, r, k});
    std::printf("%10zu %10.1f %15.1f %10.1f %22.1f %14.1f %7.2f %11.2f\n", bytes, t, a, r, k, m,
                t > 0 ? best / t : 0.0, t > 0 ? m / t : 0.0);
  }
  if (!g_rotation_medians.empty()) PrintRotationTable(ranks);
  return children_ok ? 0 : 1;
}

}  // namespace
}  // namespace teplug::cpu::collective

int main(int argc, char** argv) { return teplug::cpu::collective::Main(argc, argv); }
