// The seam for the one CUDA call the collective makes besides the runtime
// calls of native/device's CudaRuntimeApi: asking whether a stream's work has
// finished without blocking (cudaStreamQuery), so that waiting for an op on
// the default stream can also watch NCCL's asynchronous error and the
// timeout instead of hanging in cudaStreamSynchronize.
#ifndef TEPLUG_NATIVE_COLLECTIVE_STREAM_POLLER_H_
#define TEPLUG_NATIVE_COLLECTIVE_STREAM_POLLER_H_

namespace teplug::native::collective {

// cudaErrorNotReady: the stream still has work.
inline constexpr int kCudaErrorNotReady = 600;

class StreamPoller {
 public:
  virtual ~StreamPoller() = default;
  // cudaStreamQuery(stream) as an int: 0 when done, kCudaErrorNotReady while
  // work is pending, another cudaError_t on failure. NULL is the legacy
  // default stream.
  virtual int Query(void* stream) = 0;
};

// cudaStreamQuery of the statically linked runtime.
StreamPoller& RealStreamPoller();

}  // namespace teplug::native::collective

#endif  // TEPLUG_NATIVE_COLLECTIVE_STREAM_POLLER_H_
