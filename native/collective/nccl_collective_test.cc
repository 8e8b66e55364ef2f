// The NCCL ICollective against a fake NCCL (testing/fake_nccl.h) and a fake
// CUDA runtime: bootstrap through both rendezvous forms with ranks as
// threads, rank 0's ncclUniqueId reaching every rank, a missing rank named
// with its key, how uneven counts and every op are translated into NCCL
// calls, stream semantics, asynchronous errors and timeouts aborting the
// communicator with a mapped status, destroy freeing everything, and
// argument validation.
#include "native/collective/nccl_collective.h"

#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "native/collective/nccl_types.h"
#include "native/collective/testing/fake_nccl.h"
#include "native/device/testing/fake_cuda_runtime.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "tests/testing/memory_kv_store.h"

namespace teplug::native::collective {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::FakeNccl;
using testing::FakeStreamPoller;
using testing::NcclCall;

// What a call threw: its code and message (TEPLUG_OK when nothing).
struct Outcome {
  TeplugCode code = TEPLUG_OK;
  std::string message;
};

Outcome Try(const std::function<void()>& f) {
  try {
    f();
    return {};
  } catch (const sdk::Exception& e) {
    return {e.code(), e.what()};
  }
}

TeplugDevice Cuda(int ordinal) {
  TeplugDevice d = sdk::Versioned<TeplugDevice>();
  d.kind = TEPLUG_DEVICE_CUDA;
  d.ordinal = ordinal;
  return d;
}

// A 1-D tensor over `memory` (host bytes standing in for device memory: the
// fake NCCL moves no data).
TeplugTensor Tensor(void* memory, int64_t count, int32_t dtype, const TeplugDevice* device) {
  TeplugTensor t = sdk::Versioned<TeplugTensor>();
  t.data = memory;
  t.dtype = dtype;
  t.rank = 1;
  t.shape[0] = count;
  t.device = device;
  return t;
}

// One collective over fakes: 4 fake GPUs, a fake NCCL (counted loads).
class Fixture : public ::testing::Test {
 protected:
  Fixture() : runtime_(std::vector<CudaDeviceFacts>(4, CudaDeviceFacts{"fake", 9, 0, 1 << 30})) {
    auto owned = std::make_unique<FakeNccl>();
    nccl_ = owned.get();
    owned_nccl_ = std::move(owned);
    impl_ = NewNcclCollective(
        [this]() -> absl::StatusOr<std::unique_ptr<NcclApi>> {
          ++loads_;
          if (!library_error_.empty()) return absl::NotFoundError(library_error_);
          return std::unique_ptr<NcclApi>(std::move(owned_nccl_));
        },
        runtime_, poller_);
  }

  TeplugRendezvous KvRendezvous(int64_t timeout_ms, const char* prefix = "job7") {
    kv_api_ = kv_.Api();
    TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
    rv.kv = &kv_api_;
    rv.kv_prefix = prefix;
    rv.timeout_ms = timeout_ms;
    return rv;
  }

  // Creates `ranks` of `world` (each on cuda:<rank>) concurrently.
  std::vector<Outcome> CreateRanks(const TeplugRendezvous& rv, int world,
                                   const std::vector<int>& ranks) {
    std::vector<Outcome> out(ranks.size());
    comms_.assign(world, nullptr);
    std::vector<std::thread> threads;
    devices_.resize(world);
    for (size_t i = 0; i < ranks.size(); ++i) {
      threads.emplace_back([&, i] {
        const int rank = ranks[i];
        devices_[rank] = Cuda(rank);
        TeplugCommCreateArgs a = sdk::Versioned<TeplugCommCreateArgs>();
        a.rank = rank;
        a.world_size = world;
        a.rendezvous = &rv;
        a.device = &devices_[rank];
        out[i] = Try([&] { comms_[rank] = impl_->CreateCommunicator(a); });
      });
    }
    for (std::thread& t : threads) t.join();
    return out;
  }

  void CreateAll(int world, int64_t timeout_ms = 5000) {
    const TeplugRendezvous rv = KvRendezvous(timeout_ms);
    std::vector<int> ranks;
    for (int r = 0; r < world; ++r) ranks.push_back(r);
    for (const Outcome& o : CreateRanks(rv, world, ranks)) {
      ASSERT_EQ(o.code, TEPLUG_OK) << o.message;
    }
  }

  void DestroyAll() {
    for (TeplugCommunicator*& c : comms_) {
      if (c == nullptr) continue;
      const Outcome o = Try([&] { impl_->DestroyCommunicator(c); });
      EXPECT_EQ(o.code, TEPLUG_OK) << o.message;
      c = nullptr;
    }
  }

  TeplugCollectiveArgs Args(int rank, const TeplugTensor* send, TeplugTensor* recv,
                            void* stream = nullptr) {
    TeplugCollectiveArgs a = sdk::Versioned<TeplugCollectiveArgs>();
    a.comm = comms_[rank];
    a.send = send;
    a.recv = recv;
    a.stream = stream;
    return a;
  }

