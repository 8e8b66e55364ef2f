// ICollective v1 through the ABI with 2-4 ranks as threads sharing one
// provider object (each rank its own communicator), and 2 ranks as processes.
// Expected results are computed here: fp32 sums accumulate in rank order in
// fp32 (the reference's documented order), so results compare bitwise.
#include <sys/wait.h>
#include <unistd.h>

#include <condition_variable>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/reference/collective/rendezvous.h"
#include "plugins/reference/provider/reference_entry.h"
#include "plugins/reference/provider/testing/abi_tensor.h"
#include "plugins/reference/provider/testing/direct_host.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::reference::provider {
namespace {

using testing::AbiTensor;

std::string FreshRegionPath() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return collective::MakeUniqueRegionPath(dir != nullptr ? dir : "/tmp");
}

// A thread-safe in-memory key-value store offered through TeplugKvStore.
class MemoryStore {
 public:
  MemoryStore() {
    kv_ = sdk::Versioned<TeplugKvStore>();
    kv_.ctx = this;
    kv_.put = &Put;
    kv_.get = &Get;
  }
  const TeplugKvStore* get() const { return &kv_; }

 private:
  static TeplugError* Put(void* ctx, const char* key, const void* value, size_t size) {
    auto* s = static_cast<MemoryStore*>(ctx);
    std::lock_guard<std::mutex> lock(s->mu_);
    s->map_[key] = std::string(static_cast<const char*>(value), size);
    s->cv_.notify_all();
    return nullptr;
  }
  static TeplugError* Get(void* ctx, const char* key, void* buffer, size_t capacity, size_t* size,
                          int64_t timeout_ms) {
    auto* s = static_cast<MemoryStore*>(ctx);
    std::unique_lock<std::mutex> lock(s->mu_);
    if (!s->cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                         [&] { return s->map_.count(key) > 0; })) {
      return teplug_error_create(TEPLUG_DEADLINE_EXCEEDED, "key never appeared");
    }
    const std::string& v = s->map_[key];
    if (v.size() > capacity) return teplug_error_create(TEPLUG_INVALID_ARGUMENT, "too small");
    std::memcpy(buffer, v.data(), v.size());
    *size = v.size();
    return nullptr;
  }
  TeplugKvStore kv_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::string> map_;
};

// Runs the entry once per test and finds ICollective v1.
class CollectiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(host_.Run(&teplug_reference_entry).ok());
    coll_ = testing::Find<TeplugCollectiveV1>(host_.recorded, sdk::kIidCollectiveV1);
    ASSERT_NE(coll_, nullptr);
  }
  // Creates one communicator per rank (in threads) from `rendezvous`, runs
  // body(rank, comm) on each rank's thread, destroys the communicators.
  void RunRanks(int world, const TeplugRendezvous& rendezvous,
                const std::function<void(int, TeplugCommunicator*)>& body) {
    std::vector<std::thread> threads;
    std::vector<std::string> errors(world);
    for (int r = 0; r < world; ++r) {
      threads.emplace_back([&, r] {
        TeplugCommCreateArgs a = sdk::Versioned<TeplugCommCreateArgs>();
        a.rank = r;
        a.world_size = world;
        a.rendezvous = &rendezvous;
        TeplugCommunicator* comm = nullptr;
        sdk::OwnedError e(coll_->vtbl->comm_create(coll_, &a, &comm));
        if (!e.ok()) {
          errors[r] = e.message();
          return;
        }
        body(r, comm);
        sdk::OwnedError d(coll_->vtbl->comm_destroy(coll_, comm));
        if (!d.ok()) errors[r] = d.message();
      });
    }
    for (auto& t : threads) t.join();
    for (int r = 0; r < world; ++r) EXPECT_EQ(errors[r], "") << "rank " << r;
  }
  sdk::OwnedError Op(int32_t op, TeplugCommunicator* comm, AbiTensor* send, AbiTensor* recv,
                     int32_t reduce = TEPLUG_REDUCE_SUM, int32_t root_or_peer = 0,
                     const int64_t* counts = nullptr) {
    TeplugCollectiveArgs a = sdk::Versioned<TeplugCollectiveArgs>();
    a.comm = comm;
    a.send = send ? send->get() : nullptr;
    a.recv = recv ? recv->get() : nullptr;
    a.reduce_op = reduce;
    a.root = root_or_peer;
    a.peer = root_or_peer;
    a.counts = counts;
    return sdk::OwnedError(coll_->vtbl->run(coll_, op, &a));
  }
  testing::DirectHost host_;
  TeplugCollectiveV1* coll_ = nullptr;
};

// The same, parameterised by the world size.
class CollectiveProviderTest : public CollectiveTest, public ::testing::WithParamInterface<int> {};

// Rank r's input for element i: distinct, non-zero, exact in fp32.
float Input(int r, int64_t i) { return static_cast<float>((r + 1) * 0.375 + (i % 7) * 1.25 + 0.0625 * i); }

