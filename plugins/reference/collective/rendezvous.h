// How ranks agree on the shared region's path before Communicator::Create.
// The region is named by a file path; whoever creates the group derives a
// fresh unique path and hands it to every rank through the host's rendezvous:
//   - a bootstrap blob (the C ABI's opaque "unique id"): rank 0, or the host,
//     calls EncodeBootstrapBlob(MakeUniqueRegionPath(dir)), the host copies
//     the bytes to every rank, and each rank passes
//     DecodeBootstrapBlob(bytes) to Communicator::Create;
//   - a key-value store offered as callbacks: CreateWithKeyValueStore below
//     (rank 0 makes the path and puts it under a key, the others get it).
#ifndef TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_RENDEZVOUS_H_
#define TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_RENDEZVOUS_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "plugins/reference/collective/communicator.h"

namespace teplug::reference::collective {

// Directory for regions when the caller names none: tmpfs, so the mapping is
// plain memory shared between processes.
inline constexpr char kDefaultRegionDirectory[] = "/dev/shm";

// "<directory>/teplug-collective-<pid>-<steady ns>-<64 random bits hex>":
// unique across processes, calls and hosts sharing a directory.
std::string MakeUniqueRegionPath(const std::string& directory);

// The bootstrap blob is "teplug-collective-v1:" followed by the path, so a
// blob from another provider or version is rejected instead of misread.
std::string EncodeBootstrapBlob(const std::string& region_path);
// The region path in `blob`, or InvalidArgument describing what is wrong.
absl::StatusOr<std::string> DecodeBootstrapBlob(const std::string& blob);

// A host-provided key-value store (the ABI's rendezvous callbacks).
struct KeyValueStore {
  // Stores `value` under `key`.
  std::function<absl::Status(const std::string& key, const std::string& value)> put;
  // Returns the value under `key`, waiting up to `timeout` for it to appear.
  std::function<absl::StatusOr<std::string>(const std::string& key,
                                            std::chrono::nanoseconds timeout)>
      get;
};

// Rank 0 creates a unique path in `directory` and puts its bootstrap blob
// under `key`; other ranks get it (waiting up to options.timeout); then every
// rank calls Communicator::Create. Store errors are returned with the key and
// rank added.
absl::StatusOr<std::unique_ptr<Communicator>> CreateWithKeyValueStore(
    const KeyValueStore& store, const std::string& key, int rank, int world,
    const std::string& directory, const CommunicatorOptions& options = CommunicatorOptions());

}  // namespace teplug::reference::collective

#endif  // TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_RENDEZVOUS_H_