  // The calls of one rank, group markers included, from position `from`.
  std::vector<NcclCall> CallsSince(size_t from) {
    std::vector<NcclCall> all = nccl_->calls();
    return std::vector<NcclCall>(all.begin() + static_cast<long>(from), all.end());
  }

  teplug::native::testing::FakeCudaRuntime runtime_;
  FakeStreamPoller poller_;
  FakeNccl* nccl_ = nullptr;
  std::unique_ptr<FakeNccl> owned_nccl_;
  std::string library_error_;
  int loads_ = 0;
  std::unique_ptr<sdk::CollectiveImpl> impl_;
  teplug::testing::MemoryKvStore kv_;
  TeplugKvStore kv_api_{};
  std::vector<TeplugDevice> devices_;
  std::vector<TeplugCommunicator*> comms_;
};

// ------------------------------------------------------------------ bootstrap

TEST_F(Fixture, KeyValueRendezvousHandsRankZerosIdToEveryRank) {
  CreateAll(3);
  EXPECT_EQ(nccl_->unique_ids_made(), 1) << "only rank 0 makes the id";
  const std::vector<testing::NcclInit> inits = nccl_->inits();
  ASSERT_EQ(inits.size(), 3u);
  std::map<int, std::string> id_of;
  for (const testing::NcclInit& i : inits) {
    EXPECT_EQ(i.nranks, 3);
    EXPECT_EQ(i.blocking, 0) << "communicators are non-blocking so waits can time out";
    id_of[i.rank] = i.id;
  }
  ASSERT_EQ(id_of.size(), 3u);
  EXPECT_NE(id_of[0], std::string(NCCL_UNIQUE_ID_BYTES, '\0'));
  EXPECT_EQ(id_of[1], id_of[0]);
  EXPECT_EQ(id_of[2], id_of[0]);
  EXPECT_THAT(kv_.Keys(), ::testing::Contains("job7/nccl/unique-id"));
  DestroyAll();
}

TEST_F(Fixture, FileBlobRendezvousHandsRankZerosIdToEveryRank) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(tmp == nullptr ? "/tmp" : tmp) + "/nccl-blob-XXXXXX";
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  const std::string blob = "nccl-file:" + dir;
  TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
  rv.bootstrap = blob.data();
  rv.bootstrap_size = blob.size();
  rv.timeout_ms = 5000;
  for (const Outcome& o : CreateRanks(rv, 2, {0, 1})) ASSERT_EQ(o.code, TEPLUG_OK) << o.message;
  const std::vector<testing::NcclInit> inits = nccl_->inits();
  ASSERT_EQ(inits.size(), 2u);
  EXPECT_EQ(inits[0].id, inits[1].id);
  EXPECT_EQ(nccl_->unique_ids_made(), 1);
  EXPECT_EQ(access((dir + "/nccl-unique-id").c_str(), F_OK), 0);
  DestroyAll();
}

TEST_F(Fixture, MissingRankTimesOutNamingItAndItsKey) {
  const TeplugRendezvous rv = KvRendezvous(/*timeout_ms=*/150, "p");
  const std::vector<Outcome> out = CreateRanks(rv, 3, {0, 1});
  for (const Outcome& o : out) {
    EXPECT_EQ(o.code, TEPLUG_DEADLINE_EXCEEDED) << o.message;
    EXPECT_THAT(o.message, AllOf(HasSubstr("rank(s) 2 of 3"), HasSubstr("\"p/nccl/arrived-2\"")));
  }
  EXPECT_TRUE(nccl_->inits().empty()) << "NCCL is not entered while a rank is missing";
  EXPECT_EQ(runtime_.live_allocations(), 0u);
}

TEST_F(Fixture, MissingRankZeroIsNamedToo) {
  const TeplugRendezvous rv = KvRendezvous(/*timeout_ms=*/100, "q");
  const std::vector<Outcome> out = CreateRanks(rv, 2, {1});
  EXPECT_EQ(out[0].code, TEPLUG_DEADLINE_EXCEEDED);
  EXPECT_THAT(out[0].message, AllOf(HasSubstr("rank(s) 0 of 2"), HasSubstr("q/nccl/arrived-0")));
}

TEST_F(Fixture, FileBlobMissingRankNamesTheFile) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(tmp == nullptr ? "/tmp" : tmp) + "/nccl-miss-XXXXXX";
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  const std::string blob = "nccl-file:" + dir;
  TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
  rv.bootstrap = blob.data();
  rv.bootstrap_size = blob.size();
  rv.timeout_ms = 100;
  const std::vector<Outcome> out = CreateRanks(rv, 2, {0});
  EXPECT_EQ(out[0].code, TEPLUG_DEADLINE_EXCEEDED);
  EXPECT_THAT(out[0].message, HasSubstr(dir + "/nccl-arrived-1"));
}

