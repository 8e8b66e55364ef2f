// ReadMostly must never let a reader see a destroyed value, and Update must
// wait for readers of the old value. Checked with a value that poisons itself
// on destruction, many reader threads and repeated updates (run under tsan
// and asan too), for both ways of fencing readers: per-thread slots with the
// process-wide fence (where this machine has it) and the shared slot with
// full fences.
#include "core/concurrency/read_mostly.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace teplug::core {
namespace {

struct Value {
  explicit Value(int64_t g) : generation(g), alive(true) {}
  ~Value() { alive.store(false); }
  int64_t generation;
  std::atomic<bool> alive;
};

// Runs each test with both reader fences.
class ReadMostlyTest : public ::testing::TestWithParam<ReaderFence> {
 protected:
  void SetUp() override {
    if (GetParam() == ReaderFence::kAsymmetric && !ProcessFenceAvailable()) {
      GTEST_SKIP() << "membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) is not available here; "
                      "the kernel uses the symmetric fence, tested by the other instance";
    }
  }
  std::unique_ptr<ReadMostly<Value>> Make(int64_t generation) {
    return std::make_unique<ReadMostly<Value>>(std::make_unique<Value>(generation), GetParam());
  }
};

INSTANTIATE_TEST_SUITE_P(Fences, ReadMostlyTest,
                         ::testing::Values(ReaderFence::kAsymmetric, ReaderFence::kSymmetric),
                         [](const ::testing::TestParamInfo<ReaderFence>& info) {
                           return info.param == ReaderFence::kAsymmetric ? "Asymmetric" : "Symmetric";
                         });

TEST_P(ReadMostlyTest, ReadersNeverSeeADestroyedValue) {
  auto owner = Make(0);
  ReadMostly<Value>& rm = *owner;
  std::atomic<bool> stop{false};
  std::atomic<int64_t> reads{0}, bad{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 6; ++t) {
    readers.emplace_back([&] {
      int64_t last = -1;
      while (!stop.load()) {
        auto g = rm.Read();
        if (!g->alive.load()) ++bad;
        if (g->generation < last) ++bad;  // generations only move forward
        last = g->generation;
        std::this_thread::yield();
        if (!g->alive.load()) ++bad;  // still alive while we hold the guard
        ++reads;
      }
    });
  }
  // Let every reader get going, so updates really race with reads.
  while (reads.load() < 1000) std::this_thread::yield();
  const int64_t reads_before = reads.load();
  for (int i = 1; i <= 200; ++i) {
    rm.Update([i](const Value&) { return std::make_unique<Value>(i); });
    std::this_thread::yield();
  }
  while (reads.load() < reads_before + 1000) std::this_thread::yield();
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(reads.load(), 0);
  EXPECT_EQ(rm.Read()->generation, 200);
}

TEST_P(ReadMostlyTest, UpdateWaitsForAReaderHoldingTheOldValue) {
  auto owner = Make(1);
  ReadMostly<Value>& rm = *owner;
  std::atomic<bool> holding{false}, release{false}, updated{false};
  std::thread reader([&] {
    auto g = rm.Read();
    holding = true;
    while (!release.load()) std::this_thread::yield();
    EXPECT_TRUE(g->alive.load());
    EXPECT_EQ(g->generation, 1);
  });
  while (!holding.load()) std::this_thread::yield();
  std::thread writer([&] {
    rm.Update([](const Value& old) { return std::make_unique<Value>(old.generation + 1); });
    updated = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(updated.load()) << "Update returned while a reader held the old value";
  release = true;
  reader.join();
  writer.join();
  EXPECT_TRUE(updated.load());
  EXPECT_EQ(rm.Read()->generation, 2);
}

// More reader threads than slots: the later ones share a slot, and every
// reader must still hold the old value alive.
TEST_P(ReadMostlyTest, MoreReadersThanSlotsStaySafe) {
  auto owner = Make(0);
  ReadMostly<Value>& rm = *owner;
  std::atomic<bool> stop{false};
  std::atomic<int64_t> reads{0}, bad{0};
  std::vector<std::thread> readers;
  const int threads = static_cast<int>(ReadMostly<Value>::kSlots) + 8;
  for (int t = 0; t < threads; ++t) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        auto g = rm.Read();
        if (!g->alive.load()) ++bad;
        std::this_thread::yield();
        if (!g->alive.load()) ++bad;
        ++reads;
      }
    });
  }
  while (reads.load() < 5000) std::this_thread::yield();
  for (int i = 1; i <= 50; ++i) rm.Update([i](const Value&) { return std::make_unique<Value>(i); });
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(rm.Read()->generation, 50);
}

