#include "plugins/reference/collective/rendezvous.h"

#include <unistd.h>

#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"

namespace teplug::reference::collective {
namespace {

constexpr char kBlobPrefix[] = "teplug-collective-v1:";

}  // namespace

std::string MakeUniqueRegionPath(const std::string& directory) {
  std::random_device entropy;
  const uint64_t random_bits =
      (static_cast<uint64_t>(entropy()) << 32) ^ static_cast<uint64_t>(entropy());
  const auto now = std::chrono::steady_clock::now().time_since_epoch();
  return absl::StrFormat("%s/teplug-collective-%d-%d-%016x", directory, static_cast<int>(getpid()),
                         std::chrono::duration_cast<std::chrono::nanoseconds>(now).count(),
                         random_bits);
}

std::string EncodeBootstrapBlob(const std::string& region_path) {
  return kBlobPrefix + region_path;
}

absl::StatusOr<std::string> DecodeBootstrapBlob(const std::string& blob) {
  if (!absl::StartsWith(blob, kBlobPrefix)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("bootstrap blob of %u bytes does not start with \"%s\"; it was not "
                        "made by this collective provider (or version)",
                        blob.size(), kBlobPrefix));
  }
  std::string path = blob.substr(sizeof(kBlobPrefix) - 1);
  if (path.empty()) {
    return absl::InvalidArgumentError("bootstrap blob holds an empty region path");
  }
  return path;
}

absl::StatusOr<std::unique_ptr<Communicator>> CreateWithKeyValueStore(
    const KeyValueStore& store, const std::string& key, int rank, int world,
    const std::string& directory, const CommunicatorOptions& options) {
  if (!store.put || !store.get) {
    return absl::InvalidArgumentError(
        absl::StrFormat("CreateWithKeyValueStore(rank %d, key %s): the store's put and get "
                        "callbacks must both be set",
                        rank, key));
  }
  std::string blob;
  if (rank == 0) {
    blob = EncodeBootstrapBlob(MakeUniqueRegionPath(directory));
    if (absl::Status put = store.put(key, blob); !put.ok()) {
      return absl::Status(
          put.code(), absl::StrFormat("CreateWithKeyValueStore: rank 0 could not put key %s: %s",
                                      key, put.message()));
    }
  } else {
    absl::StatusOr<std::string> got = store.get(key, options.timeout);
    if (!got.ok()) {
      return absl::Status(
          got.status().code(),
          absl::StrFormat("CreateWithKeyValueStore: rank %d could not get key %s (rank 0 puts "
                          "it): %s",
                          rank, key, got.status().message()));
    }
    blob = *std::move(got);
  }
  absl::StatusOr<std::string> path = DecodeBootstrapBlob(blob);
  if (!path.ok()) return path.status();
  return Communicator::Create(*path, rank, world, options);
}

}  // namespace teplug::reference::collective
