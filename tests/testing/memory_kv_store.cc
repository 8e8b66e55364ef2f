#include "tests/testing/memory_kv_store.h"

#include <chrono>
#include <cstring>

#include "teplug/sdk/struct_io.hpp"

namespace teplug::testing {

TeplugKvStore MemoryKvStore::Api() {
  TeplugKvStore kv = sdk::Versioned<TeplugKvStore>();
  kv.ctx = this;
  kv.put = [](void* ctx, const char* key, const void* value, size_t size) -> TeplugError* {
    auto* self = static_cast<MemoryKvStore*>(ctx);
    std::lock_guard<std::mutex> l(self->mu_);
    self->values_[key] = std::string(static_cast<const char*>(value), size);
    self->cv_.notify_all();
    return nullptr;
  };
  kv.get = [](void* ctx, const char* key, void* buffer, size_t capacity, size_t* size,
              int64_t timeout_ms) -> TeplugError* {
    auto* self = static_cast<MemoryKvStore*>(ctx);
    std::unique_lock<std::mutex> l(self->mu_);
    if (!self->cv_.wait_for(l, std::chrono::milliseconds(timeout_ms),
                            [&] { return self->values_.count(key) > 0; })) {
      return teplug_error_create(TEPLUG_DEADLINE_EXCEEDED, "no such key yet");
    }
    const std::string& v = self->values_[key];
    *size = v.size();
    if (v.size() > capacity) return teplug_error_create(TEPLUG_INVALID_ARGUMENT, "buffer too small");
    if (!v.empty()) std::memcpy(buffer, v.data(), v.size());
    return nullptr;
  };
  return kv;
}

std::vector<std::string> MemoryKvStore::Keys() const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<std::string> out;
  for (const auto& [key, value] : values_) out.push_back(key);
  return out;
}

}  // namespace teplug::testing
