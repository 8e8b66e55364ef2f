// All-reduce through teplug (the kernel's dispatching ICollective, served by
// native/nccl) against ncclAllReduce called directly on a communicator of
// the benchmark's own, over the same GPUs: one rank per GPU, each rank a
// thread on its own stream and buffers, fp32 sum of 1 MiB, 32 MiB and
// 256 MiB.
//
// A rep is kCallsPerRep calls through teplug timed with CUDA events on every
// rank, then kCallsPerRep direct calls; a rep's time is its slowest rank's.
// After 5 interleaved reps the counters are the medians: teplug_GBps and
// direct_GBps (NCCL's bus bandwidth, bytes x 2(n-1)/n per second; the
// algorithm bandwidth, bytes per second, on one rank), ratio (teplug /
// direct, the target is >= 0.97) and ranks.
//
// Without a GPU it prints why (the driver's words) and exits 0, so CI builds
// and runs it as a check that it links.
#include <cuda_runtime.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/kernel/kernel.h"
#include "native/collective/nccl_library.h"
#include "native/gemm/testing/gpu_bench.h"
#include "native/gemm/testing/gpu_presence.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "tests/testing/memory_kv_store.h"

namespace teplug::native::collective {
namespace {

using native::testing::ExitUnless;

constexpr int kCallsPerRep = 10;
constexpr int kReps = 5;

// A reusable barrier for the rank threads.
class Barrier {
 public:
  explicit Barrier(int parties) : parties_(parties) {}
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    const int generation = generation_;
    if (++arrived_ == parties_) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [&] { return generation_ != generation; });
  }

 private:
  const int parties_;
  std::mutex mu_;
  std::condition_variable cv_;
  int arrived_ = 0;
  int generation_ = 0;
};

struct Bench {
  std::unique_ptr<core::Kernel> kernel;
  std::unique_ptr<NcclApi> nccl;
  int ranks = 0;
};
Bench* g_bench = nullptr;

