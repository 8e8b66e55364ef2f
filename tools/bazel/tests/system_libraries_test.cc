// Proves @teplug_system's OpenBLAS, OpenCL (PoCL), OpenMPI and Gloo targets compile
// and link, and that each library answers a basic call.
#include <CL/cl.h>
#include <cblas.h>
#include <mpi.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gloo/rendezvous/hash_store.h"
#include "gtest/gtest.h"

namespace {

TEST(SystemLibrariesTest, OpenBlasDotMatchesALoopInDouble) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> x(257), y(257);
  double expected = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = dist(rng);
    y[i] = dist(rng);
    expected += x[i] * y[i];
  }
  EXPECT_NEAR(cblas_ddot(static_cast<int>(x.size()), x.data(), 1, y.data(), 1), expected, 1e-12);
}

TEST(SystemLibrariesTest, OpenClFindsAPlatform) {
  cl_uint platforms = 0;
  ASSERT_EQ(clGetPlatformIDs(0, nullptr, &platforms), CL_SUCCESS)
      << "no OpenCL platform; is pocl-opencl-icd installed?";
  EXPECT_GE(platforms, 1u);
}

TEST(SystemLibrariesTest, MpiReportsVersion3OrLater) {
  int version = 0;
  int subversion = 0;
  ASSERT_EQ(MPI_Get_version(&version, &subversion), MPI_SUCCESS);
  EXPECT_GE(version, 3);
  char library[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  ASSERT_EQ(MPI_Get_library_version(library, &length), MPI_SUCCESS);
  EXPECT_NE(std::string(library, length).find("Open MPI"), std::string::npos) << library;
}

TEST(SystemLibrariesTest, GlooHashStoreRoundTripsAValue) {
  gloo::rendezvous::HashStore store;
  const std::vector<char> value = {'t', 'e', 'p'};
  store.set("key", value);
  EXPECT_EQ(store.get("key"), value);
}

}  // namespace
