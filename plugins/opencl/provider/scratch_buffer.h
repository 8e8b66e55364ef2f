// Device scratch memory of one op call: a cl_mem of the call's context,
// released when it goes out of scope (OpenCL keeps it alive for the commands
// already enqueued on it, so the call need not wait for them).
#ifndef TEPLUG_PLUGINS_OPENCL_PROVIDER_SCRATCH_BUFFER_H_
#define TEPLUG_PLUGINS_OPENCL_PROVIDER_SCRATCH_BUFFER_H_

#include <CL/cl.h>

#include <cstddef>
#include <string>

namespace teplug::opencl::provider {

class ScratchBuffer {
 public:
  // Throws sdk::Exception naming `what` and the size when clCreateBuffer fails.
  ScratchBuffer(cl_context context, size_t bytes, const std::string& what);
  ~ScratchBuffer();
  ScratchBuffer(const ScratchBuffer&) = delete;
  ScratchBuffer& operator=(const ScratchBuffer&) = delete;
  cl_mem get() const { return mem_; }

 private:
  cl_mem mem_;
};

// The queue an op enqueues on: `stream` (a cl_command_queue, which must belong
// to `context`; `what` names the argument in the error) or, for NULL,
// `default_queue`, which the op finishes before returning.
cl_command_queue QueueForStream(void* stream, cl_context context, cl_command_queue default_queue,
                                const char* what);

}  // namespace teplug::opencl::provider

#endif  // TEPLUG_PLUGINS_OPENCL_PROVIDER_SCRATCH_BUFFER_H_
