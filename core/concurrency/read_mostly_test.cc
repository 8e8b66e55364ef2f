// ReadMostly must never let a reader see a destroyed value, and Update must
// wait for readers of the old value. Checked with a value that poisons itself
// on destruction, many reader threads and repeated updates (run under tsan
// and asan too).
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

TEST(ReadMostlyTest, ReadersNeverSeeADestroyedValue) {
  ReadMostly<Value> rm(std::make_unique<Value>(0));
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

TEST(ReadMostlyTest, UpdateWaitsForAReaderHoldingTheOldValue) {
  ReadMostly<Value> rm(std::make_unique<Value>(1));
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

// More reader threads than shards: threads share shards, and every reader
// must still hold the old value alive.
TEST(ReadMostlyTest, MoreReadersThanShardsStaySafe) {
  ReadMostly<Value> rm(std::make_unique<Value>(0));
  std::atomic<bool> stop{false};
  std::atomic<int64_t> reads{0}, bad{0};
  std::vector<std::thread> readers;
  const int threads = static_cast<int>(ReadMostly<Value>::kShards) + 8;
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

TEST(ReadMostlyTest, UpdatesComposeUnderConcurrency) {
  ReadMostly<Value> rm(std::make_unique<Value>(0));
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
