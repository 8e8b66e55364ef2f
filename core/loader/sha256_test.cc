// SHA-256 against the NIST FIPS 180-4 example vectors, and against the
// system's `sha256sum` (an independent implementation) on random data of
// lengths around every padding boundary, whole and in random pieces.
#include "core/loader/sha256.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace teplug::core {
namespace {

TEST(Sha256Test, NistVectors) {
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, IncrementalUpdatesMatchOneShot) {
  std::mt19937 rng(7);
  std::string data(5000, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  Sha256 sha;
  size_t at = 0;
  while (at < data.size()) {
    size_t n = std::min<size_t>(rng() % 130, data.size() - at);
    sha.Update(data.data() + at, n);
    at += n;
  }
  EXPECT_EQ(DigestToHex(sha.Finish()), Sha256Hex(data));
}

std::string WriteTemp(const std::string& name, const std::string& data) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
  std::ofstream(path, std::ios::binary) << data;
  return path;
}

// What coreutils' sha256sum says about `path`.
std::string SystemSha256(const std::string& path) {
  std::string cmd = "sha256sum '" + path + "'";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return "popen failed";
  char out[65] = {};
  size_t n = fread(out, 1, 64, p);
  pclose(p);
  return std::string(out, n);
}

TEST(Sha256Test, FilesMatchSha256sumAtEveryPaddingBoundary) {
  std::mt19937 rng(1234);
  for (size_t length : {1u, 55u, 56u, 57u, 63u, 64u, 65u, 119u, 120u, 128u, 1000u, 65535u,
                        65536u, 65537u, 200000u}) {
    std::string data(length, '\0');
    for (char& c : data) c = static_cast<char>(rng());
    std::string path = WriteTemp("sha_" + std::to_string(length), data);
    absl::StatusOr<std::string> ours = Sha256OfFile(path);
    ASSERT_TRUE(ours.ok()) << ours.status();
    EXPECT_EQ(*ours, SystemSha256(path)) << "length " << length;
    EXPECT_EQ(*ours, Sha256Hex(data)) << "length " << length;
  }
}

TEST(Sha256Test, MissingFileNamesPathAndReason) {
  absl::StatusOr<std::string> r = Sha256OfFile("/nonexistent/dir/libteplug_x.so");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              ::testing::AllOf(::testing::HasSubstr("/nonexistent/dir/libteplug_x.so"),
                               ::testing::HasSubstr("No such file or directory")));
}

}  // namespace
}  // namespace teplug::core