// A thread that holds a guard across an update and takes a second one (now
// in the other phase) keeps both values alive until it lets go of each.
TEST_P(ReadMostlyTest, NestedGuardsAcrossAnUpdate) {
  auto owner = Make(1);
  ReadMostly<Value>& rm = *owner;
  std::atomic<int> step{0};
  std::thread writer;
  {
    auto outer = rm.Read();
    writer = std::thread([&] {
      rm.Update([](const Value& old) { return std::make_unique<Value>(old.generation + 1); });
      step = 1;
      rm.Update([](const Value& old) { return std::make_unique<Value>(old.generation + 1); });
      step = 2;
    });
    // The first update publishes 2 but cannot finish while `outer` holds 1.
    while (rm.Read()->generation != 2) std::this_thread::yield();
    {
      auto inner = rm.Read();
      EXPECT_EQ(inner->generation, 2);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      EXPECT_EQ(step.load(), 0) << "an update finished while a reader held its old value";
      EXPECT_TRUE(outer->alive.load());
      EXPECT_TRUE(inner->alive.load());
    }
    EXPECT_TRUE(outer->alive.load());
    EXPECT_EQ(outer->generation, 1);
  }
  writer.join();
  EXPECT_EQ(step.load(), 2);
  EXPECT_EQ(rm.Read()->generation, 3);
}

// Reader threads that start, read and exit while updates run: exited threads
// hand their slots to new ones, which must start from a clean count.
TEST_P(ReadMostlyTest, ShortLivedReadersWhileUpdating) {
  auto owner = Make(0);
  ReadMostly<Value>& rm = *owner;
  std::atomic<bool> stop{false};
  std::atomic<int64_t> reads{0}, bad{0};
  std::vector<std::thread> spawners;
  for (int s = 0; s < 3; ++s) {
    spawners.emplace_back([&] {
      while (!stop.load()) {
        std::thread([&] {
          for (int i = 0; i < 20; ++i) {
            auto g = rm.Read();
            if (!g->alive.load()) ++bad;
            ++reads;
          }
        }).join();
      }
    });
  }
  for (int i = 1; i <= 100; ++i) {
    rm.Update([i](const Value&) { return std::make_unique<Value>(i); });
    std::this_thread::yield();
  }
  while (reads.load() < 2000) std::this_thread::yield();
  stop = true;
  for (auto& t : spawners) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(rm.Read()->generation, 100);
}

TEST_P(ReadMostlyTest, UpdatesComposeUnderConcurrency) {
  auto owner = Make(0);
  ReadMostly<Value>& rm = *owner;
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        rm.Update([](const Value& old) { return std::make_unique<Value>(old.generation + 1); });
      }
    });
  }
  for (auto& t : writers) t.join();
  EXPECT_EQ(rm.Read()->generation, 200) << "no update may be lost";
}

}  // namespace
}  // namespace teplug::core

namespace teplug::core {
namespace {

struct Counted {
  explicit Counted(int64_t g, std::atomic<int>* destroyed) : generation(g), destroyed(destroyed) {}
  ~Counted() { destroyed->fetch_add(1); }
  int64_t generation;
  std::atomic<int>* destroyed;
};

bool FailingFence(std::string* error) {
  *error = "membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) failed: Operation not permitted (test)";
  return false;
}

// A process-wide fence that fails at run time must neither stop the process
// nor free a value a reader may hold: the replaced values are kept until the
// object is destroyed, and the failure is reported once.
TEST(ReadMostlyFenceFailureTest, ReplacedValuesAreKeptAndTheFailureReportedOnce) {
  std::atomic<int> destroyed{0};
  std::vector<std::string> reports;
  {
    ReadMostly<Counted> rm(std::make_unique<Counted>(1, &destroyed), ReaderFence::kAsymmetric, &FailingFence,
                           [&](const std::string& e) { reports.push_back(e); });
    auto guard = rm.Read();  // a reader holding generation 1 across the updates
    for (int64_t g = 2; g <= 4; ++g) {
      rm.Update([&](const Counted&) { return std::make_unique<Counted>(g, &destroyed); });
    }
    EXPECT_EQ(guard->generation, 1);
    EXPECT_EQ(destroyed.load(), 0) << "a replaced value was destroyed although the fence failed";
    EXPECT_EQ(rm.Read()->generation, 4);
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_NE(reports[0].find("Operation not permitted (test)"), std::string::npos);
  }
  EXPECT_EQ(destroyed.load(), 4) << "every value is freed with the object";
}

// With a working fence the same updates free each replaced value.
TEST(ReadMostlyFenceFailureTest, AWorkingFenceFreesReplacedValues) {
  std::atomic<int> destroyed{0};
  ReadMostly<Counted> rm(std::make_unique<Counted>(1, &destroyed), ReaderFence::kSymmetric);
  for (int64_t g = 2; g <= 4; ++g) {
    rm.Update([&](const Counted&) { return std::make_unique<Counted>(g, &destroyed); });
  }
  EXPECT_EQ(destroyed.load(), 3);
}

}  // namespace
}  // namespace teplug::core
