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

// Names a buffer of a call in error messages, e.g. "ICollective all_reduce:
// TeplugCollectiveArgs.send". The text is built only for an error: a call
// that succeeds allocates nothing for it.
struct BufferName {
  const char* op;     // the op's name, e.g. "all_reduce"
  const char* field;  // "send" or "recv"
  std::string Text() const;
};

// Throws sdk::Exception naming `name`.
CollectiveBuffer ReadCollectiveBuffer(const TeplugTensor* tensor, const BufferName& name);

}  // namespace teplug::cpu::collective

#endif  // TEPLUG_PLUGINS_CPU_COLLECTIVE_COLLECTIVE_BUFFER_H_
