#include <cuda_runtime.h>

#include "native/collective/stream_poller.h"

namespace teplug::native::collective {
namespace {

class RealPoller final : public StreamPoller {
 public:
  int Query(void* stream) override { return cudaStreamQuery(static_cast<cudaStream_t>(stream)); }
};

}  // namespace

StreamPoller& RealStreamPoller() {
  static RealPoller poller;
  return poller;
}

}  // namespace teplug::native::collective