TEST_P(CollectiveProviderTest, EveryOpWithThreadRanksAndBootstrapBlob) {
  const int world = GetParam();
  const std::string blob = collective::EncodeBootstrapBlob(FreshRegionPath());
  TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
  rv.bootstrap = blob.data();
  rv.bootstrap_size = blob.size();
  rv.timeout_ms = 20000;
  const int64_t n = 37;
  std::vector<std::vector<std::string>> failures(world);
  RunRanks(world, rv, [&](int r, TeplugCommunicator* comm) {
    auto fail = [&](const std::string& what) { failures[r].push_back(what); };
    // all_reduce sum, fp32: rank-order fp32 accumulation.
    AbiTensor in(TEPLUG_DTYPE_FP32, {n}), out(TEPLUG_DTYPE_FP32, {n});
    std::vector<double> mine(n);
    for (int64_t i = 0; i < n; ++i) mine[i] = Input(r, i);
    in.Fill(mine);
    if (auto e = Op(TEPLUG_OP_ALL_REDUCE, comm, &in, &out); !e.ok()) return fail(e.message());
    for (int64_t i = 0; i < n; ++i) {
      float acc = Input(0, i);
      for (int q = 1; q < world; ++q) acc += Input(q, i);
      if (out.Values()[i] != acc) return fail("all_reduce element " + std::to_string(i));
    }
    // all_gather: rank order.
    AbiTensor gathered(TEPLUG_DTYPE_FP32, {world * n});
    if (auto e = Op(TEPLUG_OP_ALL_GATHER, comm, &in, &gathered); !e.ok()) return fail(e.message());
    for (int q = 0; q < world; ++q)
      for (int64_t i = 0; i < n; ++i)
        if (gathered.Values()[q * n + i] != Input(q, i)) return fail("all_gather");
    // reduce_scatter with uneven counts (rank r gets r + 1 elements), max.
    std::vector<int64_t> counts(world);
    int64_t total = 0;
    for (int q = 0; q < world; ++q) total += (counts[q] = q + 1);
    AbiTensor rs_in(TEPLUG_DTYPE_FP32, {total}), rs_out(TEPLUG_DTYPE_FP32, {counts[r]});
    std::vector<double> rs_vals(total);
    for (int64_t i = 0; i < total; ++i) rs_vals[i] = Input(r, i) * (r % 2 ? -1 : 1);
    rs_in.Fill(rs_vals);
    if (auto e = Op(TEPLUG_OP_REDUCE_SCATTER, comm, &rs_in, &rs_out, TEPLUG_REDUCE_MAX, 0, counts.data());
        !e.ok()) {
      return fail(e.message());
    }
    const int64_t start = r * (r + 1) / 2;
    for (int64_t i = 0; i < counts[r]; ++i) {
      float mx = -1e30f;
      for (int q = 0; q < world; ++q) mx = std::max(mx, Input(q, start + i) * (q % 2 ? -1 : 1));
      if (rs_out.Values()[i] != mx) return fail("reduce_scatter element " + std::to_string(i));
    }
    // broadcast from the last rank, int32.
    AbiTensor b_in(TEPLUG_DTYPE_INT32, {5}), b_out(TEPLUG_DTYPE_INT32, {5});
    b_in.Fill({double(r + 10), 2, 3, 4, double(-r)});
    if (auto e = Op(TEPLUG_OP_BROADCAST, comm, &b_in, &b_out, 0, world - 1); !e.ok()) return fail(e.message());
    if (b_out.Values() != std::vector<double>{double(world - 1 + 10), 2, 3, 4, double(1 - world)}) {
      return fail("broadcast");
    }
    // ring send/recv inside a group (would deadlock if not issued together).
    AbiTensor s(TEPLUG_DTYPE_BF16, {n}), rcv(TEPLUG_DTYPE_BF16, {n});
    s.Fill(mine);
    if (auto e = sdk::OwnedError(coll_->vtbl->group_start(coll_, comm)); !e.ok()) return fail(e.message());
    if (auto e = Op(TEPLUG_OP_SEND, comm, &s, nullptr, 0, (r + 1) % world); !e.ok()) return fail(e.message());
    if (auto e = Op(TEPLUG_OP_RECV, comm, nullptr, &rcv, 0, (r + world - 1) % world); !e.ok()) {
      return fail(e.message());
    }
    if (auto e = sdk::OwnedError(coll_->vtbl->group_end(coll_, comm)); !e.ok()) return fail(e.message());
    AbiTensor expect(TEPLUG_DTYPE_BF16, {n});
    std::vector<double> prev(n);
    for (int64_t i = 0; i < n; ++i) prev[i] = Input((r + world - 1) % world, i);
    expect.Fill(prev);
    if (rcv.Bytes() != expect.Bytes()) return fail("send/recv ring");
    if (auto e = Op(TEPLUG_OP_BARRIER, comm, nullptr, nullptr); !e.ok()) return fail(e.message());
  });
  for (int r = 0; r < world; ++r) EXPECT_TRUE(failures[r].empty()) << "rank " << r << ": " << failures[r][0];
}

INSTANTIATE_TEST_SUITE_P(Worlds, CollectiveProviderTest, ::testing::Values(2, 3, 4));

