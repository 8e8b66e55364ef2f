// Roll calls: the progress word round-trips, the error text names the
// missing ranks and says where each is, and ranks in threads answer each
// other over a real roll-call mesh (and a rank that left is reported, not
// waited for).
#include "plugins/cpu/collective/roll_call.h"

#include <stdlib.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gloo/rendezvous/context.h"
#include "gloo/rendezvous/file_store.h"
#include "gloo/transport/tcp/device.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "teplug/collective.h"

namespace teplug::cpu::collective {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(ProgressTest, PacksAndUnpacksEveryField) {
  const uint64_t collectives[] = {0, 1, 77, (uint64_t{1} << 48) - 1};
  const int32_t ops[] = {TEPLUG_OP_ALL_REDUCE, TEPLUG_OP_BARRIER, kCommDestroyWait};
  const Stage stages[] = {Stage::kNone, Stage::kIn, Stage::kDone, Stage::kFailed};
  for (uint64_t c : collectives) {
    for (int32_t op : ops) {
      for (Stage st : stages) {
        const Progress p = Progress::Unpack(Progress{c, op, st}.Pack());
        EXPECT_EQ(p.collective, c);
        EXPECT_EQ(p.op, op);
        EXPECT_EQ(p.stage, st);
      }
    }
  }
  // A stage this build does not know reads as failed, not as a live state.
  EXPECT_EQ(Progress::Unpack(0x1'0607).stage, Stage::kFailed);
}

TEST(DescribeRollCallTest, NamesMissingRanksAndWhereEachIs) {
  const Progress self{5, TEPLUG_OP_ALL_REDUCE, Stage::kFailed};
  std::vector<RollCallAnswer> answers(6);
  for (int i = 0; i < 6; ++i) answers[i].rank = i + 1;
  answers[0].progress = Progress{5, TEPLUG_OP_ALL_REDUCE, Stage::kIn};
  answers[1].progress = Progress{4, TEPLUG_OP_BROADCAST, Stage::kDone};
  answers[2].progress = Progress{};
  answers[3].progress = Progress{5, TEPLUG_OP_BARRIER, Stage::kIn};
  answers[4].silence = "did not answer a roll call within 1000 ms";
  answers[5].progress = Progress{6, TEPLUG_OP_ALL_GATHER, Stage::kIn};
  EXPECT_EQ(DescribeRollCall(self, answers),
            "; roll call at the communicator's collective 5: missing "
            "rank 2 (last at broadcast, the communicator's collective 4, done), "
            "rank 3 (has called no collective), "
            "rank 4 (at barrier, the communicator's collective 5, in it: the ranks called "
            "different ops), "
            "rank 5 (did not answer a roll call within 1000 ms); "
            "rank 1 is in it, rank 6 is past it (at all_gather, the communicator's collective 6, "
            "in it)");
}

TEST(DescribeRollCallTest, SaysWhenNoRankIsMissing) {
  const Progress self{2, kCommDestroyWait, Stage::kFailed};
  std::vector<RollCallAnswer> answers(2);
  answers[0].rank = 0;
  answers[0].progress = Progress{2, kCommDestroyWait, Stage::kDone};
  answers[1].rank = 2;
  answers[1].progress = Progress{2, kCommDestroyWait, Stage::kFailed};
  EXPECT_EQ(DescribeRollCall(self, answers),
            "; roll call at the communicator's collective 2: no rank is missing; rank 0 finished "
            "it, rank 2 failed in it");
  EXPECT_EQ(DescribeRollCall(self, {}), "");
  answers[1].from_its_roll_call = true;
  EXPECT_THAT(DescribeRollCall(self, answers),
              HasSubstr("rank 2 failed in it (as it said in its own roll call before leaving)"));
  answers[1].progress = Progress{1, TEPLUG_OP_BARRIER, Stage::kFailed};
  EXPECT_THAT(DescribeRollCall(self, answers),
              HasSubstr("missing rank 2 (last at barrier, the communicator's collective 1, failed, "
                        "as it said in its own roll call before leaving)"));
  EXPECT_STREQ(CollectiveOpName(kCommDestroyWait), "comm_destroy");
  EXPECT_STREQ(CollectiveOpName(TEPLUG_OP_REDUCE_SCATTER), "reduce_scatter");
}

// Holds threads until all have reached a numbered point.
class Meeting {
 public:
  explicit Meeting(int n) : n_(n) {}
  void Arrive(int point) {
    std::unique_lock<std::mutex> lock(mu_);
    if (++arrived_[point] == n_) cv_.notify_all();
    cv_.wait(lock, [&] { return arrived_[point] >= n_; });
  }

 private:
  const int n_;
  std::mutex mu_;
  std::condition_variable cv_;
  int arrived_[4] = {0, 0, 0, 0};
};

// World 4 in threads: ranks 1 and 2 answer with their progress; rank 2
// then fails, asks, and leaves, and rank 3 leaves without asking. A later
// roll call still places rank 2 (from its question) and reports rank 3 as
// gone or silent instead of waiting for it.
TEST(RollCallTest, RanksAnswerWithTheirProgressAndRanksThatLeftAreReported) {
  const char* tmp = getenv("TEST_TMPDIR");
  std::string dir = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/roll-call-XXXXXX");
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  gloo::transport::tcp::attr attr;
  attr.iface = "lo";
  std::shared_ptr<gloo::transport::Device> device = gloo::transport::tcp::CreateDevice(attr);
  constexpr int kWorld = 4;
  Meeting meeting(kWorld);
  std::vector<RollCallAnswer> first, second;
  std::vector<std::thread> ranks;
  for (int rank = 0; rank < kWorld; ++rank) {
    ranks.emplace_back([&, rank] {
      gloo::rendezvous::FileStore store(dir);
      auto mesh = std::make_shared<gloo::rendezvous::Context>(rank, kWorld);
      mesh->connectFullMesh(store, device);
      auto call = std::make_unique<RollCall>(mesh, std::chrono::milliseconds(10000));
      if (rank == 1) call->Record({2, TEPLUG_OP_ALL_REDUCE, Stage::kDone});
      if (rank == 2) call->Record({3, TEPLUG_OP_BARRIER, Stage::kIn});
      meeting.Arrive(0);
      if (rank == 0) first = call->Ask(std::chrono::milliseconds(5000));
      meeting.Arrive(1);
      if (rank == 2) {
        call->Record({3, TEPLUG_OP_BARRIER, Stage::kFailed});
        call->Ask(std::chrono::milliseconds(5000));
      }
      if (rank >= 2) call.reset();  // leaves: its mesh closes
      meeting.Arrive(2);
      if (rank == 0) second = call->Ask(std::chrono::milliseconds(1000));
      meeting.Arrive(3);  // rank 1 answers until rank 0 has asked
    });
  }
  for (auto& t : ranks) t.join();
  ASSERT_EQ(first.size(), 3u);
  EXPECT_EQ(first[0].rank, 1);
  ASSERT_TRUE(first[0].progress.has_value()) << first[0].silence;
  EXPECT_EQ(first[0].progress->collective, 2u);
  EXPECT_EQ(first[0].progress->op, TEPLUG_OP_ALL_REDUCE);
  EXPECT_EQ(first[0].progress->stage, Stage::kDone);
  EXPECT_FALSE(first[0].from_its_roll_call);
  EXPECT_EQ(first[1].rank, 2);
  ASSERT_TRUE(first[1].progress.has_value()) << first[1].silence;
  EXPECT_EQ(first[1].progress->collective, 3u);
  EXPECT_EQ(first[1].progress->op, TEPLUG_OP_BARRIER);
  EXPECT_EQ(first[1].progress->stage, Stage::kIn);
  ASSERT_TRUE(first[2].progress.has_value()) << first[2].silence;
  EXPECT_EQ(first[2].progress->stage, Stage::kNone);

  ASSERT_EQ(second.size(), 3u);
  ASSERT_TRUE(second[0].progress.has_value()) << second[0].silence;
  EXPECT_EQ(second[0].progress->collective, 2u);
  ASSERT_TRUE(second[1].progress.has_value()) << second[1].silence;
  EXPECT_TRUE(second[1].from_its_roll_call);
  EXPECT_EQ(second[1].progress->collective, 3u);
  EXPECT_EQ(second[1].progress->stage, Stage::kFailed);
  EXPECT_EQ(second[2].rank, 3);
  EXPECT_FALSE(second[2].progress.has_value());
  EXPECT_THAT(second[2].silence, ::testing::AnyOf(HasSubstr("connection failed"),
                                                  HasSubstr("did not answer a roll call within "
                                                            "1000 ms")));
}

}  // namespace
}  // namespace teplug::cpu::collective
