// ServedByRecorder: a thread learns which implementation served each op it
// called through a dispatching object, also after call-time fallback (which
// the decision record's first choice does not show), and for collective ops
// run on a communicator the dispatcher created.
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/kernel/kernel.h"
#include "core/kernel/kernel_test_support.h"
#include "gtest/gtest.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"

namespace teplug::core {
namespace {

using testing::FakePlugin;
using testing::GemmCall;
using testing::IsolatedOptions;
using testing::Runfile;

std::unique_ptr<Kernel> MakeKernel(std::vector<std::string> plugins) {
  auto k = Kernel::Create(IsolatedOptions(std::move(plugins)));
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *std::move(k) : nullptr;
}

sdk::OwnedError CallGemm(const Kernel& k, GemmCall& c) {
  auto gemm = k.Query<TeplugGemmV1>(sdk::kIidGemmV1);
  EXPECT_TRUE(gemm);
  return sdk::OwnedError(gemm->vtbl->gemm(gemm.get(), c.args()));
}

TEST(ServedByRecorderTest, NamesTheImplementationThatServedAfterFallback) {
  auto k = MakeKernel({FakePlugin("wide"), FakePlugin("fast")});
  ASSERT_TRUE(k);
  GemmCall c(13.f);  // fast (ranked first) answers UNAVAILABLE, wide serves
  auto record = k->Explain(sdk::kIidGemmV1, TEPLUG_OP_GEMM, c.args());
  ASSERT_TRUE(record.ok()) << record.status();
  ASSERT_TRUE(record->served());
  EXPECT_EQ(record->chosen()->implementation(), "fast/gemm");  // what the record credits

  ServedByRecorder served;
  for (int call = 0; call < 2; ++call) {  // the miss, then the cached decision
    served.Clear();
    auto err = CallGemm(*k, c);
    ASSERT_TRUE(err.ok()) << err.message();
    EXPECT_EQ(c.OutputMarker(), testing::kWide);
    EXPECT_EQ(served.last(), "wide/gemm") << "call " << call;
  }
  GemmCall first_choice(1.f);
  ASSERT_TRUE(CallGemm(*k, first_choice).ok());
  EXPECT_EQ(served.last(), "fast/gemm");
}

TEST(ServedByRecorderTest, AFailedCallRecordsNothing) {
  auto k = MakeKernel({FakePlugin("fast")});
  ASSERT_TRUE(k);
  ServedByRecorder served;
  GemmCall c(14.f);  // INVALID_ARGUMENT from fast: nobody served it
  EXPECT_FALSE(CallGemm(*k, c).ok());
  EXPECT_EQ(served.last(), "");
}

TEST(ServedByRecorderTest, RecordersNestAndAreThreadLocal) {
  auto k = MakeKernel({FakePlugin("wide"), FakePlugin("fast")});
  ASSERT_TRUE(k);
  ServedByRecorder outer;
  {
    ServedByRecorder inner;
    GemmCall c(13.f);
    ASSERT_TRUE(CallGemm(*k, c).ok());
    EXPECT_EQ(inner.last(), "wide/gemm");
    EXPECT_EQ(outer.last(), "") << "only the newest recorder records";
  }
  std::thread other([&] {
    GemmCall c(1.f);
    ASSERT_TRUE(CallGemm(*k, c).ok());
  });
  other.join();
  EXPECT_EQ(outer.last(), "") << "another thread's call is not this thread's";
  GemmCall c(1.f);
  ASSERT_TRUE(CallGemm(*k, c).ok());
  EXPECT_EQ(outer.last(), "fast/gemm") << "the outer recorder records again once the inner one ended";
}

// A key-value store for a one-rank rendezvous.
struct MapStore {
  std::map<std::string, std::string> values;
  static TeplugError* Put(void* ctx, const char* key, const void* value, size_t size) {
    static_cast<MapStore*>(ctx)->values[key].assign(static_cast<const char*>(value), size);
    return nullptr;
  }
  static TeplugError* Get(void* ctx, const char* key, void* buffer, size_t capacity, size_t* size, int64_t) {
    auto& values = static_cast<MapStore*>(ctx)->values;
    auto it = values.find(key);
    if (it == values.end()) return teplug_error_create(TEPLUG_DEADLINE_EXCEEDED, "no such key (test store)");
    *size = it->second.size();
    if (capacity < it->second.size()) return teplug_error_create(TEPLUG_INVALID_ARGUMENT, "buffer too small");
    std::memcpy(buffer, it->second.data(), it->second.size());
    return nullptr;
  }
};

TEST(ServedByRecorderTest, NamesTheImplementationACommunicatorIsBoundTo) {
  auto k = MakeKernel({Runfile("plugins/reference/libteplug_reference.so")});
  ASSERT_TRUE(k);
  auto coll = k->Query<TeplugCollectiveV1>(sdk::kIidCollectiveV1);
  ASSERT_TRUE(coll);
  MapStore store;
  TeplugKvStore kv = sdk::Versioned<TeplugKvStore>();
  kv.ctx = &store;
  kv.put = &MapStore::Put;
  kv.get = &MapStore::Get;
  TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
  rv.kv = &kv;
  rv.kv_prefix = "served_by_test";
  TeplugCommCreateArgs create = sdk::Versioned<TeplugCommCreateArgs>();
  create.rank = 0;
  create.world_size = 1;
  create.rendezvous = &rv;
  TeplugCommunicator* comm = nullptr;
  sdk::OwnedError created(coll->vtbl->comm_create(coll.get(), &create, &comm));
  ASSERT_TRUE(created.ok()) << created.message();

  std::vector<float> send(4, 1.f), recv(4, 0.f);
  TeplugTensor s = sdk::Versioned<TeplugTensor>(), r = sdk::Versioned<TeplugTensor>();
  for (auto [t, data] : {std::pair{&s, send.data()}, {&r, recv.data()}}) {
    t->data = data;
    t->dtype = TEPLUG_DTYPE_FP32;
    t->rank = 1;
    t->shape[0] = 4;
  }
  TeplugCollectiveArgs args = sdk::Versioned<TeplugCollectiveArgs>();
  args.comm = comm;
  args.send = &s;
  args.recv = &r;
  args.reduce_op = TEPLUG_REDUCE_SUM;
  ServedByRecorder served;
  sdk::OwnedError ran(coll->vtbl->run(coll.get(), TEPLUG_OP_ALL_REDUCE, &args));
  ASSERT_TRUE(ran.ok()) << ran.message();
  EXPECT_EQ(served.last(), "reference/collective");
  EXPECT_TRUE(sdk::OwnedError(coll->vtbl->comm_destroy(coll.get(), comm)).ok());
}

}  // namespace
}  // namespace teplug::core