void BM_TeplugVsDirectNcclAllReduce(benchmark::State& state, int64_t bytes) {
  Bench& b = *g_bench;
  const int world = b.ranks;
  const size_t count = static_cast<size_t>(bytes) / sizeof(float);
  auto coll = b.kernel->Query<TeplugCollectiveV1>(sdk::kIidCollectiveV1);
  ExitUnless(static_cast<bool>(coll), "the kernel serves no ICollective");
  teplug::testing::MemoryKvStore store;
  const TeplugKvStore kv = store.Api();
  ncclUniqueId id;
  ExitUnless(b.nccl->GetUniqueId(&id) == ncclSuccess, "ncclGetUniqueId");
  Barrier barrier(world);
  // seconds per call, [rep][rank]
  std::vector<std::vector<double>> teplug_s(kReps, std::vector<double>(world)),
      direct_s(kReps, std::vector<double>(world));
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r) {
    threads.emplace_back([&, r] {
      ExitUnless(cudaSetDevice(r) == cudaSuccess, "cudaSetDevice");
      cudaStream_t stream = nullptr;
      ExitUnless(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess,
                 "stream");
      void* send = nullptr;
      void* recv = nullptr;
      ExitUnless(cudaMalloc(&send, bytes) == cudaSuccess && cudaMalloc(&recv, bytes) == cudaSuccess,
                 "cudaMalloc");
      ExitUnless(cudaMemset(send, 0x3c, bytes) == cudaSuccess, "cudaMemset");  // 0.0115 each

      TeplugDevice device = sdk::Versioned<TeplugDevice>();
      device.kind = TEPLUG_DEVICE_CUDA;
      device.ordinal = r;
      TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
      rv.kv = &kv;
      rv.kv_prefix = "nccl_allreduce_benchmark";
      rv.timeout_ms = 120000;
      TeplugCommCreateArgs create = sdk::Versioned<TeplugCommCreateArgs>();
      create.rank = r;
      create.world_size = world;
      create.rendezvous = &rv;
      create.device = &device;
      TeplugCommunicator* comm = nullptr;
      ExitUnless(sdk::OwnedError(coll->vtbl->comm_create(coll.get(), &create, &comm)),
                 "comm_create through teplug");
      ncclComm_t direct_comm = nullptr;
      ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
      ExitUnless(b.nccl->CommInitRankConfig(&direct_comm, world, id, r, &config) == ncclSuccess,
                 "ncclCommInitRankConfig");

      TeplugTensor s = sdk::Versioned<TeplugTensor>();
      s.dtype = TEPLUG_DTYPE_FP32;
      s.rank = 1;
      s.shape[0] = static_cast<int64_t>(count);
      s.data = send;
      s.device = &device;
      TeplugTensor d = s;
      d.data = recv;
      TeplugCollectiveArgs args = sdk::Versioned<TeplugCollectiveArgs>();
      args.comm = comm;
      args.send = &s;
      args.recv = &d;
      args.reduce_op = TEPLUG_REDUCE_SUM;
      args.stream = stream;
      auto through_teplug = [&] {
        ExitUnless(sdk::OwnedError(coll->vtbl->run(coll.get(), TEPLUG_OP_ALL_REDUCE, &args)),
                   "all_reduce through teplug");
      };
      auto direct = [&] {
        ExitUnless(b.nccl->AllReduce(send, recv, count, ncclFloat32, ncclSum, direct_comm,
                                     stream) == ncclSuccess,
                   "ncclAllReduce");
      };
      through_teplug();  // warm-up: connections set up on both communicators
      direct();
      ExitUnless(cudaStreamSynchronize(stream) == cudaSuccess, "warm-up");
      for (int rep = 0; rep < kReps; ++rep) {
        barrier.Wait();
        teplug_s[rep][r] = native::testing::TimePerCall(stream, kCallsPerRep, through_teplug);
        barrier.Wait();
        direct_s[rep][r] = native::testing::TimePerCall(stream, kCallsPerRep, direct);
      }
      ExitUnless(sdk::OwnedError(coll->vtbl->comm_destroy(coll.get(), comm)), "comm_destroy");
      ExitUnless(b.nccl->CommDestroy(direct_comm) == ncclSuccess, "ncclCommDestroy");
      cudaFree(send);
      cudaFree(recv);
      cudaStreamDestroy(stream);
    });
  }
  for (std::thread& t : threads) t.join();

  // A rep takes as long as its slowest rank.
  std::vector<double> teplug_rep, direct_rep;
  for (int rep = 0; rep < kReps; ++rep) {
    double t = 0, d = 0;
    for (int r = 0; r < world; ++r) {
      t = std::max(t, teplug_s[rep][r]);
      d = std::max(d, direct_s[rep][r]);
    }
    teplug_rep.push_back(t);
    direct_rep.push_back(d);
  }
  int rep = 0;
  for (auto _ : state) state.SetIterationTime(teplug_rep[rep++ % kReps]);
  const double factor = world > 1 ? 2.0 * (world - 1) / world : 1.0;
  const double teplug_gbps = bytes * factor / native::testing::Median(teplug_rep) / 1e9;
  const double direct_gbps = bytes * factor / native::testing::Median(direct_rep) / 1e9;
  state.counters["teplug_GBps"] = teplug_gbps;
  state.counters["direct_GBps"] = direct_gbps;
  state.counters["ratio"] = teplug_gbps / direct_gbps;
  state.counters["ranks"] = world;
}

}  // namespace
}  // namespace teplug::native::collective

int main(int argc, char** argv) {
  using namespace teplug;                      // NOLINT(build/namespaces)
  using namespace teplug::native::collective;  // NOLINT(build/namespaces)
  benchmark::Initialize(&argc, argv);
  const std::string why = native::testing::WhyNoGpu();
  if (!why.empty()) {
    std::printf("SKIPPED: no CUDA device: %s\n", why.c_str());
    return 0;
  }
  Bench bench;
  ExitUnless(cudaGetDeviceCount(&bench.ranks) == cudaSuccess, "cudaGetDeviceCount");
  bench.kernel = native::testing::MakeBenchKernel();
  absl::StatusOr<std::unique_ptr<NcclApi>> nccl = LoadNccl(NcclCandidatePaths());
  ExitUnless(nccl.status(), "load NCCL");
  bench.nccl = *std::move(nccl);
  int version = 0;
  bench.nccl->GetVersion(&version);
  g_bench = &bench;
  std::printf("ranks: %d (one per GPU), NCCL %d\n", bench.ranks, version);

  const struct {
    const char* name;
    int64_t bytes;
  } cases[] = {
      {"all_reduce/fp32_sum/1MiB", int64_t{1} << 20},
      {"all_reduce/fp32_sum/32MiB", int64_t{32} << 20},
      {"all_reduce/fp32_sum/256MiB", int64_t{256} << 20},
  };
  for (const auto& c : cases) {
    benchmark::RegisterBenchmark(c.name, BM_TeplugVsDirectNcclAllReduce, c.bytes)
        ->UseManualTime()
        ->Iterations(kReps)
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
