// Test support: a thread-safe in-memory key-value store offered as a
// TeplugKvStore, for the key-value rendezvous with ranks as threads. It
// follows the callback contract of collective.h: get blocks up to timeout_ms
// (DEADLINE_EXCEEDED after), and a value larger than the buffer writes *size
// and returns INVALID_ARGUMENT.
#ifndef TEPLUG_PLUGINS_CPU_COLLECTIVE_MEMORY_KV_STORE_H_
#define TEPLUG_PLUGINS_CPU_COLLECTIVE_MEMORY_KV_STORE_H_

#include <condition_variable>
#include <map>
#include <mutex>
#include <string>

#include "teplug/collective.h"

namespace teplug::cpu::collective::testing {

class MemoryKvStore {
 public:
  MemoryKvStore();
  MemoryKvStore(const MemoryKvStore&) = delete;
  MemoryKvStore& operator=(const MemoryKvStore&) = delete;

  const TeplugKvStore* kv() const { return &kv_; }
  // Every key put so far.
  std::map<std::string, std::string> Snapshot() const;

 private:
  static TeplugError* Put(void* ctx, const char* key, const void* value, size_t size);
  static TeplugError* Get(void* ctx, const char* key, void* buffer, size_t capacity, size_t* size,
                          int64_t timeout_ms);

  TeplugKvStore kv_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::string> values_;
};

}  // namespace teplug::cpu::collective::testing

#endif  // TEPLUG_PLUGINS_CPU_COLLECTIVE_MEMORY_KV_STORE_H_
