// ReadMostly<T>: a value read on every call and replaced rarely (plugin
// loads, config reloads), with lock-free reads and safe reclamation.
//
// Readers take a Guard, which counts them in one of two phases; Update swaps
// in a new value, moves to the other phase, waits until the old phase has no
// readers, and only then destroys the old value — so a call that started on
// the old value finishes on it (the scheme of sleepable RCU with two reader
// phases).
//
// Counting is the hot path's cost, so each of the first kSlots threads alive
// at once counts itself in a slot only it writes (no contended cache line),
// with a plain load and store and no fence the CPU executes: the writer makes
// every thread execute one instead (ProcessWideFence). Where that fence is
// unavailable (ReaderFence::kSymmetric), readers count in their own slot with
// locked increments and full fences; threads beyond kSlots share one more
// slot that way.
//
// Should the process-wide fence ever fail after it was available (the kernel
// refuses membarrier at run time), the writer cannot know whether a reader
// still holds the old value, so that value and every later replaced one are
// kept, not destroyed (a bounded leak: one value per update), and the reason
// is reported once to `on_fence_failure`. The process keeps running.
//
// Rules: release a Guard on the thread that took it; do not call Update
// while holding a Guard on the same object from the same thread (it would
// wait for itself).
#ifndef TEPLUG_CORE_CONCURRENCY_READ_MOSTLY_H_
#define TEPLUG_CORE_CONCURRENCY_READ_MOSTLY_H_

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "core/concurrency/process_fence.h"
#include "core/concurrency/reader_index.h"

namespace teplug::core {

// How readers are ordered against the writer (see the file comment).
enum class ReaderFence {
  kAsymmetric,  // per-thread slots, compiler fence; the writer fences every thread
  kSymmetric,   // per-thread slots, locked increments and full fences on both sides
};

// kAsymmetric where the process-wide fence is available, else kSymmetric.
inline ReaderFence DefaultReaderFence() {
  return ProcessFenceAvailable() ? ReaderFence::kAsymmetric : ReaderFence::kSymmetric;
}

template <class T>
class ReadMostly {
 public:
  // Threads with their own slot; later threads share one.
  static constexpr size_t kSlots = 128;

  // `fence` runs the writer's process-wide fence (ProcessWideFence; tests
  // inject a failing one); `on_fence_failure` hears once why it failed.
  using FenceFn = bool (*)(std::string* error_text);
  explicit ReadMostly(std::unique_ptr<T> initial, ReaderFence fence = DefaultReaderFence(),
                      FenceFn process_fence = &ProcessWideFence,
                      std::function<void(const std::string&)> on_fence_failure = &ReportFenceFailure)
      : current_(initial.release()),
        asymmetric_(fence == ReaderFence::kAsymmetric),
        process_fence_(process_fence),
        on_fence_failure_(std::move(on_fence_failure)) {}
  ~ReadMostly() { delete current_.load(); }
  ReadMostly(const ReadMostly&) = delete;
  ReadMostly& operator=(const ReadMostly&) = delete;

  class Guard {
   public:
    Guard(Guard&& o) noexcept : counter_(o.counter_), value_(o.value_), plain_(o.plain_) {
      o.counter_ = nullptr;
    }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    ~Guard() {
      if (counter_ == nullptr) return;
      if (plain_) {
        // Only this thread writes the slot. Release: our reads of the value
        // happen before the writer sees the count drop.
        counter_->store(counter_->load(std::memory_order_relaxed) - 1, std::memory_order_release);
      } else {
        counter_->fetch_sub(1, std::memory_order_release);
      }
    }
    const T* get() const { return value_; }
    const T* operator->() const { return value_; }
    const T& operator*() const { return *value_; }

   private:
    friend class ReadMostly;
    Guard(std::atomic<int64_t>* c, const T* v, bool plain) : counter_(c), value_(v), plain_(plain) {}
    std::atomic<int64_t>* counter_;
    const T* value_;
    bool plain_;  // counted with a plain store in the thread's own slot
  };

  // The current value, valid while the Guard lives.
  Guard Read() const {
    const size_t index = ReaderIndex();
    Slot& slot = index < kSlots ? slots_[index] : shared_;
    if (asymmetric_ && index < kSlots) {
      for (;;) {
        const uint64_t phase = phase_.load(std::memory_order_acquire);
        std::atomic<int64_t>* counter = &slot.readers[phase & 1];
        counter->store(counter->load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        // Either the writer's process-wide fence comes after our store (and
        // the writer sees our count), or our loads below come after it (and
        // see the new phase, so we retry there).
        LightFence();
        if (phase_.load(std::memory_order_acquire) == phase) {
          return Guard(counter, current_.load(std::memory_order_acquire), true);
        }
        counter->store(counter->load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
      }
    }
    for (;;) {
      const uint64_t phase = phase_.load(std::memory_order_seq_cst);
      std::atomic<int64_t>* counter = &slot.readers[phase & 1];
      counter->fetch_add(1, std::memory_order_seq_cst);
      // If the phase moved, a writer may already be waiting on the other
      // counter without having seen our increment: retry in the new phase.
      if (phase_.load(std::memory_order_seq_cst) == phase) {
        return Guard(counter, current_.load(std::memory_order_seq_cst), false);
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
    if (asymmetric_ && !fence_failed_) {
      std::string error;
      if (!process_fence_(&error)) {
        fence_failed_ = true;
        on_fence_failure_(error);
      }
    }
    if (fence_failed_) {
      kept_.emplace_back(old);  // a reader may still hold it: never destroyed while we live
      return published;
    }
    WaitForReaders(phase & 1);
    delete old;
    return published;
  }

 private:
  struct alignas(64) Slot {
    std::atomic<int64_t> readers[2] = {{0}, {0}};
  };

  void WaitForReaders(uint64_t parity) const {
    for (;;) {
      int64_t total = shared_.readers[parity].load(std::memory_order_seq_cst);
      for (const Slot& s : slots_) total += s.readers[parity].load(std::memory_order_seq_cst);
      if (total == 0) return;
      std::this_thread::yield();
    }
  }

  static void ReportFenceFailure(const std::string& error) {
    std::fprintf(stderr,
                 "teplug: %s; replaced kernel states are kept from now on instead of freed "
                 "(a reader may still use them)\n",
                 error.c_str());
  }

  std::atomic<T*> current_;
  std::atomic<uint64_t> phase_{0};
  const bool asymmetric_;
  const FenceFn process_fence_;
  const std::function<void(const std::string&)> on_fence_failure_;
  bool fence_failed_ = false;            // under writer_
  std::vector<std::unique_ptr<T>> kept_;  // under writer_: values replaced after the fence failed
  mutable Slot slots_[kSlots];  // slot i: used only by the thread whose ReaderIndex() is i
  mutable Slot shared_;         // threads whose index is kSlots or more
  std::mutex writer_;
};

}  // namespace teplug::core

#endif  // TEPLUG_CORE_CONCURRENCY_READ_MOSTLY_H_
