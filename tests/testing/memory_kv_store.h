// An in-process TeplugKvStore for tests whose ranks are threads: put stores,
// get waits on a condition variable up to its timeout (DEADLINE_EXCEEDED
// after) and follows the contract for values larger than the buffer.
#ifndef TEPLUG_TESTS_TESTING_MEMORY_KV_STORE_H_
#define TEPLUG_TESTS_TESTING_MEMORY_KV_STORE_H_

#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "teplug/collective.h"

namespace teplug::testing {

class MemoryKvStore {
 public:
  // The callbacks over this store; valid while it lives.
  TeplugKvStore Api();
  // Every key put so far.
  std::vector<std::string> Keys() const;

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::string> values_;
};

}  // namespace teplug::testing

#endif  // TEPLUG_TESTS_TESTING_MEMORY_KV_STORE_H_
