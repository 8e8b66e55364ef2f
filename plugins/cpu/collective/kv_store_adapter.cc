#include "plugins/cpu/collective/kv_store_adapter.h"

#include <algorithm>
#include <utility>

#include "gloo/common/error.h"
#include "teplug/sdk/error.hpp"

namespace teplug::cpu::collective {

KvStoreAdapter::KvStoreAdapter(const TeplugKvStore& kv, std::string prefix,
                               std::chrono::milliseconds default_timeout)
    : kv_(kv), prefix_(std::move(prefix)), default_timeout_(default_timeout) {}

void KvStoreAdapter::set(const std::string& key, const std::vector<char>& data) {
  const std::string full = prefix_ + "/gloo/" + key;
  sdk::OwnedError e(kv_.put(kv_.ctx, full.c_str(), data.data(), data.size()));
  if (!e.ok()) {
    throw KvStoreError(e.code(), "TeplugKvStore.put(\"" + full + "\"): " + e.message());
  }
}

void KvStoreAdapter::Fetch(const std::string& key, std::chrono::milliseconds timeout) {
  if (values_.count(key) != 0) return;
  const std::string full = prefix_ + "/gloo/" + key;
  std::vector<char> buffer(4096);
  for (int attempt = 0; attempt < 2; ++attempt) {
    size_t size = 0;
    sdk::OwnedError e(
        kv_.get(kv_.ctx, full.c_str(), buffer.data(), buffer.size(), &size, timeout.count()));
    if (e.ok()) {
      if (size > buffer.size()) {
        throw KvStoreError(TEPLUG_INTERNAL, "TeplugKvStore.get(\"" + full + "\") reported " +
                                                std::to_string(size) + " bytes, more than the " +
                                                std::to_string(buffer.size()) + " it was given");
      }
      buffer.resize(size);
      values_[key] = std::move(buffer);
      return;
    }
    if (e.code() == TEPLUG_DEADLINE_EXCEEDED) {
      throw gloo::IoException("TeplugKvStore.get(\"" + full + "\"): no value after " +
                              std::to_string(timeout.count()) + " ms: " + e.message());
    }
    // INVALID_ARGUMENT with a larger *size: the value did not fit; retry once.
    if (e.code() == TEPLUG_INVALID_ARGUMENT && size > buffer.size() && attempt == 0) {
      buffer.resize(size);
      continue;
    }
    throw KvStoreError(e.code(), "TeplugKvStore.get(\"" + full + "\"): " + e.message());
  }
}

std::vector<char> KvStoreAdapter::get(const std::string& key) {
  Fetch(key, default_timeout_);
  return values_.at(key);
}

void KvStoreAdapter::wait(const std::vector<std::string>& keys) { wait(keys, default_timeout_); }

void KvStoreAdapter::wait(const std::vector<std::string>& keys,
                          const std::chrono::milliseconds& timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (const std::string& key : keys) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    Fetch(key, std::max(left, std::chrono::milliseconds(1)));
  }
}

}  // namespace teplug::cpu::collective
