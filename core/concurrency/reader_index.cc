#include "core/concurrency/reader_index.h"

#include <functional>
#include <mutex>
#include <queue>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"

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

// The first call on a thread. Out of line, so that the common path of
// ReaderIndex is a thread-local load and a compare.
ABSL_ATTRIBUTE_NOINLINE size_t AssignReaderIndex() {
  t_index = Pool().Take();
  thread_local IndexReturner returner;
  (void)returner;
  return t_index;
}

}  // namespace

size_t ReaderIndex() {
  const size_t index = t_index;
  if (ABSL_PREDICT_TRUE(index != kUnassigned)) return index;
  return AssignReaderIndex();
}

}  // namespace teplug::core