using CollectiveRendezvousTest = CollectiveTest;

TEST_F(CollectiveRendezvousTest, KeyValueStoreRendezvous) {
  MemoryStore store;
  TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
  rv.kv = store.get();
  rv.kv_prefix = "job7/comm0";
  rv.timeout_ms = 20000;
  std::vector<double> results(3, 0);
  RunRanks(3, rv, [&](int r, TeplugCommunicator* comm) {
    AbiTensor x(TEPLUG_DTYPE_INT64, {1});
    x.Fill({double(r + 1)});
    if (Op(TEPLUG_OP_ALL_REDUCE, comm, &x, &x, TEPLUG_REDUCE_PROD).ok()) results[r] = x.Values()[0];
  });
  EXPECT_EQ(results, std::vector<double>(3, 6.0));
}

// Rank 1 is a forked child; it checks its own result and reports it through
// its exit status (no gtest assertion runs in the child).
TEST_F(CollectiveRendezvousTest, ProcessRanksWithBootstrapBlob) {
  const std::string blob = collective::EncodeBootstrapBlob(FreshRegionPath());
  TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
  rv.bootstrap = blob.data();
  rv.bootstrap_size = blob.size();
  rv.timeout_ms = 20000;
  auto rank_body = [&](int r) -> bool {
    TeplugCommCreateArgs a = sdk::Versioned<TeplugCommCreateArgs>();
    a.rank = r;
    a.world_size = 2;
    a.rendezvous = &rv;
    TeplugCommunicator* comm = nullptr;
    if (!sdk::OwnedError(coll_->vtbl->comm_create(coll_, &a, &comm)).ok()) return false;
    AbiTensor x(TEPLUG_DTYPE_FP16, {8});
    x.Fill({double(r), 1.5, 2, 3, 4, 5, 6, 7});
    const bool ok = Op(TEPLUG_OP_ALL_REDUCE, comm, &x, &x, TEPLUG_REDUCE_AVG).ok() &&
                    x.Values() == std::vector<double>{0.5, 1.5, 2, 3, 4, 5, 6, 7};
    return sdk::OwnedError(coll_->vtbl->comm_destroy(coll_, comm)).ok() && ok;
  };
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(rank_body(1) ? 0 : 1);
  const bool parent_ok = rank_body(0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(parent_ok);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
}

TEST_F(CollectiveRendezvousTest, ErrorsNameTheField) {
  TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
  TeplugCommCreateArgs a = sdk::Versioned<TeplugCommCreateArgs>();
  a.rank = 0;
  a.world_size = 1;
  a.rendezvous = &rv;
  TeplugCommunicator* comm = nullptr;
  sdk::OwnedError e(coll_->vtbl->comm_create(coll_, &a, &comm));
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("exactly one of bootstrap"), std::string::npos) << e.message();

  const std::string bad = "nccl-unique-id";
  rv.bootstrap = bad.data();
  rv.bootstrap_size = bad.size();
  e = sdk::OwnedError(coll_->vtbl->comm_create(coll_, &a, &comm));
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("TeplugCommCreateArgs.rendezvous.bootstrap"), std::string::npos) << e.message();

  TeplugDevice cuda = sdk::Versioned<TeplugDevice>();
  cuda.kind = TEPLUG_DEVICE_CUDA;
  a.device = &cuda;
  e = sdk::OwnedError(coll_->vtbl->comm_create(coll_, &a, &comm));
  EXPECT_EQ(e.code(), TEPLUG_UNSUPPORTED);
  EXPECT_NE(e.message().find("TeplugCommCreateArgs.device: kind cuda"), std::string::npos) << e.message();

  // A world of one: shape and type errors from run.
  a.device = nullptr;
  const std::string blob = collective::EncodeBootstrapBlob(FreshRegionPath());
  rv.bootstrap = blob.data();
  rv.bootstrap_size = blob.size();
  ASSERT_TRUE(sdk::OwnedError(coll_->vtbl->comm_create(coll_, &a, &comm)).ok());
  AbiTensor in(TEPLUG_DTYPE_FP32, {4}), out(TEPLUG_DTYPE_FP32, {3}), e4(TEPLUG_DTYPE_FP8_E4M3, {4});
  e = Op(TEPLUG_OP_ALL_REDUCE, comm, &in, &out);
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("TeplugCollectiveArgs.recv: 3 elements but send has 4"), std::string::npos)
      << e.message();
  e = Op(TEPLUG_OP_ALL_REDUCE, comm, &e4, &e4);
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("fp8_e4m3"), std::string::npos) << e.message();
  EXPECT_TRUE(sdk::OwnedError(coll_->vtbl->comm_destroy(coll_, comm)).ok());
  uint64_t junk[2] = {0, 0};  // readable memory that is not a communicator
  e = Op(TEPLUG_OP_BARRIER, reinterpret_cast<TeplugCommunicator*>(junk), nullptr, nullptr);
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("not a live communicator"), std::string::npos) << e.message();
}

}  // namespace
}  // namespace teplug::reference::provider
