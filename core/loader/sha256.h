// SHA-256 (FIPS 180-4), for verifying the sha256 pins of plugin files.
// Written here rather than linked from a crypto library so the core needs
// nothing beyond Abseil; tested with the NIST vectors and `sha256sum`.
#ifndef TEPLUG_CORE_LOADER_SHA256_H_
#define TEPLUG_CORE_LOADER_SHA256_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace teplug::core {

// Incremental SHA-256: Update any number of times, then Finish once.
class Sha256 {
 public:
  using Digest = std::array<uint8_t, 32>;

  Sha256();
  void Update(const void* data, size_t size);
  void Update(absl::string_view data) { Update(data.data(), data.size()); }
  // Pads, processes the last block and returns the digest. The object must
  // not be used afterwards.
  Digest Finish();

 private:
  void ProcessBlock(const uint8_t block[64]);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_;
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

// Lower-case hex of a digest (64 characters).
std::string DigestToHex(const Sha256::Digest& digest);

// Lower-case hex SHA-256 of `data`.
std::string Sha256Hex(absl::string_view data);

// Lower-case hex SHA-256 of the file's contents. Errors name the path and
// the system's reason (open or read failure).
absl::StatusOr<std::string> Sha256OfFile(const std::string& path);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_LOADER_SHA256_H_
