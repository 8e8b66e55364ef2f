#include "plugins/cpu/collective/memory_kv_store.h"

#include <chrono>
#include <cstring>

#include "teplug/sdk/struct_io.hpp"

namespace teplug::cpu::collective::testing {

MemoryKvStore::MemoryKvStore() {
  kv_ = sdk::Versioned<TeplugKvStore>();
  kv_.ctx = this;
  kv_.put = &Put;
  kv_.get = &Get;
}

std::map<std::string, std::string> MemoryKvStore::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return values_;
}

TeplugError* MemoryKvStore::Put(void* ctx, const char* key, const void* value, size_t size) {
  auto* s = static_cast<MemoryKvStore*>(ctx);
  {
    std::lock_guard<std::mutex> lock(s->mu_);
    s->values_[key] = std::string(static_cast<const char*>(value), size);
  }
  s->cv_.notify_all();
  return nullptr;
}

TeplugError* MemoryKvStore::Get(void* ctx, const char* key, void* buffer, size_t capacity,
                                size_t* size, int64_t timeout_ms) {
  auto* s = static_cast<MemoryKvStore*>(ctx);
  std::unique_lock<std::mutex> lock(s->mu_);
  if (!s->cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                       [&] { return s->values_.count(key) > 0; })) {
    return teplug_error_create(TEPLUG_DEADLINE_EXCEEDED, "the key never appeared");
  }
  const std::string& v = s->values_[key];
  *size = v.size();
  if (v.size() > capacity) return teplug_error_create(TEPLUG_INVALID_ARGUMENT, "buffer too small");
  if (!v.empty()) std::memcpy(buffer, v.data(), v.size());
  return nullptr;
}

}  // namespace teplug::cpu::collective::testing
