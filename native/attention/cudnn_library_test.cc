// libcudnn opened at run time, without a GPU: the toolkit's library loads and
// reports a cuDNN 9 version; a missing one is named with dlopen's words.
#include "native/attention/cudnn_library.h"

#include <algorithm>
#include <string>

#include "gtest/gtest.h"

namespace teplug::native::attention {
namespace {

TEST(CudnnLibrary, TheToolkitsLibraryLoadsAndReportsItsVersion) {
  absl::StatusOr<CudnnLibrary> lib = LoadCudnn(CudnnCandidatePaths());
  ASSERT_TRUE(lib.ok()) << lib.status();
  EXPECT_NE(lib->handle, nullptr);
  EXPECT_GE(lib->version, 90000);
  EXPECT_LT(lib->version, 100000);
  EXPECT_NE(lib->path.find("libcudnn.so.9"), std::string::npos) << lib->path;
}

TEST(CudnnLibrary, AMissingLibraryIsNamedWithDlopensWords) {
  absl::StatusOr<CudnnLibrary> lib = LoadCudnn({"/nonexistent/libcudnn.so.9", "libcudnn-not-there.so.9"});
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.status().code(), absl::StatusCode::kNotFound);
  const std::string m(lib.status().message());
  EXPECT_NE(m.find("cuDNN not loadable: /nonexistent/libcudnn.so.9: cannot open shared object file"), std::string::npos) << m;
  EXPECT_NE(m.find("libcudnn-not-there.so.9"), std::string::npos) << m;
}

TEST(CudnnLibrary, CandidatesStartWithTheSonameAndIncludeTheToolkit) {
  const auto paths = CudnnCandidatePaths();
  ASSERT_FALSE(paths.empty());
  EXPECT_EQ(paths[0], "libcudnn.so.9");
  EXPECT_NE(std::find(paths.begin(), paths.end(), "/usr/local/cuda/lib64/libcudnn.so.9"), paths.end());
}

}  // namespace
}  // namespace teplug::native::attention
