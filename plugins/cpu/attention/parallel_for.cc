#include "plugins/cpu/attention/parallel_for.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace teplug::cpu::attention {
namespace {

// The CPUs this process may run on (its affinity mask, which a launcher or
// cgroup may have narrowed), as OpenMP counts them.
int UsableCpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace

void ParallelFor(int64_t count, int threads, const std::function<void(int64_t)>& fn) {
  if (count <= 0) return;
  if (threads <= 0) threads = UsableCpus();
  const int64_t workers = std::min<int64_t>(threads, count);
  std::atomic<int64_t> next{0};
  std::mutex failure_mutex;
  std::exception_ptr failure;
  auto drain = [&] {
    for (int64_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) {
      try {
        fn(i);
      } catch (...) {  // rethrown on the calling thread below
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next.store(count);  // no new indices
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(workers - 1));
  for (int64_t w = 1; w < workers; ++w) {
    try {
      pool.emplace_back(drain);
    } catch (const std::system_error&) {
      break;  // no more threads to be had: the ones running (and this one) do the work
    }
  }
  drain();
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace teplug::cpu::attention
