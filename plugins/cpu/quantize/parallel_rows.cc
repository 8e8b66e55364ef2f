#include "plugins/cpu/quantize/parallel_rows.h"

#include <algorithm>
#include <thread>
#include <vector>

namespace teplug::cpu::quantize {

int ThreadsFor(int64_t bytes, int budget) {
  int limit = budget;
  if (limit <= 0) limit = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int64_t wanted = std::max<int64_t>(1, bytes >> 20);
  return static_cast<int>(std::min<int64_t>(limit, wanted));
}

void ParallelFor(int64_t count, int threads, const std::function<void(int64_t, int64_t)>& body) {
  if (count <= 0) return;
  const int64_t n = std::max<int64_t>(1, std::min<int64_t>(threads, count));
  if (n == 1) {
    body(0, count);
    return;
  }
  std::vector<std::thread> workers;
  workers.reserve(n - 1);
  const auto range = [&](int64_t t) { return std::make_pair(count * t / n, count * (t + 1) / n); };
  for (int64_t t = 1; t < n; ++t) {
    const auto [begin, end] = range(t);
    workers.emplace_back([&body, begin = begin, end = end] { body(begin, end); });
  }
  const auto [begin, end] = range(0);
  body(begin, end);
  for (std::thread& w : workers) w.join();
}

}  // namespace teplug::cpu::quantize
