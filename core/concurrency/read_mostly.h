// ReadMostly<T>: a value read on every call and replaced rarely (plugin
// loads, config reloads), with lock-free reads and safe reclamation.
//
// Readers take a Guard: two uncontended atomic increments on a per-thread
// shard, no lock. Publish swaps in a new value, then waits until every reader
// that might still see the old one has left, and only then destroys it — so a
// call that started on the old value finishes on it (this is the scheme of
// sleepable RCU with two reader phases). Do not call Publish while holding a
// Guard on the same object from the same thread: it would wait for itself.
#ifndef TEPLUG_CORE_CONCURRENCY_READ_MOSTLY_H_
#define TEPLUG_CORE_CONCURRENCY_READ_MOSTLY_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace teplug::core {

// Index of the calling thread's reader shard, stable per thread.
size_t ReaderShardIndex();

template <class T>
class ReadMostly {
 public:
  static constexpr size_t kShards = 64;

  explicit ReadMostly(std::unique_ptr<T> initial) : current_(initial.release()) {}
  ~ReadMostly() { delete current_.load(); }
  ReadMostly(const ReadMostly&) = delete;
  ReadMostly& operator=(const ReadMostly&) = delete;

  class Guard {
   public:
    Guard(Guard&& o) noexcept : counter_(o.counter_), value_(o.value_) { o.counter_ = nullptr; }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    ~Guard() {
      if (counter_ != nullptr) counter_->fetch_sub(1, std::memory_order_release);
    }
    const T* get() const { return value_; }
    const T* operator->() const { return value_; }
    const T& operator*() const { return *value_; }

   private:
    friend class ReadMostly;
    Guard(std::atomic<int64_t>* c, const T* v) : counter_(c), value_(v) {}
    std::atomic<int64_t>* counter_;
    const T* value_;
  };

  // The current value, valid while the Guard lives.
  Guard Read() const {
    Shard& shard = shards_[ReaderShardIndex() % kShards];
    for (;;) {
      const uint64_t phase = phase_.load(std::memory_order_seq_cst);
      std::atomic<int64_t>* counter = &shard.readers[phase & 1];
      counter->fetch_add(1, std::memory_order_seq_cst);
      // If the phase moved, a writer may already be waiting on the other
      // counter without having seen our increment: retry in the new phase.
      if (phase_.load(std::memory_order_seq_cst) == phase) {
        return Guard(counter, current_.load(std::memory_order_seq_cst));
      }
      counter->fetch_sub(1, std::memory_order_release);
    }
  }

  // Replaces the value with make(current) — computed under the writer lock,
  // so concurrent updates compose — then waits for readers of the old value
  // and destroys it. Returns the new value (valid until the next update).
  const T* Update(const std::function<std::unique_ptr<T>(const T&)>& make) {
    std::lock_guard<std::mutex> lock(writer_);
    std::unique_ptr<T> next = make(*current_.load(std::memory_order_seq_cst));
    const T* published = next.get();
    T* old = current_.exchange(next.release(), std::memory_order_seq_cst);
    const uint64_t phase = phase_.fetch_add(1, std::memory_order_seq_cst);
    WaitForReaders(phase & 1);
    delete old;
    return published;
  }

 private:
  struct alignas(64) Shard {
    std::atomic<int64_t> readers[2] = {{0}, {0}};
  };

  void WaitForReaders(uint64_t parity) const {
    for (;;) {
      int64_t total = 0;
      for (const Shard& s : shards_) total += s.readers[parity].load(std::memory_order_seq_cst);
      if (total == 0) return;
      std::this_thread::yield();
    }
  }

  std::atomic<T*> current_;
  std::atomic<uint64_t> phase_{0};
  mutable Shard shards_[kShards];
  std::mutex writer_;
};

}  // namespace teplug::core

#endif  // TEPLUG_CORE_CONCURRENCY_READ_MOSTLY_H_
