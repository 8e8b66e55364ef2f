// The two rendezvous forms of TeplugRendezvous as one small store the NCCL
// bootstrap puts and gets keys in:
//  - key-value: the host's TeplugKvStore; key k is "<kv_prefix>/nccl/<k>".
//  - bootstrap blob "nccl-file:<directory>": key k is the file
//    <directory>/nccl-<k>, written whole (a temporary file renamed into
//    place), so readers never see half a value. The directory must exist, be
//    private to this communicator and visible to every rank (a shared file
//    system for ranks on several hosts).
#ifndef TEPLUG_NATIVE_COLLECTIVE_RENDEZVOUS_STORE_H_
#define TEPLUG_NATIVE_COLLECTIVE_RENDEZVOUS_STORE_H_

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "teplug/collective.h"

namespace teplug::native::collective {

// The bootstrap blob prefix; the rest of the blob is the directory path.
inline constexpr char kFileBlobPrefix[] = "nccl-file:";

class RendezvousStore {
 public:
  virtual ~RendezvousStore() = default;
  // Publishes `value` under `key`. Throws sdk::Exception (the store's code).
  virtual void Put(const std::string& key, const std::string& value) = 0;
  // `key`'s value, or nullopt when it did not appear within `timeout`.
  // Throws sdk::Exception for any other failure.
  virtual std::optional<std::string> Get(const std::string& key,
                                         std::chrono::milliseconds timeout) = 0;
  // Where `key` lives, for messages: the full key or the file's path.
  virtual std::string Where(const std::string& key) const = 0;
  // Which store this is, for messages.
  virtual std::string Describe() const = 0;
};

// The store `rv` names (rv was read with its struct size checked). Throws
// INVALID_ARGUMENT naming the field when not exactly one form is given, the
// store lacks callbacks, or the blob is not "nccl-file:<directory>".
std::unique_ptr<RendezvousStore> OpenRendezvousStore(const TeplugRendezvous& rv,
                                                     const std::string& field);

}  // namespace teplug::native::collective

#endif  // TEPLUG_NATIVE_COLLECTIVE_RENDEZVOUS_STORE_H_
