// A small index per live thread, for per-thread reader slots: indices are
// handed out lowest-free-first and given back when the thread exits, so they
// stay below the number of threads alive at once. ReadMostly uses it to give
// each reading thread a slot only that thread writes, which lets a reader
// count itself with plain stores instead of locked read-modify-writes.
#ifndef TEPLUG_CORE_CONCURRENCY_READER_INDEX_H_
#define TEPLUG_CORE_CONCURRENCY_READER_INDEX_H_

#include <cstddef>

namespace teplug::core {

// What ReaderIndex() returns on a thread that is exiting (its thread-local
// destructors have run): larger than any slot table, so the caller uses its
// shared path.
inline constexpr size_t kNoReaderIndex = ~size_t{0} - 1;

// The calling thread's index: stable for the thread's life, unique among
// live threads. The first call on a thread takes a lock; later calls read a
// thread-local.
size_t ReaderIndex();

}  // namespace teplug::core

#endif  // TEPLUG_CORE_CONCURRENCY_READER_INDEX_H_
