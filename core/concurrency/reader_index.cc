#include "core/concurrency/reader_index.h"

#include <functional>
#include <mutex>
#include <queue>
#include <vector>

namespace teplug::core {
namespace {

constexpr size_t kUnassigned = ~size_t{0};

// Free indices, lowest first, and the next never-used one.
struct IndexPool {
  std::mutex mu;
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> free;
  size_t next = 0;

  size_t Take() {
    std::lock_guard<std::mutex> lock(mu);
    if (free.empty()) return next++;
    const size_t index = free.top();
    free.pop();
    return index;
  }
  void Give(size_t index) {
    std::lock_guard<std::mutex> lock(mu);
    free.push(index);
  }
};

IndexPool& Pool() {
  static IndexPool* pool = new IndexPool;  // never destroyed: threads may exit after main
  return *pool;
}

// Trivially destructible, so reading it is valid even during the thread's
// own thread-local destruction (when it reads kNoReaderIndex).
thread_local size_t t_index = kUnassigned;

// Gives the index back when the thread exits.
struct IndexReturner {
  ~IndexReturner() {
    Pool().Give(t_index);
    t_index = kNoReaderIndex;
  }
};

}  // namespace

size_t ReaderIndex() {
  if (t_index != kUnassigned) return t_index;
  t_index = Pool().Take();
  thread_local IndexReturner returner;
  (void)returner;
  return t_index;
}

}  // namespace teplug::core
