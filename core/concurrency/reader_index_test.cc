// ReaderIndex must be unique among live threads (ReadMostly lets the owner
// of an index write its slot without locked instructions) and must recycle
// the indices of exited threads, so a process that keeps starting threads
// does not run out of slots.
#include "core/concurrency/reader_index.h"

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace teplug::core {
namespace {

TEST(ReaderIndexTest, StableWithinAThread) {
  const size_t first = ReaderIndex();
  EXPECT_EQ(ReaderIndex(), first);
  EXPECT_NE(first, kNoReaderIndex);
}

TEST(ReaderIndexTest, UniqueAmongLiveThreadsAndRecycledAfterExit) {
  const size_t main_index = ReaderIndex();
  constexpr int kThreads = 8;
  std::vector<size_t> indices(kThreads);
  std::atomic<int> arrived{0};
  std::atomic<bool> leave{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      indices[t] = ReaderIndex();
      ++arrived;
      while (!leave.load()) std::this_thread::yield();  // all alive at once
    });
  }
  while (arrived.load() < kThreads) std::this_thread::yield();
  leave = true;
  for (auto& t : threads) t.join();

  std::set<size_t> distinct(indices.begin(), indices.end());
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kThreads)) << "two live threads shared an index";
  EXPECT_EQ(distinct.count(main_index), 0u) << "a thread got the main thread's index";

  // Exited threads gave their indices back: 100 more threads, one at a time,
  // reuse them instead of growing the range.
  const size_t highest = std::max(main_index, *distinct.rbegin());
  for (int i = 0; i < 100; ++i) {
    size_t index = kNoReaderIndex;
    std::thread([&] { index = ReaderIndex(); }).join();
    ASSERT_LE(index, highest) << "thread " << i << " got a new index instead of a returned one";
  }
}

}  // namespace
}  // namespace teplug::core
