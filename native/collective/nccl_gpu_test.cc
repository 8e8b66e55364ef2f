// The NCCL collective through the kernel, as hosts reach it. Without a GPU,
// comm_create on cuda:0 selects native/nccl and fails UNAVAILABLE with the
// driver's words. With GPUs: every op on one rank, and with 2+ GPUs one rank
// per GPU (threads) for every op (uneven counts, groups, send/recv on a
// ring, broadcast from a non-zero root) against an exact oracle computed
// here: integer-valued fp32 inputs in [-64, 64], whose sums, maxima and
// gathers are exact in fp32. Tests needing a GPU skip with the driver's text.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/kernel/kernel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/memory_kv_store.h"
#include "native/gemm/testing/gpu_presence.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native::collective {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<core::Kernel> MakeKernel() {
  core::KernelOptions o;
  o.use_environment = false;
  o.config_text = "log_level: \"error\"\n";
  auto k = core::Kernel::Create(std::move(o));
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *std::move(k) : nullptr;
}

TeplugDevice Cuda(int ordinal) {
  TeplugDevice d = sdk::Versioned<TeplugDevice>();
  d.kind = TEPLUG_DEVICE_CUDA;
  d.ordinal = ordinal;
  return d;
}

int GpuCount() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

TEST(NcclThroughKernelTest, WithoutAGpuCommCreateSaysWhyInTheDriversWords) {
  if (native::testing::WhyNoGpu().empty()) GTEST_SKIP() << "a GPU is present: the refusal is not reached";
  auto kernel = MakeKernel();
  auto coll = kernel->Query<TeplugCollectiveV1>(sdk::kIidCollectiveV1);
  ASSERT_TRUE(coll);
  teplug::testing::MemoryKvStore store;
  const TeplugKvStore kv = store.Api();
  TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
  rv.kv = &kv;
  rv.timeout_ms = 1000;
  const TeplugDevice cuda0 = Cuda(0);
  TeplugCommCreateArgs create = sdk::Versioned<TeplugCommCreateArgs>();
  create.world_size = 1;
  create.rendezvous = &rv;
  create.device = &cuda0;
  TeplugCommunicator* comm = nullptr;
  sdk::OwnedError e(coll->vtbl->comm_create(coll.get(), &create, &comm));
  EXPECT_EQ(e.code(), TEPLUG_UNAVAILABLE) << e.message();
  EXPECT_THAT(e.message(), HasSubstr("native nccl: no CUDA device: cudaGetDeviceCount returned"));
  EXPECT_EQ(comm, nullptr);
}

// A device buffer of fp32 elements, freed on destruction.
class DeviceFloats {
 public:
  DeviceFloats(int ordinal, size_t count) : ordinal_(ordinal), count_(count) {
    cudaSetDevice(ordinal);
    EXPECT_EQ(cudaMalloc(&data_, std::max<size_t>(count, 1) * sizeof(float)), cudaSuccess);
  }
  ~DeviceFloats() {
    cudaSetDevice(ordinal_);
    cudaFree(data_);
  }
  void Write(const std::vector<float>& v) {
    cudaSetDevice(ordinal_);
    EXPECT_EQ(cudaMemcpy(data_, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice),
              cudaSuccess);
  }
  std::vector<float> Read() {
    cudaSetDevice(ordinal_);
    std::vector<float> v(count_);
    EXPECT_EQ(cudaMemcpy(v.data(), data_, count_ * sizeof(float), cudaMemcpyDeviceToHost),
              cudaSuccess);
    return v;
  }
  TeplugTensor Tensor(const TeplugDevice* device) {
    TeplugTensor t = sdk::Versioned<TeplugTensor>();
    t.data = data_;
    t.dtype = TEPLUG_DTYPE_FP32;
    t.rank = 1;
    t.shape[0] = static_cast<int64_t>(count_);
    t.device = device;
    return t;
  }

 private:
  int ordinal_;
  size_t count_;
  void* data_ = nullptr;
};

std::vector<float> RandomIntegers(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-64, 64);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(dist(rng));
  return v;
}

