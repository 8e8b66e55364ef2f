// Splitting a range of independent work items (rows, blocks) over a fixed
// number of threads. Each item is processed by exactly one thread and writes
// only its own outputs, so results never depend on the thread count.
#ifndef TEPLUG_PLUGINS_CPU_QUANTIZE_PARALLEL_ROWS_H_
#define TEPLUG_PLUGINS_CPU_QUANTIZE_PARALLEL_ROWS_H_

#include <cstdint>
#include <functional>

namespace teplug::cpu::quantize {

// Threads worth using for `bytes` of memory traffic: one per 1 MiB, at
// least 1 and at most `budget` (budget 0: one per hardware thread).
int ThreadsFor(int64_t bytes, int budget);

// Calls body(begin, end) on `threads` threads (the caller is one of them)
// for contiguous sub-ranges covering [0, count), and returns when all have.
void ParallelFor(int64_t count, int threads, const std::function<void(int64_t, int64_t)>& body);

}  // namespace teplug::cpu::quantize

#endif  // TEPLUG_PLUGINS_CPU_QUANTIZE_PARALLEL_ROWS_H_
