// Polling with back-off and a deadline, for waiting on flags that other
// threads or processes set in shared memory. The reference collectives never
// block in the kernel on a peer, so every wait is a loop over this class and a
// peer that never shows up ends in a timeout instead of a hang.
#ifndef TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_BACKOFF_WAIT_H_
#define TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_BACKOFF_WAIT_H_

#include <chrono>
#include <cstdint>

namespace teplug::reference::collective {

// One wait: construct it when the wait starts, call Pause() between polls and
// stop when Expired(). Pause spins briefly, then yields, then sleeps in short
// steps, so that more ranks than cores (4 processes on 2 cores in tests) still
// make progress without burning the peers' CPU time.
class BackoffWait {
 public:
  explicit BackoffWait(std::chrono::nanoseconds timeout);

  // True once the timeout given at construction has passed.
  bool Expired() const;
  // Gives the CPU away for a while; the pause grows with each call up to a
  // small cap (tens of microseconds) so wake-up latency stays low.
  void Pause();
  // Time since construction, for error messages.
  std::chrono::nanoseconds Elapsed() const;

 private:
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point deadline_;
  uint64_t polls_ = 0;
};

}  // namespace teplug::reference::collective

#endif  // TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_BACKOFF_WAIT_H_
