// The parts of the NCCL collective that need no communicator: the capability
// descriptor derived from the dtype/reduction table, NCCL results as teplug
// codes, and loading libnccl (a path that does not exist is refused in
// dlopen's words; the installed library, when there is one, resolves every
// function and reports the version the headers name).
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "native/collective/nccl_library.h"
#include "native/collective/nccl_status.h"
#include "native/collective/nccl_types.h"

namespace teplug::native::collective {
namespace {

using ::testing::HasSubstr;

TEST(NcclCapsTest, DeclaresExactlyTheTable) {
  const TeplugCollectiveCaps* caps = NcclCollectiveCaps();
  uint64_t dtypes = 0;
  for (int32_t d = 0; d < TEPLUG_DTYPE_COUNT_; ++d) {
    if (FindNcclDtype(d).has_value()) dtypes |= TEPLUG_DTYPE_BIT(d);
  }
  EXPECT_EQ(caps->dtypes, dtypes);
  EXPECT_EQ(dtypes & TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3), 0u);
  EXPECT_NE(dtypes & TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16), 0u);
  uint32_t reductions = 0;
  for (int32_t r = 0; r < TEPLUG_REDUCE_COUNT_; ++r) {
    if (FindNcclReduction(r).has_value()) reductions |= TEPLUG_REDUCE_BIT(r);
  }
  EXPECT_EQ(caps->reductions, reductions);
  EXPECT_EQ(reductions, (1u << TEPLUG_REDUCE_COUNT_) - 1);
  for (int op = TEPLUG_OP_ALL_REDUCE; op <= TEPLUG_OP_BARRIER; ++op) {
    EXPECT_NE(caps->ops & TEPLUG_OP_BIT(op), 0u) << op;
  }
  ASSERT_EQ(caps->num_devices, 1u);
  EXPECT_EQ(caps->devices[0].kind, TEPLUG_DEVICE_CUDA);
  EXPECT_EQ(FindNcclDtype(TEPLUG_DTYPE_FP16)->nccl, ncclFloat16);
  EXPECT_EQ(FindNcclDtype(TEPLUG_DTYPE_INT64)->bytes, 8u);
  EXPECT_EQ(*FindNcclReduction(TEPLUG_REDUCE_MIN), ncclMin);
}

TEST(NcclStatusTest, MapsEveryResult) {
  EXPECT_EQ(NcclResultCode(ncclSuccess), TEPLUG_OK);
  EXPECT_EQ(NcclResultCode(ncclUnhandledCudaError), TEPLUG_INTERNAL);
  EXPECT_EQ(NcclResultCode(ncclSystemError), TEPLUG_UNAVAILABLE);
  EXPECT_EQ(NcclResultCode(ncclInternalError), TEPLUG_INTERNAL);
  EXPECT_EQ(NcclResultCode(ncclInvalidArgument), TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(NcclResultCode(ncclInvalidUsage), TEPLUG_FAILED_PRECONDITION);
  EXPECT_EQ(NcclResultCode(ncclRemoteError), TEPLUG_UNAVAILABLE);
  EXPECT_EQ(NcclResultName(ncclRemoteError), "ncclRemoteError");
  EXPECT_EQ(NcclResultName(static_cast<ncclResult_t>(42)), "ncclResult_t 42");
}

TEST(NcclLibraryTest, MissingLibraryIsRefusedInDlopensWords) {
  auto loaded = LoadNccl({"/nonexistent/libnccl.so.2"});
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(std::string(loaded.status().message()),
              HasSubstr("NCCL not loadable: /nonexistent/libnccl.so.2: cannot open shared object"));
}

TEST(NcclLibraryTest, CandidatesEndWithTheToolkitsCopy) {
  const std::vector<std::string> paths = NcclCandidatePaths();
  ASSERT_GE(paths.size(), 2u);
  EXPECT_EQ(paths.front(), "libnccl.so." + std::to_string(NCCL_MAJOR));
  EXPECT_EQ(paths.back(), "/usr/local/cuda/lib64/libnccl.so." + std::to_string(NCCL_MAJOR));
}

TEST(NcclLibraryTest, InstalledLibraryResolvesEveryFunction) {
  auto loaded = LoadNccl(NcclCandidatePaths());
  if (!loaded.ok()) GTEST_SKIP() << loaded.status().message();
  int version = 0;
  ASSERT_EQ((*loaded)->GetVersion(&version), ncclSuccess);
  EXPECT_EQ(version / 100, NCCL_VERSION_CODE / 100) << "the library the headers describe";
  EXPECT_THAT((*loaded)->GetErrorString(ncclRemoteError), HasSubstr("remote process"));
}

}  // namespace
}  // namespace teplug::native::collective
