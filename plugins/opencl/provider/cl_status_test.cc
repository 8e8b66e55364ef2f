// OpenCL errors as teplug errors: names, the teplug code of each family, and
// the message naming the call.
#include "plugins/opencl/provider/cl_status.h"

#include <string>

#include "gtest/gtest.h"
#include "teplug/sdk/error.hpp"

namespace teplug::opencl::provider {
namespace {

TEST(ClStatusTest, NamesErrorCodes) {
  EXPECT_STREQ(ClErrorName(CL_INVALID_BUFFER_SIZE), "CL_INVALID_BUFFER_SIZE");
  EXPECT_STREQ(ClErrorName(CL_BUILD_PROGRAM_FAILURE), "CL_BUILD_PROGRAM_FAILURE");
  EXPECT_STREQ(ClErrorName(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
  EXPECT_STREQ(ClErrorName(-9999), "unknown OpenCL error");
}

TEST(ClStatusTest, MapsFamiliesToTeplugCodes) {
  EXPECT_EQ(TeplugCodeForClError(CL_MEM_OBJECT_ALLOCATION_FAILURE), TEPLUG_OUT_OF_MEMORY);
  EXPECT_EQ(TeplugCodeForClError(CL_OUT_OF_HOST_MEMORY), TEPLUG_OUT_OF_MEMORY);
  EXPECT_EQ(TeplugCodeForClError(CL_COMPILER_NOT_AVAILABLE), TEPLUG_UNAVAILABLE);
  EXPECT_EQ(TeplugCodeForClError(CL_INVALID_KERNEL_ARGS), TEPLUG_INTERNAL);
}

TEST(ClStatusTest, CheckThrowsNamingCallErrorAndDetail) {
  EXPECT_NO_THROW(CheckCl(CL_SUCCESS, "clFinish"));
  try {
    CheckCl(CL_OUT_OF_RESOURCES, "clEnqueueNDRangeKernel", "bias kernel");
    FAIL() << "CheckCl did not throw";
  } catch (const sdk::Exception& e) {
    EXPECT_EQ(e.code(), TEPLUG_OUT_OF_MEMORY);
    EXPECT_EQ(std::string(e.what()),
              "clEnqueueNDRangeKernel failed: CL_OUT_OF_RESOURCES (-5): bias kernel");
  }
}

}  // namespace
}  // namespace teplug::opencl::provider
