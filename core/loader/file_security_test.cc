// CheckPluginFileSecurity on real files: safe modes pass; group- or
// other-writable files and directories, foreign owners and non-regular files
// are refused with messages naming path, octal mode and owner.
#include "core/loader/file_security.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace teplug::core {
namespace {

using ::testing::HasSubstr;

class FileSecurityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    char buffer[PATH_MAX];
    ASSERT_NE(::realpath(tmp != nullptr ? tmp : "/tmp", buffer), nullptr);
    dir_ = std::string(buffer) + "/" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    ::mkdir(dir_.c_str(), 0755);
    ASSERT_EQ(::chmod(dir_.c_str(), 0755), 0);
    file_ = dir_ + "/libteplug_x.so";
    std::ofstream(file_) << "x";
    ASSERT_EQ(::chmod(file_.c_str(), 0755), 0);
  }
  std::string Message() { return std::string(CheckPluginFileSecurity(file_).message()); }

  std::string dir_;
  std::string file_;
};

TEST_F(FileSecurityTest, OwnedAndNotWritableByOthersPasses) {
  EXPECT_TRUE(CheckPluginFileSecurity(file_).ok()) << CheckPluginFileSecurity(file_);
  ASSERT_EQ(::chmod(file_.c_str(), 0600), 0);
  EXPECT_TRUE(CheckPluginFileSecurity(file_).ok());
}

TEST_F(FileSecurityTest, WorldWritableFileIsRefused) {
  ASSERT_EQ(::chmod(file_.c_str(), 0666), 0);
  absl::Status s = CheckPluginFileSecurity(file_);
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(s.message(), "plugin file " + file_ + " is writable by group or others (mode 0666, "
                         "owner uid " + std::to_string(::geteuid()) + "); fix: chmod go-w " + file_);
}

TEST_F(FileSecurityTest, GroupWritableFileIsRefused) {
  ASSERT_EQ(::chmod(file_.c_str(), 0620), 0);
  EXPECT_THAT(Message(), HasSubstr("(mode 0620"));
}

TEST_F(FileSecurityTest, WorldWritableDirectoryIsRefused) {
  ASSERT_EQ(::chmod(dir_.c_str(), 0777), 0);
  EXPECT_THAT(Message(), HasSubstr("plugin directory " + dir_ +
                                   " is writable by group or others (mode 0777"));
  EXPECT_THAT(Message(), ::testing::EndsWith("; fix: chmod go-w " + dir_));
  ASSERT_EQ(::chmod(dir_.c_str(), 01777), 0);  // sticky /tmp-style: still refused
  EXPECT_THAT(Message(), HasSubstr("(mode 01777"));
  ::chmod(dir_.c_str(), 0755);
}

TEST_F(FileSecurityTest, ForeignOwnerIsRefused) {
  if (::chown(file_.c_str(), 12345, static_cast<gid_t>(-1)) != 0) {
    // Needs root outside a user namespace that leaves uid 12345 unmapped
    // (the BUILD target runs unsandboxed for this; a non-root run skips).
    GTEST_SKIP() << "cannot give a file to uid 12345 here: " << std::strerror(errno);
  }
  EXPECT_EQ(Message(), "plugin file " + file_ +
                           " is owned by uid 12345, neither root nor the current user (uid " +
                           std::to_string(::geteuid()) + ") "
                           "(mode 0755); fix: chown root " + file_ + ", or install it as uid " +
                           std::to_string(::geteuid()));
  ASSERT_EQ(::chown(file_.c_str(), 0, static_cast<gid_t>(-1)), 0);
  ASSERT_EQ(::chown(dir_.c_str(), 12345, static_cast<gid_t>(-1)), 0);
  EXPECT_THAT(Message(), HasSubstr("plugin directory " + dir_ + " is owned by uid 12345"));
  EXPECT_EQ(::chown(dir_.c_str(), 0, static_cast<gid_t>(-1)), 0);
}

TEST_F(FileSecurityTest, DirectoryOrMissingPathIsRefused) {
  EXPECT_THAT(std::string(CheckPluginFileSecurity(dir_).message()),
              HasSubstr("plugin file " + dir_ + " is not a regular file"));
  absl::Status missing = CheckPluginFileSecurity(dir_ + "/nope.so");
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.message()), HasSubstr("No such file or directory"));
}

}  // namespace
}  // namespace teplug::core
