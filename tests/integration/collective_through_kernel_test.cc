// Collectives through the kernel's dispatching object: the communicator binds
// the implementation chosen at comm_create (the built-in reference for ranks
// on one host, the cpu provider's Gloo for ranks on several, with the
// reference's refusal in the record), an all_reduce over thread ranks matches
// a sum computed in the test, an op the bound implementation cannot serve is
// an UNSUPPORTED error naming why, a rank that never arrives is named in
// comm_create's error, and a handle the dispatcher did not create is refused
// instead of dereferenced.
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "core/kernel/kernel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "tests/testing/memory_kv_store.h"

namespace teplug {
namespace {

using ::testing::HasSubstr;

TeplugTensor Vector(std::vector<float>* s, int32_t dtype = TEPLUG_DTYPE_FP32) {
  TeplugTensor t = sdk::Versioned<TeplugTensor>();
  t.data = s->data();
  t.dtype = dtype;
  t.rank = 1;
  t.shape[0] = static_cast<int64_t>(s->size());
  return t;
}

std::unique_ptr<core::Kernel> MakeKernel() {
  core::KernelOptions o;
  o.use_environment = false;
  o.config_text = "log_level: \"error\"\n";
  auto k = core::Kernel::Create(std::move(o));
  EXPECT_TRUE(k.ok()) << k.status();
  return *std::move(k);
}

TEST(CollectiveThroughKernelTest, AllReduceOverTwoThreadRanksAndRefusals) {
  auto kernel = MakeKernel();
  auto coll = kernel->Query<TeplugCollectiveV1>(sdk::kIidCollectiveV1);
  ASSERT_TRUE(coll);
  teplug::testing::MemoryKvStore store;
  const TeplugKvStore kv = store.Api();
  constexpr int kWorld = 2;
  std::vector<std::vector<float>> inputs(kWorld), outputs(kWorld);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (int r = 0; r < kWorld; ++r) {
    inputs[r].resize(37);
    for (float& x : inputs[r]) x = dist(rng);
    outputs[r].assign(37, 0.f);
  }
  std::vector<std::string> errors(kWorld);
  std::vector<std::thread> ranks;
  for (int r = 0; r < kWorld; ++r) {
    ranks.emplace_back([&, r] {
      TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
      rv.kv = &kv;
      rv.kv_prefix = "collective_through_kernel_test";
      rv.timeout_ms = 20000;
      TeplugCommCreateArgs create = sdk::Versioned<TeplugCommCreateArgs>();
      create.rank = r;
      create.world_size = kWorld;
      create.rendezvous = &rv;
      TeplugCommunicator* comm = nullptr;
      sdk::OwnedError e(coll->vtbl->comm_create(coll.get(), &create, &comm));
      if (!e.ok()) {
        errors[r] = "comm_create: " + e.message();
        return;
      }
      TeplugTensor send = Vector(&inputs[r]), recv = Vector(&outputs[r]);
      TeplugCollectiveArgs args = sdk::Versioned<TeplugCollectiveArgs>();
      args.comm = comm;
      args.send = &send;
      args.recv = &recv;
      args.reduce_op = TEPLUG_REDUCE_SUM;
      e = sdk::OwnedError(coll->vtbl->run(coll.get(), TEPLUG_OP_ALL_REDUCE, &args));
      if (!e.ok()) errors[r] = "all_reduce: " + e.message();
      // fp8 is not reducible: refused before reaching the implementation,
      // with the op's summary (built only for a refusal).
      std::vector<float> bytes(8, 0.f);
      TeplugTensor fp8 = Vector(&bytes, TEPLUG_DTYPE_FP8_E4M3);
      args.send = &fp8;
      args.recv = &fp8;
      sdk::OwnedError refused(coll->vtbl->run(coll.get(), TEPLUG_OP_ALL_REDUCE, &args));
      if (refused.code() != TEPLUG_UNSUPPORTED ||
          refused.message().find("(bound to this communicator) cannot serve collective all_reduce fp8_e4m3[") ==
              std::string::npos ||
          refused.message().find(" sum on cpu") == std::string::npos ||
          refused.message().find("send dtype fp8_e4m3 not in") == std::string::npos) {
        errors[r] += " fp8 all_reduce answered: " + refused.message();
      }
      e = sdk::OwnedError(coll->vtbl->comm_destroy(coll.get(), comm));
      if (!e.ok()) errors[r] += " comm_destroy: " + e.message();
    });
  }
  for (auto& t : ranks) t.join();
  for (int r = 0; r < kWorld; ++r) ASSERT_TRUE(errors[r].empty()) << "rank " << r << ": " << errors[r];
  for (int r = 0; r < kWorld; ++r) {
    for (size_t i = 0; i < 37; ++i) {
      EXPECT_EQ(outputs[r][i], inputs[0][i] + inputs[1][i]) << "rank " << r << " element " << i;
    }
  }
}

TEST(CollectiveThroughKernelTest, AHandleTheDispatcherDidNotCreateIsRefused) {
  auto kernel = MakeKernel();
  auto coll = kernel->Query<TeplugCollectiveV1>(sdk::kIidCollectiveV1);
  uint64_t not_a_communicator[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  auto* fake = reinterpret_cast<TeplugCommunicator*>(not_a_communicator);
  sdk::OwnedError e(coll->vtbl->group_start(coll.get(), fake));
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("not a communicator created by this dispatcher"), std::string::npos) << e.message();
  e = sdk::OwnedError(coll->vtbl->group_end(coll.get(), nullptr));
  EXPECT_EQ(e.message(), "group_end: communicator is NULL");
  TeplugCollectiveArgs args = sdk::Versioned<TeplugCollectiveArgs>();
  args.comm = fake;
  e = sdk::OwnedError(coll->vtbl->run(coll.get(), TEPLUG_OP_BARRIER, &args));
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
}

struct RankResult {
  std::string error;
  std::string served_by;
  std::vector<float> out;
};

// Every rank (a thread) creates a communicator with `num_hosts` (0: let the
// kernel count), all-reduces random floats and reports who served it.
std::vector<RankResult> AllReduce(core::Kernel& kernel, int world, int32_t num_hosts, const char* prefix,
                                  std::vector<std::vector<float>>* inputs) {
  auto coll = kernel.Query<TeplugCollectiveV1>(sdk::kIidCollectiveV1);
  teplug::testing::MemoryKvStore store;
  const TeplugKvStore kv = store.Api();
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  inputs->assign(world, std::vector<float>(29));
  for (auto& in : *inputs) {
    for (float& x : in) x = dist(rng);
  }
  std::vector<RankResult> results(world);
  std::vector<std::thread> ranks;
  for (int r = 0; r < world; ++r) {
    ranks.emplace_back([&, r] {
      RankResult& res = results[r];
      TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
      rv.kv = &kv;
      rv.kv_prefix = prefix;
      rv.timeout_ms = 20000;
      TeplugCommCreateArgs create = sdk::Versioned<TeplugCommCreateArgs>();
      create.rank = r;
      create.world_size = world;
      create.rendezvous = &rv;
      create.num_hosts = num_hosts;
      TeplugCommunicator* comm = nullptr;
      sdk::OwnedError e(coll->vtbl->comm_create(coll.get(), &create, &comm));
      if (!e.ok()) {
        res.error = "comm_create: " + e.message();
        return;
      }
      res.out.assign((*inputs)[r].size(), 0.f);
      TeplugTensor send = Vector(&(*inputs)[r]), recv = Vector(&res.out);
      TeplugCollectiveArgs args = sdk::Versioned<TeplugCollectiveArgs>();
      args.comm = comm;
      args.send = &send;
      args.recv = &recv;
      {
        core::ServedByRecorder served;
        e = sdk::OwnedError(coll->vtbl->run(coll.get(), TEPLUG_OP_ALL_REDUCE, &args));
        res.served_by = served.last();
      }
      if (!e.ok()) res.error = "all_reduce: " + e.message();
      e = sdk::OwnedError(coll->vtbl->comm_destroy(coll.get(), comm));
      if (!e.ok()) res.error += " comm_destroy: " + e.message();
    });
  }
  for (auto& t : ranks) t.join();
  return results;
}

void ExpectSums(const std::vector<RankResult>& results, const std::vector<std::vector<float>>& inputs) {
  for (size_t r = 0; r < results.size(); ++r) {
    ASSERT_EQ(results[r].out.size(), inputs[0].size()) << "rank " << r;
    for (size_t i = 0; i < inputs[0].size(); ++i) {
      double sum = 0;
      for (const auto& in : inputs) sum += in[i];
      EXPECT_NEAR(results[r].out[i], sum, 1e-5) << "rank " << r << " element " << i;
    }
  }
}

// Ranks the kernel counts on one host get the reference's shared memory;
// ranks on two hosts get Gloo, since the reference serves one host only.
TEST(CollectiveThroughKernelTest, TheHostCountChoosesBetweenSharedMemoryAndGloo) {
  auto kernel = MakeKernel();
  for (auto [world, num_hosts, provider] : {std::tuple{3, 0, "reference/"}, {2, 2, "cpu/"}}) {
    std::vector<std::vector<float>> inputs;
    const auto results = AllReduce(*kernel, world, num_hosts, num_hosts == 0 ? "counted" : "two_hosts", &inputs);
    for (int r = 0; r < world; ++r) {
      ASSERT_EQ(results[r].error, "") << "rank " << r;
      EXPECT_THAT(results[r].served_by, ::testing::StartsWith(provider)) << "rank " << r;
    }
    ExpectSums(results, inputs);
  }
}

TEST(CollectiveThroughKernelTest, TheRecordSaysWhySharedMemoryWasRefused) {
  auto kernel = MakeKernel();
  const int32_t comm_create = *core::Kernel::OpNumber(sdk::kIidCollectiveV1, "comm_create");
  TeplugCommCreateArgs create = sdk::Versioned<TeplugCommCreateArgs>();
  create.world_size = 4;
  for (int32_t hosts : {0, 1, 2}) {
    create.num_hosts = hosts;
    auto record = kernel->Explain(sdk::kIidCollectiveV1, comm_create, &create);
    ASSERT_TRUE(record.ok()) << record.status();
    const std::string text = record->Format();
    ASSERT_TRUE(record->served()) << text;
    if (hosts == 2) {
      EXPECT_THAT(record->chosen()->implementation(), ::testing::StartsWith("cpu/")) << text;
      EXPECT_THAT(text, HasSubstr("ranks on 2 hosts; serves ranks on one host only (features one_host)"));
      EXPECT_THAT(record->op_summary, HasSubstr("rank 0 of 4 (2 hosts) on cpu:0"));
    } else {
      EXPECT_THAT(record->chosen()->implementation(), ::testing::StartsWith("reference/")) << text;
      EXPECT_THAT(text, ::testing::Not(HasSubstr("one host only"))) << text;
      EXPECT_THAT(record->op_summary, HasSubstr(hosts == 0 ? "rank 0 of 4 on cpu:0" : "rank 0 of 4 (1 host) on cpu:0"));
    }
  }
  create.num_hosts = -1;
  auto bad = kernel->Explain(sdk::kIidCollectiveV1, comm_create, &create);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("TeplugCommCreateArgs.num_hosts -1 < 0"));
}

TEST(CollectiveThroughKernelTest, ARankThatNeverArrivesIsNamed) {
  auto kernel = MakeKernel();
  auto coll = kernel->Query<TeplugCollectiveV1>(sdk::kIidCollectiveV1);
  teplug::testing::MemoryKvStore store;
  const TeplugKvStore kv = store.Api();
  TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
  rv.kv = &kv;
  rv.kv_prefix = "lonely";
  rv.timeout_ms = 200;
  TeplugCommCreateArgs create = sdk::Versioned<TeplugCommCreateArgs>();
  create.rank = 1;
  create.world_size = 4;
  create.rendezvous = &rv;
  TeplugCommunicator* comm = nullptr;
  sdk::OwnedError e(coll->vtbl->comm_create(coll.get(), &create, &comm));
  EXPECT_EQ(e.code(), TEPLUG_DEADLINE_EXCEEDED) << e.message();
  EXPECT_THAT(e.message(), HasSubstr("comm_create rank 1 of 4: ranks 0, 2, 3 did not publish their hosts"));
  EXPECT_THAT(e.message(), HasSubstr("\"lonely/teplug/host/0\""));
  EXPECT_THAT(e.message(), HasSubstr("within 200 ms"));
  EXPECT_EQ(comm, nullptr);
}

}  // namespace
}  // namespace teplug