TEST_F(Fixture, InitThatNeverCompletesIsAbortedAtTheDeadline) {
  nccl_->SetInitPolls(-1);
  const TeplugRendezvous rv = KvRendezvous(/*timeout_ms=*/100);
  const std::vector<Outcome> out = CreateRanks(rv, 1, {0});
  EXPECT_EQ(out[0].code, TEPLUG_DEADLINE_EXCEEDED);
  EXPECT_THAT(out[0].message, AllOf(HasSubstr("ncclCommInitRankConfig did not complete"),
                                    HasSubstr("aborted")));
  EXPECT_EQ(nccl_->aborted(), 1);
  EXPECT_EQ(nccl_->live(), 0);
  EXPECT_EQ(runtime_.live_allocations(), 0u) << "the barrier word is freed";
}

TEST_F(Fixture, InitErrorIsMappedWithNcclsWords) {
  nccl_->SetInitPolls(2);
  nccl_->Fail("CommInitRankConfig", ncclSystemError);
  const TeplugRendezvous rv = KvRendezvous(1000);
  const std::vector<Outcome> out = CreateRanks(rv, 1, {0});
  EXPECT_EQ(out[0].code, TEPLUG_UNAVAILABLE);
  EXPECT_THAT(out[0].message, HasSubstr("ncclCommInitRankConfig returned ncclSystemError "
                                        "(unhandled system error"));
  EXPECT_EQ(runtime_.live_allocations(), 0u);
}

// ------------------------------------------------------------ translation

TEST_F(Fixture, UnevenAllGatherIsOneGroupedBroadcastPerNonEmptyBlock) {
  CreateAll(3);
  const int64_t counts[3] = {2, 0, 3};
  std::vector<float> send(3), recv(5);
  const size_t from = nccl_->calls().size();
  // Rank 2 sends its 3 elements; blocks land at element offsets 0 and 2.
  TeplugTensor s = Tensor(send.data(), 3, TEPLUG_DTYPE_FP32, &devices_[2]);
  TeplugTensor r = Tensor(recv.data(), 5, TEPLUG_DTYPE_FP32, &devices_[2]);
  TeplugCollectiveArgs a = Args(2, &s, &r, reinterpret_cast<void*>(0x51));
  a.counts = counts;
  impl_->Run(TEPLUG_OP_ALL_GATHER, a);
  const std::vector<NcclCall> calls = CallsSince(from);
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[0].name, "GroupStart");
  EXPECT_EQ(calls[1].name, "Broadcast");
  EXPECT_EQ(calls[1].root_or_peer, 0);
  EXPECT_EQ(calls[1].recv, recv.data());
  EXPECT_EQ(calls[1].count, 2u);
  EXPECT_EQ(calls[2].name, "Broadcast");
  EXPECT_EQ(calls[2].root_or_peer, 2);
  EXPECT_EQ(calls[2].send, send.data()) << "the root's block comes from its send buffer";
  EXPECT_EQ(calls[2].recv, recv.data() + 2);
  EXPECT_EQ(calls[2].count, 3u);
  EXPECT_EQ(calls[2].dtype, ncclFloat32);
  EXPECT_EQ(calls[2].stream, reinterpret_cast<cudaStream_t>(0x51));
  EXPECT_EQ(calls[3].name, "GroupEnd");
  DestroyAll();
}

TEST_F(Fixture, EvenCountsAreOneNcclCollective) {
  CreateAll(2);
  const int64_t counts[2] = {4, 4};
  std::vector<int32_t> send(4), recv(8);
  const size_t from = nccl_->calls().size();
  TeplugTensor s = Tensor(send.data(), 4, TEPLUG_DTYPE_INT32, &devices_[1]);
  TeplugTensor r = Tensor(recv.data(), 8, TEPLUG_DTYPE_INT32, &devices_[1]);
  TeplugCollectiveArgs a = Args(1, &s, &r, reinterpret_cast<void*>(0x52));
  a.counts = counts;
  impl_->Run(TEPLUG_OP_ALL_GATHER, a);
  // reduce_scatter of recv [4] from send [8]: one ncclReduceScatter.
  TeplugTensor s2 = Tensor(recv.data(), 8, TEPLUG_DTYPE_INT32, &devices_[1]);
  TeplugTensor r2 = Tensor(send.data(), 4, TEPLUG_DTYPE_INT32, &devices_[1]);
  TeplugCollectiveArgs b = Args(1, &s2, &r2, reinterpret_cast<void*>(0x52));
  b.reduce_op = TEPLUG_REDUCE_MAX;
  impl_->Run(TEPLUG_OP_REDUCE_SCATTER, b);
  const std::vector<NcclCall> calls = CallsSince(from);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].name, "AllGather");
  EXPECT_EQ(calls[0].count, 4u);
  EXPECT_EQ(calls[0].dtype, ncclInt32);
  EXPECT_EQ(calls[1].name, "ReduceScatter");
  EXPECT_EQ(calls[1].count, 4u);
  EXPECT_EQ(calls[1].op, ncclMax);
  DestroyAll();
}