// Runs every op on `world` ranks (rank r on cuda:r), each rank a thread,
// and checks each against the oracle. Returns per-rank errors.
void RunEveryOp(int world) {
  auto kernel = MakeKernel();
  auto coll = kernel->Query<TeplugCollectiveV1>(sdk::kIidCollectiveV1);
  ASSERT_TRUE(coll);
  teplug::testing::MemoryKvStore store;
  const TeplugKvStore kv = store.Api();
  const size_t n = 1000;
  std::vector<int64_t> counts(world);
  for (int r = 0; r < world; ++r) counts[r] = 3 + 5 * r;  // uneven blocks
  int64_t total = 0;
  for (int64_t c : counts) total += c;
  std::vector<std::vector<float>> inputs(world);
  for (int r = 0; r < world; ++r) inputs[r] = RandomIntegers(std::max<size_t>(n, total), 100 + r);
  std::vector<std::string> errors(world);
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r) {
    threads.emplace_back([&, r] {
      const auto fail = [&](const std::string& what) { errors[r] += what + "\n"; };
      const TeplugDevice device = Cuda(r);
      TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
      rv.kv = &kv;
      rv.kv_prefix = "nccl_gpu_test";
      rv.timeout_ms = 60000;
      TeplugCommCreateArgs create = sdk::Versioned<TeplugCommCreateArgs>();
      create.rank = r;
      create.world_size = world;
      create.rendezvous = &rv;
      create.device = &device;
      TeplugCommunicator* comm = nullptr;
      sdk::OwnedError e(coll->vtbl->comm_create(coll.get(), &create, &comm));
      if (!e.ok()) return fail("comm_create: " + e.message());
      const auto run = [&](int32_t op, TeplugCollectiveArgs a, const char* name) {
        a.comm = comm;
        sdk::OwnedError err(coll->vtbl->run(coll.get(), op, &a));
        if (!err.ok()) fail(std::string(name) + ": " + err.message());
        return err.ok();
      };
      // all_reduce sum and max over n elements.
      for (int32_t reduce : {TEPLUG_REDUCE_SUM, TEPLUG_REDUCE_MAX}) {
        DeviceFloats send(r, n), recv(r, n);
        send.Write(std::vector<float>(inputs[r].begin(), inputs[r].begin() + n));
        TeplugTensor s = send.Tensor(&device), d = recv.Tensor(&device);
        TeplugCollectiveArgs a = sdk::Versioned<TeplugCollectiveArgs>();
        a.send = &s;
        a.recv = &d;
        a.reduce_op = reduce;
        if (!run(TEPLUG_OP_ALL_REDUCE, a, "all_reduce")) continue;
        const std::vector<float> got = recv.Read();
        for (size_t i = 0; i < n; ++i) {
          float want = inputs[0][i];
          for (int q = 1; q < world; ++q) {
            want = reduce == TEPLUG_REDUCE_SUM ? want + inputs[q][i] : std::max(want, inputs[q][i]);
          }
          if (got[i] != want) {
            fail("all_reduce " + std::to_string(reduce) + " element " + std::to_string(i));
            break;
          }
        }
      }
      // all_gather with uneven counts.
      {
        DeviceFloats send(r, counts[r]), recv(r, total);
        send.Write(std::vector<float>(inputs[r].begin(), inputs[r].begin() + counts[r]));
        TeplugTensor s = send.Tensor(&device), d = recv.Tensor(&device);
        TeplugCollectiveArgs a = sdk::Versioned<TeplugCollectiveArgs>();
        a.send = &s;
        a.recv = &d;
        a.counts = counts.data();
        if (run(TEPLUG_OP_ALL_GATHER, a, "all_gather")) {
          std::vector<float> want;
          for (int q = 0; q < world; ++q) {
            want.insert(want.end(), inputs[q].begin(), inputs[q].begin() + counts[q]);
          }
          if (recv.Read() != want) fail("all_gather (uneven) differs from the concatenation");
        }
      }
      // reduce_scatter (sum) with uneven counts.
      {
        DeviceFloats send(r, total), recv(r, counts[r]);
        send.Write(std::vector<float>(inputs[r].begin(), inputs[r].begin() + total));
        TeplugTensor s = send.Tensor(&device), d = recv.Tensor(&device);
        TeplugCollectiveArgs a = sdk::Versioned<TeplugCollectiveArgs>();
        a.send = &s;
        a.recv = &d;
        a.counts = counts.data();
        if (run(TEPLUG_OP_REDUCE_SCATTER, a, "reduce_scatter")) {
          int64_t offset = 0;
          for (int q = 0; q < r; ++q) offset += counts[q];
          std::vector<float> want(counts[r], 0.f);
          for (int64_t i = 0; i < counts[r]; ++i) {
            for (int q = 0; q < world; ++q) want[i] += inputs[q][offset + i];
          }
          if (recv.Read() != want) fail("reduce_scatter (uneven) differs from the block sums");
        }
      }
      // broadcast from the last rank.
      {
        const int root = world - 1;
        DeviceFloats send(r, n), recv(r, n);
        send.Write(std::vector<float>(inputs[r].begin(), inputs[r].begin() + n));
        TeplugTensor s = send.Tensor(&device), d = recv.Tensor(&device);
        TeplugCollectiveArgs a = sdk::Versioned<TeplugCollectiveArgs>();
        a.send = r == root ? &s : nullptr;
        a.recv = &d;
        a.root = root;
        if (run(TEPLUG_OP_BROADCAST, a, "broadcast") &&
            recv.Read() != std::vector<float>(inputs[root].begin(), inputs[root].begin() + n)) {
          fail("broadcast differs from the root's input");
        }
      }
      // send to the next rank, receive from the previous, in one group.
      if (world > 1) {
        DeviceFloats send(r, n), recv(r, n);
        send.Write(std::vector<float>(inputs[r].begin(), inputs[r].begin() + n));
        TeplugTensor s = send.Tensor(&device), d = recv.Tensor(&device);
        sdk::OwnedError g(coll->vtbl->group_start(coll.get(), comm));
        if (!g.ok()) fail("group_start: " + g.message());
        TeplugCollectiveArgs a = sdk::Versioned<TeplugCollectiveArgs>();
        a.send = &s;
        a.peer = (r + 1) % world;
        run(TEPLUG_OP_SEND, a, "send");
        TeplugCollectiveArgs b = sdk::Versioned<TeplugCollectiveArgs>();
        const int from = (r + world - 1) % world;
        b.recv = &d;
        b.peer = from;
        run(TEPLUG_OP_RECV, b, "recv");
        g = sdk::OwnedError(coll->vtbl->group_end(coll.get(), comm));
        if (!g.ok()) fail("group_end: " + g.message());
        if (recv.Read() != std::vector<float>(inputs[from].begin(), inputs[from].begin() + n)) {
          fail("recv differs from the previous rank's send");
        }
      }
      run(TEPLUG_OP_BARRIER, sdk::Versioned<TeplugCollectiveArgs>(), "barrier");
      e = sdk::OwnedError(coll->vtbl->comm_destroy(coll.get(), comm));
      if (!e.ok()) fail("comm_destroy: " + e.message());
    });
  }
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < world; ++r) EXPECT_EQ(errors[r], "") << "rank " << r;
}

TEST(NcclThroughKernelTest, EveryOpOnOneRank) {
  if (const std::string why = native::testing::WhyNoGpu(); !why.empty()) GTEST_SKIP() << "no CUDA device: " << why;
  RunEveryOp(1);
}

TEST(NcclThroughKernelTest, EveryOpOnOneRankPerGpu) {
  if (const std::string why = native::testing::WhyNoGpu(); !why.empty()) GTEST_SKIP() << "no CUDA device: " << why;
  const int gpus = GpuCount();
  if (gpus < 2) GTEST_SKIP() << "one GPU: needs 2+ for ranks on separate GPUs";
  RunEveryOp(gpus);
}

}  // namespace
}  // namespace teplug::native::collective
