// Kernels compiled once per context and source; a build failure names the
// device and carries the compiler's log.
#include "plugins/opencl/provider/program_cache.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/opencl/provider/device_table.h"
#include "plugins/opencl/provider/opencl_device.h"
#include "teplug/sdk/device_context.hpp"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::opencl::provider {
namespace {

using ::testing::HasSubstr;

class ProgramCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ClDevices().empty()) GTEST_SKIP() << "the OpenCL ICD loader reports no device";
    cl_int e = CL_SUCCESS;
    device_ = ClDevices()[0].id;
    context_ = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &e);
    ASSERT_EQ(e, CL_SUCCESS);
  }
  void TearDown() override {
    if (context_ != nullptr) clReleaseContext(context_);
  }
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
};

constexpr char kGood[] = "__kernel void twice(__global float* x) { x[get_global_id(0)] *= 2.0f; }";

TEST_F(ProgramCacheTest, BuildsOncePerContextAndSource) {
  ProgramCache cache;
  cl_program first = cache.Get(context_, device_, kGood, "");
  EXPECT_EQ(cache.Get(context_, device_, kGood, ""), first);
  EXPECT_EQ(cache.builds(), 1u);
  EXPECT_NE(cache.Get(context_, device_, kGood, "-DOTHER"), first) << "options are part of the key";
  EXPECT_EQ(cache.builds(), 2u);
  cache.Forget(context_);
  cache.Get(context_, device_, kGood, "");
  EXPECT_EQ(cache.builds(), 3u) << "a forgotten context builds again";
}

TEST_F(ProgramCacheTest, ABuildFailureNamesTheDeviceAndGivesTheLog) {
  ProgramCache cache;
  try {
    cache.Get(context_, device_,
              "__kernel void broken(__global float* x) { x[0] = undeclared_name; }", "");
    FAIL() << "a broken kernel built";
  } catch (const sdk::Exception& e) {
    const std::string m = e.what();
    EXPECT_THAT(m, HasSubstr("clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE"));
    EXPECT_THAT(m, HasSubstr(ClDevices()[0].name));
    EXPECT_THAT(m, HasSubstr("compiler log:"));
    EXPECT_THAT(m, HasSubstr("undeclared_name")) << "the log quotes the error";
  }
  EXPECT_EQ(cache.builds(), 0u);
}

}  // namespace
}  // namespace teplug::opencl::provider