TEST_F(Fixture, UnevenReduceScatterIsOneGroupedReducePerBlock) {
  CreateAll(3);
  const int64_t counts[3] = {1, 4, 2};
  std::vector<uint16_t> send(7), recv(4);
  const size_t from = nccl_->calls().size();
  TeplugTensor s = Tensor(send.data(), 7, TEPLUG_DTYPE_BF16, &devices_[1]);
  TeplugTensor r = Tensor(recv.data(), 4, TEPLUG_DTYPE_BF16, &devices_[1]);
  TeplugCollectiveArgs a = Args(1, &s, &r, reinterpret_cast<void*>(0x53));
  a.counts = counts;
  a.reduce_op = TEPLUG_REDUCE_AVG;
  impl_->Run(TEPLUG_OP_REDUCE_SCATTER, a);
  const std::vector<NcclCall> calls = CallsSince(from);
  ASSERT_EQ(calls.size(), 5u);
  EXPECT_EQ(calls[0].name, "GroupStart");
  const size_t offsets[3] = {0, 1, 5};
  for (int root = 0; root < 3; ++root) {
    const NcclCall& c = calls[1 + root];
    EXPECT_EQ(c.name, "Reduce");
    EXPECT_EQ(c.root_or_peer, root);
    EXPECT_EQ(c.send, send.data() + offsets[root]);
    EXPECT_EQ(c.count, static_cast<size_t>(counts[root]));
    EXPECT_EQ(c.recv, root == 1 ? static_cast<void*>(recv.data()) : nullptr);
    EXPECT_EQ(c.op, ncclAvg);
    EXPECT_EQ(c.dtype, ncclBfloat16);
  }
  EXPECT_EQ(calls[4].name, "GroupEnd");
  DestroyAll();
}

TEST_F(Fixture, AllReduceBroadcastSendRecvBarrierTranslate) {
  CreateAll(2);
  std::vector<int64_t> x(6), y(6);
  TeplugTensor s = Tensor(x.data(), 6, TEPLUG_DTYPE_INT64, &devices_[0]);
  TeplugTensor r = Tensor(y.data(), 6, TEPLUG_DTYPE_INT64, &devices_[0]);
  void* stream = reinterpret_cast<void*>(0x54);
  const size_t from = nccl_->calls().size();
  TeplugCollectiveArgs ar = Args(0, &s, &r, stream);
  ar.reduce_op = TEPLUG_REDUCE_PROD;
  impl_->Run(TEPLUG_OP_ALL_REDUCE, ar);
  TeplugCollectiveArgs bc = Args(0, &s, &r, stream);
  bc.root = 0;
  impl_->Run(TEPLUG_OP_BROADCAST, bc);
  TeplugCollectiveArgs sd = Args(0, &s, nullptr, stream);
  sd.peer = 1;
  impl_->Run(TEPLUG_OP_SEND, sd);
  TeplugCollectiveArgs rv = Args(0, nullptr, &r, stream);
  rv.peer = 1;
  impl_->Run(TEPLUG_OP_RECV, rv);
  impl_->Run(TEPLUG_OP_BARRIER, Args(0, nullptr, nullptr));
  const std::vector<NcclCall> calls = CallsSince(from);
  ASSERT_EQ(calls.size(), 5u);
  EXPECT_EQ(calls[0].name, "AllReduce");
  EXPECT_EQ(calls[0].op, ncclProd);
  EXPECT_EQ(calls[0].dtype, ncclInt64);
  EXPECT_EQ(calls[0].count, 6u);
  EXPECT_EQ(calls[0].send, x.data());
  EXPECT_EQ(calls[0].recv, y.data());
  EXPECT_EQ(calls[1].name, "Broadcast");
  EXPECT_EQ(calls[1].send, x.data());
  EXPECT_EQ(calls[1].root_or_peer, 0);
  EXPECT_EQ(calls[2].name, "Send");
  EXPECT_EQ(calls[2].root_or_peer, 1);
  EXPECT_EQ(calls[3].name, "Recv");
  EXPECT_EQ(calls[3].recv, y.data());
  EXPECT_EQ(calls[4].name, "AllReduce") << "a barrier is an all-reduce of one word";
  EXPECT_EQ(calls[4].count, 1u);
  EXPECT_EQ(calls[4].stream, nullptr);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(calls[i].stream, static_cast<cudaStream_t>(stream));
  DestroyAll();
}

// ---------------------------------------------------------- stream semantics

TEST_F(Fixture, DefaultStreamWaitsForCompletionAGivenStreamDoesNot) {
  CreateAll(1);
  std::vector<float> x(4);
  TeplugTensor t = Tensor(x.data(), 4, TEPLUG_DTYPE_FP32, &devices_[0]);
  poller_.SetPollsUntilDone(3);
  impl_->Run(TEPLUG_OP_ALL_REDUCE, Args(0, &t, &t, reinterpret_cast<void*>(0x60)));
  EXPECT_EQ(poller_.queries(), 0) << "an op on a given stream returns once enqueued";
  impl_->Run(TEPLUG_OP_ALL_REDUCE, Args(0, &t, &t, nullptr));
  EXPECT_EQ(poller_.queries(), 4) << "the default stream is polled until done";
  DestroyAll();
}

