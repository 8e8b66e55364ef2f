#include "plugins/opencl/provider/scratch_buffer.h"

#include "absl/strings/str_cat.h"
#include "plugins/opencl/provider/cl_status.h"
#include "teplug/sdk/error.hpp"

namespace teplug::opencl::provider {

ScratchBuffer::ScratchBuffer(cl_context context, size_t bytes, const std::string& what) {
  cl_int e = CL_SUCCESS;
  mem_ = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &e);
  CheckCl(e, "clCreateBuffer", absl::StrCat(bytes, " bytes of ", what));
}

ScratchBuffer::~ScratchBuffer() { clReleaseMemObject(mem_); }

cl_command_queue QueueForStream(void* stream, cl_context context, cl_command_queue default_queue,
                                const char* what) {
  if (stream == nullptr) return default_queue;
  auto q = static_cast<cl_command_queue>(stream);
  cl_context queue_context = nullptr;
  CheckCl(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof queue_context, &queue_context, nullptr),
          "clGetCommandQueueInfo", what);
  if (queue_context != context) {
    throw sdk::InvalidArgument(
        absl::StrCat(what, " is a cl_command_queue of another context than the tensors'"));
  }
  return q;
}

}  // namespace teplug::opencl::provider
