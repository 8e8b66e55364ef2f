// The host's key-value rendezvous (TeplugKvStore callbacks) seen as a
// gloo::rendezvous::Store, so Gloo's own full-mesh connection runs over it.
// Keys are put as "<kv_prefix>/gloo/<key>". Store::wait blocks in the host's
// get, up to the timeout Gloo passes; a missing key is a gloo::IoException
// (what Gloo's own stores throw), any other store error a KvStoreError.
#ifndef TEPLUG_PLUGINS_CPU_COLLECTIVE_KV_STORE_ADAPTER_H_
#define TEPLUG_PLUGINS_CPU_COLLECTIVE_KV_STORE_ADAPTER_H_

#include <chrono>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "gloo/rendezvous/store.h"
#include "teplug/collective.h"

namespace teplug::cpu::collective {

// A host store callback failed with something other than a timeout.
class KvStoreError : public std::runtime_error {
 public:
  KvStoreError(TeplugCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  TeplugCode code() const { return code_; }

 private:
  TeplugCode code_;
};

class KvStoreAdapter : public gloo::rendezvous::Store {
 public:
  // `kv` must stay valid while this adapter is used (during comm_create).
  // `default_timeout` bounds get() and the timeout-less wait().
  KvStoreAdapter(const TeplugKvStore& kv, std::string prefix,
                 std::chrono::milliseconds default_timeout);

  void set(const std::string& key, const std::vector<char>& data) override;
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;

 private:
  // Fetches `key` into values_, waiting up to `timeout`.
  void Fetch(const std::string& key, std::chrono::milliseconds timeout);

  TeplugKvStore kv_;
  std::string prefix_;
  std::chrono::milliseconds default_timeout_;
  std::map<std::string, std::vector<char>> values_;  // keys already fetched
};

}  // namespace teplug::cpu::collective

#endif  // TEPLUG_PLUGINS_CPU_COLLECTIVE_KV_STORE_ADAPTER_H_
