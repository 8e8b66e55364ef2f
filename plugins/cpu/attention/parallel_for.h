// Runs fn(0) .. fn(count - 1) on up to `threads` threads (the calling thread
// among them), each index exactly once; returns when all are done. Which
// thread runs an index does not change what fn computes, so results do not
// depend on the thread count. If fn throws, no further indices start and the
// first exception is rethrown here once every thread has stopped; when no
// more threads can be started, the ones running do the work.
#ifndef TEPLUG_PLUGINS_CPU_ATTENTION_PARALLEL_FOR_H_
#define TEPLUG_PLUGINS_CPU_ATTENTION_PARALLEL_FOR_H_

#include <cstdint>
#include <functional>

namespace teplug::cpu::attention {

// threads <= 0: one per CPU in the process's affinity mask.
void ParallelFor(int64_t count, int threads, const std::function<void(int64_t)>& fn);

}  // namespace teplug::cpu::attention

#endif  // TEPLUG_PLUGINS_CPU_ATTENTION_PARALLEL_FOR_H_
