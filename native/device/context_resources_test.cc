// ContextResources: the per-context registry of allocations and streams that
// lets the CUDA device refuse foreign, freed and out-of-range pointers.
#include "native/device/context_resources.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace teplug::native {
namespace {

void* At(uintptr_t a) { return reinterpret_cast<void*>(a); }

TEST(ContextResourcesTest, RangesMustLieInsideOneAllocation) {
  ContextResources r;
  r.AddAllocation(At(0x1000), At(0x1000), 0x100);
  r.AddAllocation(At(0x1100), At(0x1100), 0x100);  // adjacent: a range may not span both
  EXPECT_TRUE(r.IsInside(At(0x1000), 0x100));
  EXPECT_TRUE(r.IsInside(At(0x10ff), 1));
  EXPECT_TRUE(r.IsInside(At(0x1180), 0x80));
  EXPECT_FALSE(r.IsInside(At(0x1080), 0x100));
  EXPECT_FALSE(r.IsInside(At(0x0fff), 1));
  EXPECT_FALSE(r.IsInside(At(0x1200), 1));
  EXPECT_FALSE(r.IsInside(At(0x1000), 0));
  EXPECT_FALSE(r.IsInside(At(0x1010), SIZE_MAX));  // no overflow of p + bytes
}

TEST(ContextResourcesTest, TakeAllocationReturnsTheBaseOnlyForAnAllocationsStart) {
  ContextResources r;
  r.AddAllocation(At(0x2000), At(0x1f00), 64);
  EXPECT_EQ(r.TakeAllocation(At(0x2008)), nullptr);
  EXPECT_EQ(r.TakeAllocation(At(0x1f00)), nullptr);
  EXPECT_EQ(r.TakeAllocation(At(0x2000)), At(0x1f00));
  EXPECT_EQ(r.TakeAllocation(At(0x2000)), nullptr);  // freed
  EXPECT_FALSE(r.IsInside(At(0x2000), 1));
}

TEST(ContextResourcesTest, StreamsAreKnownUntilTaken) {
  ContextResources r;
  r.AddStream(At(0x10));
  EXPECT_TRUE(r.HasStream(At(0x10)));
  EXPECT_FALSE(r.HasStream(At(0x20)));
  EXPECT_FALSE(r.TakeStream(At(0x20)));
  EXPECT_TRUE(r.TakeStream(At(0x10)));
  EXPECT_FALSE(r.HasStream(At(0x10)));
}

TEST(ContextResourcesTest, TakeAllEmptiesTheContext) {
  ContextResources r;
  r.AddAllocation(At(0x3000), At(0x2f00), 8);
  r.AddAllocation(At(0x4000), At(0x4000), 8);
  r.AddStream(At(0x10));
  EXPECT_EQ(r.TakeAllBases(), (std::vector<void*>{At(0x2f00), At(0x4000)}));
  EXPECT_EQ(r.TakeAllStreams(), (std::vector<void*>{At(0x10)}));
  EXPECT_EQ(r.allocation_count(), 0u);
  EXPECT_EQ(r.stream_count(), 0u);
}

}  // namespace
}  // namespace teplug::native
