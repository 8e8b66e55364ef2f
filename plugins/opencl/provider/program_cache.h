// OpenCL programs built once per cl_context (each context of this provider is
// on one device) and source, then reused by every call: kernels are made per
// call from the cached program (clCreateKernel is cheap; a cl_kernel's
// arguments are not safe to set from two threads). A build failure is an
// error naming the device and carrying the compiler's log.
#ifndef TEPLUG_PLUGINS_OPENCL_PROVIDER_PROGRAM_CACHE_H_
#define TEPLUG_PLUGINS_OPENCL_PROVIDER_PROGRAM_CACHE_H_

#include <CL/cl.h>

#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace teplug::opencl::provider {

// Builds `source` with `options` for `device`; throws sdk::Exception
// (TEPLUG_INTERNAL) naming the device and quoting the build log on failure.
cl_program BuildProgram(cl_context context, cl_device_id device, const std::string& source,
                        const std::string& options);

// A kernel object owning its reference.
class Kernel {
 public:
  Kernel(cl_program program, const char* name);
  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;
  // Sets argument `index` (naming the kernel in the error).
  template <class T>
  void Arg(cl_uint index, const T& value) {
    SetArg(index, sizeof(T), &value);
  }
  // Enqueues it on `queue` over a [rows, cols] grid.
  void Run2D(cl_command_queue queue, size_t rows, size_t cols);
  // Sets argument `index` to `bytes` of __local memory per work-group.
  void LocalArg(cl_uint index, size_t bytes) { SetArg(index, bytes, nullptr); }
  // Enqueues it over a `dims`-dimensional grid `global` in work-groups of
  // `local` (NULL: the implementation's choice); nothing for an empty grid.
  void Run(cl_command_queue queue, cl_uint dims, const size_t* global, const size_t* local);

 private:
  void SetArg(cl_uint index, size_t size, const void* value);
  cl_kernel kernel_;
  std::string name_;
};

// Programs by (context, source, options), built on first use (thread-safe;
// two threads asking at once may both build, one result is kept).
class ProgramCache {
 public:
  ~ProgramCache();
  cl_program Get(cl_context context, cl_device_id device, const std::string& source,
                 const std::string& options);
  // Releases the programs of `context` (call before the context goes away).
  void Forget(cl_context context);
  // clBuildProgram calls that succeeded so far (for tests of the cache).
  size_t builds() const;

 private:
  mutable std::mutex mu_;
  std::map<std::pair<cl_context, std::string>, cl_program> programs_;
  size_t builds_ = 0;
};

// The provider's one cache; IDevice close forgets the context's programs.
ProgramCache& SharedProgramCache();

}  // namespace teplug::opencl::provider

#endif  // TEPLUG_PLUGINS_OPENCL_PROVIDER_PROGRAM_CACHE_H_
