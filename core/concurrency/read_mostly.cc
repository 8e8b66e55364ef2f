#include "core/concurrency/read_mostly.h"

#include <atomic>

namespace teplug::core {

size_t ReaderShardIndex() {
  static std::atomic<size_t> next{0};
  thread_local const size_t index = next.fetch_add(1, std::memory_order_relaxed);
  return index;
}

}  // namespace teplug::core