TEST_F(Fixture, GroupIssuesAtGroupEndAndWaitsThenForTheDefaultStream) {
  CreateAll(2);
  std::vector<float> x(4), y(4);
  TeplugTensor s = Tensor(x.data(), 4, TEPLUG_DTYPE_FP32, &devices_[0]);
  TeplugTensor r = Tensor(y.data(), 4, TEPLUG_DTYPE_FP32, &devices_[0]);
  const size_t from = nccl_->calls().size();
  impl_->GroupStart(comms_[0]);
  TeplugCollectiveArgs sd = Args(0, &s, nullptr);
  sd.peer = 1;
  impl_->Run(TEPLUG_OP_SEND, sd);
  TeplugCollectiveArgs rv = Args(0, nullptr, &r);
  rv.peer = 1;
  impl_->Run(TEPLUG_OP_RECV, rv);
  EXPECT_EQ(poller_.queries(), 0) << "nothing waits inside a group";
  impl_->GroupEnd(comms_[0]);
  EXPECT_GE(poller_.queries(), 1);
  const std::vector<NcclCall> calls = CallsSince(from);
  std::vector<std::string> names;
  for (const NcclCall& c : calls) names.push_back(c.name);
  EXPECT_THAT(names, ElementsAre("GroupStart", "Send", "Recv", "GroupEnd"));
  DestroyAll();
}

TEST_F(Fixture, GroupsDoNotNestAndEndNeedsAStart) {
  CreateAll(1);
  Outcome o = Try([&] { impl_->GroupEnd(comms_[0]); });
  EXPECT_EQ(o.code, TEPLUG_FAILED_PRECONDITION);
  EXPECT_THAT(o.message, HasSubstr("no group was started"));
  impl_->GroupStart(comms_[0]);
  o = Try([&] { impl_->GroupStart(comms_[0]); });
  EXPECT_EQ(o.code, TEPLUG_FAILED_PRECONDITION);
  EXPECT_THAT(o.message, HasSubstr("groups do not nest"));
  impl_->GroupEnd(comms_[0]);
  DestroyAll();
}

// --------------------------------------------------------------- failures

// Two ranks; rank 0 starts a group and its send fails inside it.
class FailureInAGroup : public Fixture {
 protected:
  Outcome FailASend() {
    CreateAll(2);
    TeplugTensor s = Tensor(x_.data(), 4, TEPLUG_DTYPE_FP32, &devices_[0]);
    impl_->GroupStart(comms_[0]);
    nccl_->Fail("Send", ncclInvalidArgument);
    TeplugCollectiveArgs sd = Args(0, &s, nullptr);
    sd.peer = 1;
    return Try([&] { impl_->Run(TEPLUG_OP_SEND, sd); });
  }
  std::vector<float> x_ = std::vector<float>(4);
};

