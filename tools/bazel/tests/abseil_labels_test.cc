// Proves the system Abseil behind @com_google_absl links and behaves: each upstream
// label teplug code uses is exercised once.
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"

namespace {

absl::StatusOr<int> ParsePositive(int value) {
  if (value <= 0) return absl::InvalidArgumentError(absl::StrCat("not positive: ", value));
  return value;
}

TEST(AbseilLabelsTest, StatusOrCarriesValueOrError) {
  ASSERT_TRUE(ParsePositive(3).ok());
  EXPECT_EQ(*ParsePositive(3), 3);
  const absl::StatusOr<int> bad = ParsePositive(-2);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "not positive: -2");
}

TEST(AbseilLabelsTest, StrFormatFormats) {
  EXPECT_EQ(absl::StrFormat("%s=%05.2f", "x", 3.14159), "x=03.14");
}

TEST(AbseilLabelsTest, FlatHashMapStoresAndFinds) {
  absl::flat_hash_map<std::string, int> map;
  for (int i = 0; i < 100; ++i) map[absl::StrCat("key", i)] = i * i;
  ASSERT_EQ(map.size(), 100u);
  EXPECT_EQ(map.at("key7"), 49);
  EXPECT_FALSE(map.contains("key100"));
}

class Counter {
 public:
  void Add(int n) {
    absl::MutexLock lock(&mutex_);
    total_ += n;
  }
  int total() {
    absl::MutexLock lock(&mutex_);
    return total_;
  }

 private:
  absl::Mutex mutex_;
  int total_ ABSL_GUARDED_BY(mutex_) = 0;
};

TEST(AbseilLabelsTest, MutexSerializesConcurrentUpdates) {
  Counter counter;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&counter] {
      for (int i = 0; i < 1000; ++i) counter.Add(1);
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(counter.total(), 4000);
}

// A producer/consumer hand-off through Await and CondVar: the value written under the
// mutex must be seen after the wait (also proves --config=tsan sees these waits).
TEST(AbseilLabelsTest, AwaitAndCondVarHandOffAValue) {
  absl::Mutex mutex;
  absl::CondVar ready;
  int value = 0;
  bool published = false;
  std::thread producer([&] {
    absl::MutexLock lock(&mutex);
    value = 42;
    published = true;
    ready.Signal();
  });
  {
    absl::MutexLock lock(&mutex);
    while (!published) ready.Wait(&mutex);
    EXPECT_EQ(value, 42);
  }
  producer.join();

  std::thread second([&] {
    absl::MutexLock lock(&mutex);
    value = 7;
  });
  mutex.LockWhen(absl::Condition(
      +[](int* v) { return *v == 7; }, &value));
  EXPECT_EQ(value, 7);
  mutex.Unlock();
  second.join();
}

}  // namespace
