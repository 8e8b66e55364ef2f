// A collective buffer read from a TeplugTensor: host memory, contiguous, a
// dtype the Gloo collectives serve. Refusals are INVALID_ARGUMENT (malformed)
// or UNSUPPORTED (valid but not served), naming the tensor and the value.
#ifndef TEPLUG_PLUGINS_CPU_COLLECTIVE_COLLECTIVE_BUFFER_H_
#define TEPLUG_PLUGINS_CPU_COLLECTIVE_COLLECTIVE_BUFFER_H_

#include <cstdint>
#include <string>

#include "teplug/types.h"

namespace teplug::cpu::collective {

struct CollectiveBuffer {
  void* data = nullptr;
  int32_t dtype = 0;
  size_t count = 0;  // elements
};

// Throws sdk::Exception; `name` is e.g. "TeplugCollectiveArgs.send".
CollectiveBuffer ReadCollectiveBuffer(const TeplugTensor* tensor, const std::string& name);

}  // namespace teplug::cpu::collective

#endif  // TEPLUG_PLUGINS_CPU_COLLECTIVE_COLLECTIVE_BUFFER_H_