TEST_F(FailureInAGroup, GroupEndClosesNcclsGroupThenAborts) {
  const size_t at_send = nccl_->calls().size();
  const Outcome failed = FailASend();
  EXPECT_EQ(failed.code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(failed.message, HasSubstr("aborted when the group ends"));
  // An abort inside NCCL's open group would be queued into the group, to
  // release the communicator ahead of the group's own work: it waits.
  for (const NcclCall& c : CallsSince(at_send))
    EXPECT_NE(c.name, "CommAbort") << "inside the group";
  const size_t before = nccl_->calls().size();
  const Outcome o = Try([&] { impl_->GroupEnd(comms_[0]); });
  EXPECT_EQ(o.code, TEPLUG_FAILED_PRECONDITION);
  EXPECT_THAT(o.message, HasSubstr("ncclSend returned ncclInvalidArgument"));
  const std::vector<NcclCall> after = CallsSince(before);
  ASSERT_GE(after.size(), 2u);
  EXPECT_EQ(after[0].name, "GroupEnd") << "NCCL's per-thread group is closed";
  EXPECT_EQ(after[1].name, "CommAbort") << "then the communicator is aborted";
  DestroyAll();
}

TEST_F(FailureInAGroup, DestroyClosesTheOpenGroupThenAborts) {
  EXPECT_EQ(FailASend().code, TEPLUG_INVALID_ARGUMENT);
  const size_t before = nccl_->calls().size();
  DestroyAll();
  std::vector<std::string> names;
  for (const NcclCall& c : CallsSince(before)) names.push_back(c.name);
  ASSERT_GE(names.size(), 2u);
  EXPECT_EQ(names[0], "GroupEnd");
  EXPECT_EQ(names[1], "CommAbort");
  EXPECT_EQ(std::count(names.begin(), names.end(), "CommFinalize"), 1) << "only rank 1 finalizes";
}

TEST_F(Fixture, AsyncErrorAbortsAndMapsWithNcclsWords) {
  CreateAll(2);
  std::vector<float> x(4);
  TeplugTensor t = Tensor(x.data(), 4, TEPLUG_DTYPE_FP32, &devices_[0]);
  nccl_->InjectAsyncError(ncclRemoteError);
  nccl_->SetLastError("peer rank 1 exited");
  Outcome o = Try([&] { impl_->Run(TEPLUG_OP_ALL_REDUCE, Args(0, &t, &t, reinterpret_cast<void*>(0x70))); });
  EXPECT_EQ(o.code, TEPLUG_UNAVAILABLE);
  EXPECT_THAT(o.message, AllOf(HasSubstr("rank 0 of 2"), HasSubstr("ncclRemoteError"),
                               HasSubstr("remote process exited or there was a network error"),
                               HasSubstr("peer rank 1 exited"), HasSubstr("aborted")));
  EXPECT_EQ(nccl_->aborted(), 1);
  // Rank 0 is unusable afterwards, naming the first failure.
  o = Try([&] { impl_->Run(TEPLUG_OP_ALL_REDUCE, Args(0, &t, &t, reinterpret_cast<void*>(0x70))); });
  EXPECT_EQ(o.code, TEPLUG_FAILED_PRECONDITION);
  EXPECT_THAT(o.message, AllOf(HasSubstr("unusable after an earlier failure"),
                               HasSubstr("ncclRemoteError")));
  // Rank 1 meets the same error while finalizing: aborted, reported, freed.
  o = Try([&] { impl_->DestroyCommunicator(comms_[1]); });
  comms_[1] = nullptr;
  EXPECT_EQ(o.code, TEPLUG_UNAVAILABLE);
  EXPECT_THAT(o.message, AllOf(HasSubstr("comm_destroy (rank 1 of 2"),
                               HasSubstr("ncclRemoteError"), HasSubstr("everything was released")));
  EXPECT_EQ(nccl_->aborted(), 2);
  DestroyAll();
  EXPECT_EQ(nccl_->live(), 0);
  EXPECT_EQ(runtime_.live_allocations(), 0u);
}

TEST_F(Fixture, AsyncErrorWhileWaitingOnTheDefaultStreamAborts) {
  CreateAll(1);
  std::vector<float> x(4);
  TeplugTensor t = Tensor(x.data(), 4, TEPLUG_DTYPE_FP32, &devices_[0]);
  poller_.SetPollsUntilDone(-1);
  nccl_->InjectAsyncError(ncclUnhandledCudaError, /*polls=*/5);
  const Outcome o = Try([&] { impl_->Run(TEPLUG_OP_ALL_REDUCE, Args(0, &t, &t, nullptr)); });
  EXPECT_EQ(o.code, TEPLUG_INTERNAL);
  EXPECT_THAT(o.message, AllOf(HasSubstr("failed while running"),
                               HasSubstr("ncclUnhandledCudaError"), HasSubstr("aborted")));
  EXPECT_EQ(nccl_->aborted(), 1);
  DestroyAll();
}

TEST_F(Fixture, OpThatNeverCompletesTimesOutAndAborts) {
  CreateAll(1, /*timeout_ms=*/100);
  std::vector<float> x(4);
  TeplugTensor t = Tensor(x.data(), 4, TEPLUG_DTYPE_FP32, &devices_[0]);
  poller_.SetPollsUntilDone(-1);
  const Outcome o = Try([&] { impl_->Run(TEPLUG_OP_BARRIER, Args(0, nullptr, nullptr)); });
  EXPECT_EQ(o.code, TEPLUG_DEADLINE_EXCEEDED);
  EXPECT_THAT(o.message, AllOf(HasSubstr("barrier"), HasSubstr("after 100 ms"),
                               HasSubstr("aborted")));
  EXPECT_EQ(nccl_->aborted(), 1);
  DestroyAll();
  EXPECT_EQ(runtime_.live_allocations(), 0u);
}

TEST_F(Fixture, FailingCallIsMappedAndAborts) {
  CreateAll(1);
  std::vector<float> x(4);
  TeplugTensor t = Tensor(x.data(), 4, TEPLUG_DTYPE_FP32, &devices_[0]);
  nccl_->Fail("AllReduce", ncclInvalidUsage);
  const Outcome o = Try([&] { impl_->Run(TEPLUG_OP_ALL_REDUCE, Args(0, &t, &t, reinterpret_cast<void*>(1))); });
  EXPECT_EQ(o.code, TEPLUG_FAILED_PRECONDITION);
  EXPECT_THAT(o.message, HasSubstr("ncclAllReduce returned ncclInvalidUsage (invalid usage"));
  EXPECT_EQ(nccl_->aborted(), 1);
  DestroyAll();
}

TEST_F(Fixture, DestroyFinalizesAndFreesEverything) {
  CreateAll(3);
  EXPECT_EQ(nccl_->live(), 3);
  EXPECT_EQ(runtime_.live_allocations(), 3u);
  DestroyAll();
  EXPECT_EQ(nccl_->finalized(), 3);
  EXPECT_EQ(nccl_->destroyed(), 3);
  EXPECT_EQ(nccl_->aborted(), 0);
  EXPECT_EQ(nccl_->live(), 0);
  EXPECT_EQ(runtime_.live_allocations(), 0u);
}

TEST_F(Fixture, DestroyAbortsWhenFinalizeFailsAndStillFrees) {
  CreateAll(1);
  nccl_->Fail("CommFinalize", ncclRemoteError);
  const Outcome o = Try([&] { impl_->DestroyCommunicator(comms_[0]); });
  comms_[0] = nullptr;
  EXPECT_EQ(o.code, TEPLUG_UNAVAILABLE);
  EXPECT_THAT(o.message, AllOf(HasSubstr("ncclCommFinalize returned ncclRemoteError"),
                               HasSubstr("everything was released")));
  EXPECT_EQ(nccl_->aborted(), 1);
  EXPECT_EQ(nccl_->live(), 0);
  EXPECT_EQ(runtime_.live_allocations(), 0u);
}

// -------------------------------------------------------- argument checks

TEST_F(Fixture, CommCreateRefusesMalformedArgs) {
  TeplugRendezvous rv = KvRendezvous(100);
  TeplugDevice cuda0 = Cuda(0);
  TeplugCommCreateArgs a = sdk::Versioned<TeplugCommCreateArgs>();
  a.rank = 2;
  a.world_size = 2;
  a.rendezvous = &rv;
  a.device = &cuda0;
  Outcome o = Try([&] { impl_->CreateCommunicator(a); });
  EXPECT_EQ(o.code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(o.message, HasSubstr("rank 2 of world_size 2"));
  a.rank = 0;
  a.device = nullptr;
  o = Try([&] { impl_->CreateCommunicator(a); });
  EXPECT_EQ(o.code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(o.message, HasSubstr("TeplugCommCreateArgs.device: host (NULL)"));
  a.device = &cuda0;
  const std::string blob = "nccl-file:/x";
  rv.bootstrap = blob.data();
  rv.bootstrap_size = blob.size();
  o = Try([&] { impl_->CreateCommunicator(a); });
  EXPECT_EQ(o.code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(o.message, HasSubstr("exactly one of bootstrap"));
  rv.kv = nullptr;
  const std::string bad = "gloo-file:/x";
  rv.bootstrap = bad.data();
  rv.bootstrap_size = bad.size();
  o = Try([&] { impl_->CreateCommunicator(a); });
  EXPECT_EQ(o.code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(o.message, HasSubstr("an NCCL blob is \"nccl-file:<directory>\""));
  rv.bootstrap = blob.data();
  rv.bootstrap_size = blob.size();
  rv.timeout_ms = -1;
  o = Try([&] { impl_->CreateCommunicator(a); });
  EXPECT_EQ(o.code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(o.message, HasSubstr("timeout_ms -1 is negative"));
  rv.timeout_ms = 100;
  TeplugDevice cuda9 = Cuda(9);
  a.device = &cuda9;
  o = Try([&] { impl_->CreateCommunicator(a); });
  EXPECT_EQ(o.code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(o.message, HasSubstr("cuda:9, but the runtime reports 4 GPU(s)"));
}

TEST_F(Fixture, RunRefusesBadBuffersCountsAndRanks) {
  CreateAll(2);
  std::vector<float> x(8), y(8);
  TeplugTensor host = Tensor(x.data(), 4, TEPLUG_DTYPE_FP32, nullptr);
  TeplugTensor s = Tensor(x.data(), 4, TEPLUG_DTYPE_FP32, &devices_[0]);
  TeplugTensor r = Tensor(y.data(), 8, TEPLUG_DTYPE_FP32, &devices_[0]);
  TeplugTensor fp8 = Tensor(x.data(), 4, TEPLUG_DTYPE_FP8_E4M3, &devices_[0]);
  TeplugTensor other_gpu = Tensor(y.data(), 4, TEPLUG_DTYPE_FP32, &devices_[1]);
  struct Case {
    int32_t op;
    TeplugCollectiveArgs args;
    TeplugCode code;
    const char* says;
  };
  TeplugCollectiveArgs bad_reduce = Args(0, &s, &s, nullptr);
  bad_reduce.reduce_op = 9;
  TeplugCollectiveArgs bad_peer = Args(0, &s, nullptr, nullptr);
  bad_peer.peer = 2;
  TeplugCollectiveArgs bad_root = Args(0, &s, &s, nullptr);
  bad_root.root = -1;
  const int64_t negative[2] = {4, -1};
  TeplugCollectiveArgs bad_counts = Args(0, &s, &r, nullptr);
  bad_counts.counts = negative;
  const std::vector<Case> cases = {
      {TEPLUG_OP_ALL_REDUCE, Args(0, &host, &host), TEPLUG_UNSUPPORTED,
       "TeplugCollectiveArgs.send.device: host memory (NULL); NCCL reads and writes CUDA device memory only"},
      {TEPLUG_OP_ALL_REDUCE, Args(0, &fp8, &fp8), TEPLUG_UNSUPPORTED,
       "dtype fp8_e4m3 is not served (fp32, fp16, bf16, int8, int32, int64, uint8)"},
      {TEPLUG_OP_ALL_REDUCE, Args(0, &s, &r), TEPLUG_INVALID_ARGUMENT,
       "TeplugCollectiveArgs.recv: 8 elements but send has 4"},
      {TEPLUG_OP_ALL_REDUCE, bad_reduce, TEPLUG_INVALID_ARGUMENT, "reduce_op 9 is not a TeplugReduceOp"},
      {TEPLUG_OP_ALL_GATHER, Args(0, &s, &s), TEPLUG_INVALID_ARGUMENT,
       "4 elements but world_size * send elements is 8"},
      {TEPLUG_OP_ALL_GATHER, bad_counts, TEPLUG_INVALID_ARGUMENT, "counts[1] is -1"},
      {TEPLUG_OP_SEND, bad_peer, TEPLUG_INVALID_ARGUMENT, "peer 2 is not a rank of world_size 2"},
      {TEPLUG_OP_BROADCAST, bad_root, TEPLUG_INVALID_ARGUMENT, "root -1 is not a rank"},
      {TEPLUG_OP_ALL_REDUCE, Args(0, &other_gpu, &other_gpu), TEPLUG_INVALID_ARGUMENT,
       "send is on cuda:1, the communicator on cuda:0"},
      {99, Args(0, &s, &s), TEPLUG_INVALID_ARGUMENT, "op 99 is not a collective op"},
  };
  const size_t calls_before = nccl_->calls().size();
  for (const Case& c : cases) {
    const Outcome o = Try([&] { impl_->Run(c.op, c.args); });
    EXPECT_EQ(o.code, c.code) << c.says << " / " << o.message;
    EXPECT_THAT(o.message, HasSubstr(c.says));
  }
  EXPECT_EQ(nccl_->calls().size(), calls_before) << "refused before reaching NCCL";
  // A handle this implementation did not make is refused, not used.
  uint64_t foreign[4] = {1, 2, 3, 4};
  TeplugCollectiveArgs other = Args(0, &s, &s);
  other.comm = reinterpret_cast<TeplugCommunicator*>(foreign);
  const Outcome o = Try([&] { impl_->Run(TEPLUG_OP_ALL_REDUCE, other); });
  EXPECT_EQ(o.code, TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(o.message, HasSubstr("not a live NCCL communicator"));
  DestroyAll();
}

// --------------------------------------------------- supports without GPU

TEST_F(Fixture, SupportsGivesTheDriversReasonAndNeverLoadsNccl) {
  runtime_.Fail("GetDeviceCount", teplug::native::testing::kCudaErrorInsufficientDriver);
  std::vector<float> x(4);
  TeplugDevice cuda0 = Cuda(0);
  TeplugTensor t = Tensor(x.data(), 4, TEPLUG_DTYPE_FP32, &cuda0);
  TeplugCollectiveArgs a = sdk::Versioned<TeplugCollectiveArgs>();
  a.send = &t;
  a.recv = &t;
  std::string reason;
  EXPECT_FALSE(impl_->Supports(TEPLUG_OP_ALL_REDUCE, a, &reason));
  EXPECT_THAT(reason, HasSubstr("native nccl: no CUDA device: cudaGetDeviceCount returned "
                                "cudaErrorInsufficientDriver"));
  EXPECT_EQ(loads_, 0);
  TeplugRendezvous rv = KvRendezvous(100);
  TeplugCommCreateArgs c = sdk::Versioned<TeplugCommCreateArgs>();
  c.world_size = 1;
  c.rendezvous = &rv;
  c.device = &cuda0;
  const Outcome o = Try([&] { impl_->CreateCommunicator(c); });
  EXPECT_EQ(o.code, TEPLUG_UNAVAILABLE);
  EXPECT_THAT(o.message, HasSubstr("cudaErrorInsufficientDriver"));
}

TEST_F(Fixture, SupportsGivesTheLoadersReasonWithoutTheLibrary) {
  library_error_ = "NCCL not loadable: libnccl.so.2: cannot open shared object file";
  std::vector<float> x(4);
  TeplugDevice cuda0 = Cuda(0);
  TeplugTensor t = Tensor(x.data(), 4, TEPLUG_DTYPE_FP32, &cuda0);
  TeplugCollectiveArgs a = sdk::Versioned<TeplugCollectiveArgs>();
  a.send = &t;
  a.recv = &t;
  std::string reason;
  EXPECT_FALSE(impl_->Supports(TEPLUG_OP_ALL_REDUCE, a, &reason));
  EXPECT_THAT(reason, HasSubstr("libnccl.so.2: cannot open shared object file"));
  EXPECT_FALSE(impl_->Supports(TEPLUG_OP_ALL_REDUCE, a, &reason));
  EXPECT_EQ(loads_, 1) << "loaded once";
  library_error_.clear();
}

TEST_F(Fixture, SupportsAcceptsWhatRunServes) {
  std::vector<float> x(4);
  TeplugDevice cuda0 = Cuda(0);
  TeplugTensor t = Tensor(x.data(), 4, TEPLUG_DTYPE_FP32, &cuda0);
  TeplugCollectiveArgs a = sdk::Versioned<TeplugCollectiveArgs>();
  a.send = &t;
  a.recv = &t;
  std::string reason;
  EXPECT_TRUE(impl_->Supports(TEPLUG_OP_ALL_REDUCE, a, &reason)) << reason;
  a.reduce_op = 7;
  EXPECT_FALSE(impl_->Supports(TEPLUG_OP_ALL_REDUCE, a, &reason));
  EXPECT_THAT(reason, HasSubstr("reduce_op 7"));
}

}  // namespace
}  // namespace teplug::native::collective
