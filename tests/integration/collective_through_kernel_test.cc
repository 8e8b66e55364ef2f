// Collectives through the kernel's dispatching object: the communicator binds
// the implementation chosen at comm_create (here the built-in reference), an
// all_reduce over 2 thread ranks matches a sum computed in the test, an op the
// bound implementation cannot serve is an UNSUPPORTED error naming why, and a
// handle the dispatcher did not create is refused instead of dereferenced.
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/kernel/kernel.h"
#include "gtest/gtest.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "tests/testing/memory_kv_store.h"

namespace teplug {
namespace {

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
      // fp8 is not reducible: refused before reaching the implementation.
      std::vector<float> bytes(8, 0.f);
      TeplugTensor fp8 = Vector(&bytes, TEPLUG_DTYPE_FP8_E4M3);
      args.send = &fp8;
      args.recv = &fp8;
      sdk::OwnedError refused(coll->vtbl->run(coll.get(), TEPLUG_OP_ALL_REDUCE, &args));
      if (refused.code() != TEPLUG_UNSUPPORTED ||
          refused.message().find("(bound to this communicator) cannot serve") == std::string::npos ||
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

}  // namespace
}  // namespace teplug
