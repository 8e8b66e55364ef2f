#include "plugins/reference/collective/backoff_wait.h"

#include <algorithm>
#include <thread>

namespace teplug::reference::collective {
namespace {

// Polls that only spin (cheap when the peer is running on another core).
constexpr uint64_t kSpinPolls = 64;
// Polls that yield the CPU before sleeping starts.
constexpr uint64_t kYieldPolls = 256;
// Longest single sleep; bounds the extra latency a sleeping waiter adds.
constexpr std::chrono::microseconds kMaxSleep(50);

}  // namespace

BackoffWait::BackoffWait(std::chrono::nanoseconds timeout)
    : start_(std::chrono::steady_clock::now()), deadline_(start_ + timeout) {}

bool BackoffWait::Expired() const { return std::chrono::steady_clock::now() >= deadline_; }

void BackoffWait::Pause() {
  ++polls_;
  if (polls_ <= kSpinPolls) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    return;
  }
  if (polls_ <= kYieldPolls) {
    std::this_thread::yield();
    return;
  }
  const uint64_t step = polls_ - kYieldPolls;
  std::this_thread::sleep_for(
      std::min<std::chrono::microseconds>(kMaxSleep, std::chrono::microseconds(step)));
}

std::chrono::nanoseconds BackoffWait::Elapsed() const {
  return std::chrono::steady_clock::now() - start_;
}

}  // namespace teplug::reference::collective
