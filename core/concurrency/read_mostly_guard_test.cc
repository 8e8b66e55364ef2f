// A ReadMostly Guard may be moved (Read() returns one by value): the reader
// is counted once, by whichever Guard holds it last, so after both are gone
// an Update does not wait and destroys the old value.
#include <memory>

#include "core/concurrency/read_mostly.h"
#include "gtest/gtest.h"

namespace teplug::core {
namespace {

class ReadMostlyGuardTest : public ::testing::TestWithParam<ReaderFence> {};

TEST_P(ReadMostlyGuardTest, AMovedGuardCountsItsReaderOnce) {
  ReadMostly<int> rm(std::make_unique<int>(1), GetParam());
  for (int i = 0; i < 3; ++i) {
    auto first = rm.Read();
    auto second = std::move(first);
    auto third = std::move(second);
    EXPECT_EQ(*third, 1);
  }
  // No reader left: this returns at once and publishes the new value.
  const int* next = rm.Update([](const int& v) { return std::make_unique<int>(v + 1); });
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(*next, 2);
  EXPECT_EQ(*rm.Read(), 2);
}

INSTANTIATE_TEST_SUITE_P(BothFences, ReadMostlyGuardTest,
                         ::testing::Values(ReaderFence::kAsymmetric, ReaderFence::kSymmetric));

}  // namespace
}  // namespace teplug::core
