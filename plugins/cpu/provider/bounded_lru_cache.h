// A thread-safe map from string keys to shared immutable values holding at
// most `capacity` entries: a lookup makes its entry the most recently used,
// and an insertion into a full cache evicts the least recently used one.
// The cpu provider keeps its oneDNN primitives in one, keyed by the op
// signature (GemmSignature::Key), so repeated shapes skip primitive creation
// and a stream of distinct shapes cannot grow memory without bound.
#ifndef TEPLUG_PLUGINS_CPU_PROVIDER_BOUNDED_LRU_CACHE_H_
#define TEPLUG_PLUGINS_CPU_PROVIDER_BOUNDED_LRU_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace teplug::cpu::provider {

template <class Value>
class BoundedLruCache {
 public:
  // Counters since construction, for tests and diagnostics.
  struct Stats {
    uint64_t hits = 0;
    uint64_t misses = 0;
    uint64_t evictions = 0;
  };

  // `capacity` >= 1 entries.
  explicit BoundedLruCache(size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

  // The value for `key`, or nullptr (a miss). A hit becomes the most
  // recently used entry.
  std::shared_ptr<const Value> Find(const std::string& key) {
    absl::MutexLock lock(&mu_);
    auto it = index_.find(key);
    if (it == index_.end()) {
      ++stats_.misses;
      return nullptr;
    }
    ++stats_.hits;
    order_.splice(order_.begin(), order_, it->second);
    return it->second->second;
  }

  // Stores `value` under `key` as the most recently used entry, evicting the
  // least recently used one when full, and returns the stored value: the one
  // already there if another thread inserted `key` first.
  std::shared_ptr<const Value> Insert(const std::string& key, std::shared_ptr<const Value> value) {
    absl::MutexLock lock(&mu_);
    if (auto it = index_.find(key); it != index_.end()) {
      order_.splice(order_.begin(), order_, it->second);
      return it->second->second;
    }
    if (index_.size() >= capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
      ++stats_.evictions;
    }
    order_.emplace_front(key, std::move(value));
    index_[key] = order_.begin();
    return order_.front().second;
  }

  size_t capacity() const { return capacity_; }
  size_t size() const {
    absl::MutexLock lock(&mu_);
    return index_.size();
  }
  Stats stats() const {
    absl::MutexLock lock(&mu_);
    return stats_;
  }

 private:
  using Entry = std::pair<std::string, std::shared_ptr<const Value>>;
  const size_t capacity_;
  mutable absl::Mutex mu_;
  std::list<Entry> order_ ABSL_GUARDED_BY(mu_);  // most recently used first
  absl::flat_hash_map<std::string, typename std::list<Entry>::iterator> index_ ABSL_GUARDED_BY(mu_);
  Stats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace teplug::cpu::provider

#endif  // TEPLUG_PLUGINS_CPU_PROVIDER_BOUNDED_LRU_CACHE_H_
